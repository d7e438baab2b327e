// Statistics of a table (docs/math.md §18): a sum, mean, count or share of one unit's
// contributions. Engine-free (browser-safe): the SQL is text, run by the engines of engines/.
import * as v from 'valibot';
import { InputError } from '../errors.js';
import { checkShape } from '../shapes.js';
import { checkPredicate, predicateColumns } from './predicate.js';
import { ident } from './sqlText.js';

/** What a statistic adds up: a column's values (sum, mean) or a predicate's 0/1 (count, share). */
export type StatisticKind = 'sum' | 'mean' | 'count' | 'share';

/**
 * A statistic of a table: the sum over units of each unit's contribution. A mean and a share
 * divide by n, the number of units, which is public.
 */
export interface Statistic {
  kind: StatisticKind;
  /** sum, mean: the numeric column. */
  column?: string;
  /** count, share: the SQL predicate a row meets (absent: every row). */
  predicate?: string;
  /** Rows with one value of this column are one unit; its contribution is their total. */
  unit?: string;
}

/**
 * `--query sum:COL | mean:COL | count[:PREDICATE] | share[:PREDICATE]` as a statistic; `null` for
 * a plain column name.
 * @example parseStatistic('count:chol > 240') // { kind: 'count', predicate: 'chol > 240' }
 */
export function parseStatistic(text: string): Statistic | null {
  const m = /^\s*(sum|mean|count|share)\s*(?::(.*))?$/s.exec(text);
  if (!m) return null;
  const kind = m[1] as StatisticKind;
  const rest = m[2]?.trim();
  if (kind === 'sum' || kind === 'mean') {
    if (!rest) throw new InputError(`${kind}: names no column (${kind}:COL)`, 'query');
    return { kind, column: rest };
  }
  if (rest === undefined) return { kind };
  checkSqlPredicate(kind, rest, 'query');
  return { kind, predicate: rest };
}

/**
 * A count's or share's SQL predicate: one condition on its own row. A contribution must be a
 * function of its own row (docs/math.md §18): a subquery or a table function could read other rows,
 * and one unit's secret would flow into the count.
 */
export function checkSqlPredicate(kind: StatisticKind, predicate: string, field: string): void {
  try {
    checkPredicate(kind, predicate);
  } catch (e) {
    throw new InputError((e as InputError).reason, field);
  }
  if (predicateColumns(predicate) === 'any')
    throw new InputError(`${kind}: the predicate may read only the row's own columns by name (no subquery, table function, * or quoted path)`, field);
}

/**
 * A statistic as `--query` text (the inverse of `parseStatistic`).
 * @example statisticText({ kind: 'count', predicate: 'chol > 240' }) // 'count:chol > 240'
 */
export const statisticText = (s: Statistic): string => {
  const of = s.column ?? s.predicate;
  return of === undefined ? s.kind : `${s.kind}:${of}`;
};

/** Whether a statistic divides by the number of units (a mean, a share). */
export const perUnit = (s: Statistic): boolean => s.kind === 'mean' || s.kind === 'share';

/**
 * What a scale, value or interval of the contribution laws is divided by: n for a mean or share, else 1.
 * @example divisorOf({ kind: 'mean', column: 'x' }, 303) // 303
 */
export const divisorOf = (s: Statistic, units: number): number => (perUnit(s) ? units : 1);

/**
 * The statistic in words.
 * @example statisticLabel({ kind: 'mean', column: 'chol', unit: 'household' }) // "mean of chol (units: household)"
 */
export function statisticLabel(s: Statistic): string {
  const of = s.column ?? (s.predicate === undefined ? 'rows' : `rows with ${s.predicate}`);
  return `${s.kind} of ${of}${s.unit ? ` (units: ${s.unit})` : ''}`;
}

/**
 * Rows without a unit value are refused, not dropped: whether a row has one may depend on the
 * secret, and whether such a row stands alone or belongs with others (then its unit's total, and
 * the independence of units, would be wrong) is the curator's to say.
 */
export const rowsWithoutUnit = (unit: string, rows: number, read: number) =>
  new InputError(
    `${rows} of the ${read} rows ${rows === 1 ? 'has' : 'have'} no value in '${unit}': every row must belong to a unit; give those rows one (their own id where each stands alone) or leave them out of the table`,
    '--unit',
  );

