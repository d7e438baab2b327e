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
