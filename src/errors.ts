/**
 * Errors the user can fix. The CLI prints `message` on one line and exits with code 2;
 * `path` names the offending field or flag (e.g. `priors[0].conditionals.Husband.weights[2]`).
 * @example new InputError('must be > 0, got -1', 'epsilon').path // 'epsilon'
 */
export class InputError extends Error {
  override readonly name = 'InputError';
  constructor(
    readonly reason: string,
    readonly path?: string,
  ) {
    super(path ? `${path}: ${reason}` : reason);
  }

  /** The same error with its path placed under `prefix` (e.g. `spec`). */
  under(prefix: string): InputError {
    return new InputError(this.reason, this.path ? `${prefix}.${this.path}` : prefix);
  }
}

/**
 * A numerical routine could not certify its answer. Never swallowed: no number is better than a wrong one.
 * @example new NumericalError('no certified bracket').name // 'NumericalError'
 */
export class NumericalError extends Error {
  override readonly name = 'NumericalError';
}

/**
 * A name that is not one of the known ones, in one wording wherever it is refused:
 * `unknown WHAT 'NAME'CONTEXT (LISTED…)`, `listed` leading the list (default `WHATs: `).
 * @example unknownName('column', 'x', ['a', 'b'], 'query').message // "query: unknown column 'x' (columns: a, b)"
 */
export function unknownName(what: string, name: string, known: readonly string[], field: string, listed = `${what}s: `, context = ''): InputError {
  return new InputError(`unknown ${what} '${name}'${context} (${listed}${known.join(', ')})`, field);
}

/** The statistics `--query` takes, as every refusal lists them. */
export const STATISTICS = 'sum:COL | mean:COL | count[:PREDICATE] | share[:PREDICATE], in lower case';

/**
 * A column the table does not have. A table read as one column whose name holds a separator
 * (`age,sex,fbs`) was split at the wrong one: the message says which it probably is.
 * @example unknownColumn('age', ['age;sex'], 'query').message // "query: unknown column 'age' (columns: age;sex); the table was read as one column 'age;sex': is the separator ';'? (--separator)"
 */
export function unknownColumn(name: string, columns: readonly string[], field: string): InputError {
  const e = unknownName('column', name, columns, field);
  // `median:x` or `SUM:x` meant as a statistic: say which ones there are.
  if (field === 'query' && /^\s*[A-Za-z_]\w*\s*:/.test(name)) return new InputError(`${e.reason}; nor is it a statistic: ${STATISTICS}`, field);
  const sep = columns.length === 1 ? [',', ';', '\t', '|'].find((c) => columns[0].includes(c)) : undefined;
  if (sep === undefined) return e;
  const shown = sep === '\t' ? 'a tab' : `'${sep}'`;
  return new InputError(`${e.reason}; the table was read as one column '${columns[0]}': is the separator ${shown}? (--separator)`, field);
}

/** A list of columns naming one twice. */
export const columnTwice = (field: string): InputError => new InputError('names a column twice', field);

/** An account or budget asked of no release. */
export const noRelease = (): InputError => new InputError('name at least one release', 'release');

/** A budget the charge for computed laws' floating-point error leaves nothing of (docs/math.md §13). */
export const budgetBelowCharge = (charge: number): InputError => new InputError(`must exceed the laws' floating-point error charge ${charge}`, 'epsilon');

/** A release with no noise offered to a ledger: the joint accountant has nothing to account it by. */
export const noNoiseToRecord = (): InputError => new InputError('a release without noise cannot be recorded', '--ledger');