const KINDS: readonly StatisticKind[] = ['sum', 'mean', 'count', 'share'];
const text = (what: string) => v.optional(v.string((i) => `must be a string (${what}), got ${typeof i.input}`));
/** A statistic given to the library: its kind and names as `parseStatistic` makes them, nothing else. */
const STATISTIC = v.strictObject(
  {
    kind: v.picklist(KINDS, (i) => `must be one of ${KINDS.join(', ')}, got ${JSON.stringify(i.input)}`),
    column: text('the numeric column'),
    predicate: text('the predicate'),
    unit: text('the unit column'),
  },
  (i) =>
    i.expected === 'never'
      ? `has a field the statistic does not take (kind, column, predicate, unit)`
      : `must be an object { kind, column | predicate, unit }, got ${typeof i.input}`,
);

/**
 * A statistic's shape and names: a sum or mean of a column, a count or share of rows (a predicate or
 * none); its unit is not its column, and it does not release the secret column.
 */
export function checkStatistic(s: Statistic, secretColumn?: string): void {
  checkShape(STATISTIC, s, 'statistic');
  if (s.kind === 'sum' || s.kind === 'mean') {
    if (s.column === undefined || s.predicate !== undefined) throw new InputError(`a ${s.kind} names a column and no predicate`, 'statistic');
  } else if (s.column !== undefined) throw new InputError(`a ${s.kind} names a predicate (or none), not a column: sum:${s.column} adds a column`, 'statistic');
  if (s.unit !== undefined && s.unit === s.column)
    throw new InputError(`names the query column '${s.unit}'; --unit names the column whose value groups rows into one unit (a household, a person)`, '--unit');
  if (secretColumn !== undefined && s.column === secretColumn)
    throw new InputError(
      `releases the secret column '${secretColumn}' itself; name another column (count:${secretColumn} = '…' counts the units of one secret value)`,
      '--query',
    );
  // Units of one secret value would make n the number of secret values present: n is printed as public.
  if (secretColumn !== undefined && s.unit === secretColumn)
    throw new InputError(`names the secret column '${secretColumn}'; a unit is a household or a person, never the secret`, '--unit');
}

/**
 * One row's contribution in SQL: the column cast to a number (a sum's missing value counts 0, as
 * SQL's sum reads it: the laws must see what the value adds), or 1 where the predicate holds, else 0.
 */
export function rowContribution(s: Statistic, tryCast: (e: string) => string): string {
  if (s.column !== undefined) return s.kind === 'sum' ? `coalesce(${tryCast(ident(s.column))}, 0)` : tryCast(ident(s.column));
  return s.predicate === undefined ? '1' : `CASE WHEN (${s.predicate}) THEN 1 ELSE 0 END`;
}

/** The column statistic i's unit total is attached as (see `withUnitTotals`). */
export const unitTotal = (i: number): string => `"__pufferfish_unit_total_${i}"`;

/**
 * The relation with each row's unit total of each statistic attached (`unitTotal(i)`): NULL where
 * the unit is missing or any row of it has no value (a unit is kept whole or not at all). With
 * `groups`, a unit is its rows within one group.
 */
export function withUnitTotals(relation: string, ss: readonly Statistic[], tryCast: (e: string) => string, groups: readonly string[] = []): string {
  const u = ident(ss[0].unit!);
  const w = `(PARTITION BY ${[u, ...groups.map(ident)].join(', ')})`;
  const totals = ss.map((s, i) => {
    const x = rowContribution(s, tryCast);
    return `CASE WHEN ${u} IS NULL THEN NULL WHEN count(*) OVER ${w} = count(${x}) OVER ${w} THEN sum(${x}) OVER ${w} END AS ${unitTotal(i)}`;
  });
  return `(SELECT *, ${totals.join(', ')} FROM ${relation}) AS pufferfish_units`;
}

/**
 * One aggregate giving, per group (`g`; NULL without a group column), the statistic's total in
 * contribution units, the units counted, the rows they hold, the rows read and the rows with a
 * number in the statistic's column (`total`, `units`, `kept`, `rows`, `present`).
 */
