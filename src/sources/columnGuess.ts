import type { ColumnSummary } from './csvText.js';

/**
 * First guesses for a table's roles, made the way a curator would before correcting them: an
 * identifier (one value per row, or a name like `employee_id`) is never the query or the secret;
 * the secret differs from the query and has few values; a time series is ordered by a date-like
 * column and its states are a column of few values.
 */
export interface ColumnGuess {
  query?: string;
  secret?: string;
  /** The time-series reading: the state column and the order column. */
  state?: string;
  order?: string;
}

/** Columns named like keys: `id`, `employee_id`, `PatientID`, `row-key`. */
const ID_NAME = /(^|[_\s.-])(id|key|uuid|identifier)$|^(id|key|uuid)([_\s.-]|$)/i;
/** camelCase keys: `PatientID`, `userId` (case-sensitive, so `paid` is not one). */
const CAMEL_ID = /[a-z]I[dD]$/;
/** Columns named like times. */
const TIME_NAME = /date|time|day|month|year|week|period|^t$/i;
/** Cells that read as dates or timestamps (ISO 8601, or d/m/y). */
const DATE_CELL = /^\d{4}-\d{1,2}(-\d{1,2})?([ T].*)?$|^\d{1,2}\/\d{1,2}\/\d{2,4}$/;

/**
 * A column that identifies rows: named like a key, or one distinct value per present row (of more
 * than a handful) that is text or a run of consecutive integers (a measurement whose values all
 * differ, such as a salary, is not an identifier).
 */
const isIdentifier = (c: ColumnSummary): boolean =>
  ID_NAME.test(c.name) ||
  CAMEL_ID.test(c.name) ||
  (c.present > 10 && c.distinct === c.present && (!c.numeric || (c.max !== undefined && c.min !== undefined && c.max - c.min + 1 === c.distinct)));

/** Few values: a column that can be a secret or a chain's state (2 to 20 distinct values). */
const fewValues = (c: ColumnSummary) => c.distinct >= 2 && c.distinct <= 20;

/** A date-like column: named like a time, or its text cells read as dates. */
const dateLike = (c: ColumnSummary) => (!c.numeric && c.examples.length > 0 && c.examples.every((x) => DATE_CELL.test(x))) || TIME_NAME.test(c.name);

/**
 * The guesses for a table from its column summaries (`columnSummaries`).
 * @example guessColumns(columnSummaries(parseDelimited('id,age,sex\n1,63,m\n2,67,f\n', {}))) // { query: 'age', secret: 'sex', … }
 */
export function guessColumns(cols: readonly ColumnSummary[]): ColumnGuess {
  const numeric = cols.filter((c) => c.numeric && c.present > 0);
  // The query: a numeric column that is not an identifier, preferring one with many values (a measurement).
  const query = (numeric.find((c) => !isIdentifier(c) && c.distinct > 20) ?? numeric.find((c) => !isIdentifier(c)) ?? numeric[0])?.name;
  const candidates = cols.filter((c) => c.name !== query && !isIdentifier(c));
  const secret = (candidates.find(fewValues) ?? [...candidates].filter((c) => c.distinct >= 2).sort((a, b) => a.distinct - b.distinct)[0])?.name;
  const order = (cols.find((c) => dateLike(c) && !c.numeric) ?? cols.find(dateLike) ?? cols.find((c) => c.numeric && c.distinct === c.present))?.name;
  const states = cols.filter((c) => c.name !== order && fewValues(c) && !isIdentifier(c));
  const state = (states.find((c) => !c.numeric) ?? states[0])?.name;
  return { query, secret, state, order };
}
