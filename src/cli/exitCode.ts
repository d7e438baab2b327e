/**
 * Exit codes of the `pufferfish` command: 0 ok; 1 a check ran and failed (`audit` found rows over
 * ε); 2 bad input; 3 a numerical routine could not certify its answer; 70 an internal error
 * (a bug: never 0–3, so scripts do not mistake it for a verdict).
 */
export const EXIT = { ok: 0, checkFailed: 1, badInput: 2, numerical: 3, internal: 70 } as const;

let code: number = EXIT.ok;
/** A command's own outcome (e.g. an audit verdict), returned by `main` when nothing threw. */
export const setCommandExit = (c: number) => {
  code = c;
};
export const commandExit = () => code;