export function statisticValueSql(relation: string, s: Statistic, tryCast: (e: string) => string, group?: string): string {
  const g = group ? ident(group) : 'NULL';
  const x = rowContribution(s, tryCast);
  const has = s.column === undefined ? 'count(*)' : `count(${tryCast(ident(s.column))})`;
  const big = s.column === undefined ? '0' : `max(abs(${tryCast(ident(s.column))}))`;
  const mass = `sum(abs(${x}))`;
  if (s.unit === undefined)
    return `SELECT ${g} AS g, sum(${x}) AS total, count(${x}) AS units, count(${x}) AS kept, count(*) AS rows, ${has} AS present, ${big} AS big, ${mass} AS mass FROM ${relation} GROUP BY 1`;
  const u = ident(s.unit);
  const per = `SELECT ${g} AS g, CASE WHEN ${u} IS NULL THEN NULL WHEN count(*) = count(${x}) THEN sum(${x}) END AS t, count(*) AS k, sum(CASE WHEN ${u} IS NULL THEN 1 ELSE 0 END) AS nu, ${has} AS h, ${big} AS b, ${mass} AS m FROM ${relation} GROUP BY 1, ${u}`;
  return `SELECT g, sum(t) AS total, count(t) AS units, sum(CASE WHEN t IS NULL THEN 0 ELSE k END) AS kept, sum(k) AS rows, sum(nu) AS nounit, sum(h) AS present, max(b) AS big, sum(m) AS mass FROM (${per}) AS pufferfish_units GROUP BY 1`;
}

/** 2⁵³: from here on doubles skip integers, so a value or a total this large may have been rounded. */
const EXACT_INTEGERS = 2 ** 53;

/**
 * A statistic's value, or the sum of its rows' magnitudes (`mass`, which bounds its total, every
 * unit's total and every running sum on the way), of 2⁵³ or more: the doubles it is read and added
 * in no longer hold every integer, so the released number could differ from the table's. Refused.
 */
export function checkExact(s: Statistic, largest: number, mass: number): void {
  if (largest >= EXACT_INTEGERS)
    throw new InputError(
      `column '${s.column}' holds a value of magnitude ${largest} ≥ 2⁵³, where doubles no longer hold every integer: it may have been rounded on reading; rescale the column (thousands, millions)`,
      'query',
    );
  if (mass >= EXACT_INTEGERS)
    throw new InputError(
      `the magnitudes of the statistic's rows add up to ${mass} ≥ 2⁵³, where doubles no longer hold every integer: its total (or a partial sum on the way to it) may have been rounded; rescale the column (thousands, millions)`,
      'query',
    );
}

/**
 * A mean divides by n, the units with a value, which is public: with a row without a number, n
 * would tell an adversary who knows the other units whether this one has a value, and that may
 * depend on the secret. Refused, with what can be released instead.
 */
export const meanWithMissing = (s: Statistic, missing: number, rows: number) =>
  new InputError(
    `${s.kind}:${s.column}: ${missing} of ${rows} rows have no number in '${s.column}'; a mean divides by the units with a value (n, public), so n would tell whether a unit has one, which may depend on the secret: release sum:${s.column} (a missing value counts 0) and the count of rows with a value as two statistics, or give a table without those rows (your choice of rows is then public)`,
    'query',
  );

/**
 * A unit whose rows lie in two groups, a missing group counting as one (SQL; no row when every unit
 * keeps to one group): a unit split across groups would count as two units.
 */
export function unitAcrossGroupsSql(relation: string, unit: string, group: string): string {
  const g = `CAST(${ident(group)} AS TEXT)`;
  return `SELECT ${ident(unit)} AS u FROM ${relation} WHERE ${ident(unit)} IS NOT NULL GROUP BY 1 HAVING count(DISTINCT ${g}) + max(CASE WHEN ${ident(group)} IS NULL THEN 1 ELSE 0 END) > 1 LIMIT 1`;
}

/** A unit whose rows lie in two groups (a missing group counting as one). */
export const unitAcrossGroups = (unit: string, group: string) =>
  new InputError(
    `unit '${unit}' has rows in two groups of '${group}' (or rows without one): a group must hold each unit whole (or give no --group-by)`,
    '--unit',
  );

/** A total no noise covers (`group`: '' without a group column). */
export const notFinite = (total: number, group: string) =>
  new InputError(`the statistic${group ? ` of group '${group}'` : ''} is ${total} (an infinite or NaN value, or a sum beyond the largest number)`, 'query');
