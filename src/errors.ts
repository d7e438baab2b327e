/**
 * Errors the user can fix. The CLI prints `message` on one line and exits with code 2;
 * `path` names the offending field or flag (e.g. `priors[0].conditionals.Husband.weights[2]`).
 */
export class InputError extends Error {
  override readonly name = 'InputError';
  constructor(
    message: string,
    readonly path?: string,
  ) {
    super(path ? `${path}: ${message}` : message);
  }
}

/** A numerical routine could not certify its answer. Never swallowed: no number is better than a wrong one. */
export class NumericalError extends Error {
  override readonly name = 'NumericalError';
}
