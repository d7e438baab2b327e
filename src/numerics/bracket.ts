import { NumericalError } from '../errors.js';
import { isFeasible, type Evaluation } from './smallestScale.js';

/**
 * The lower end for a search below a feasible scale: halve until the condition fails (at most
 * `halvings` times). With `tighten`, the upper end follows the last feasible scale, so the bracket
 * is [infeasible, feasible] with ratio 2 — what a condition not known to be monotone needs (the
 * answer is then the least scale within that bracket). If every halving stays feasible, `lower`
 * is feasible and the search returns it.
 */
export function bracketBelow(
  evaluate: (s: number) => Evaluation,
  feasible: number,
  opts: { halvings?: number; tighten?: boolean } = {},
): { lower: number; upper: number } {
  let upper = feasible,
    lower = feasible / 2;
  for (let k = 0; k < (opts.halvings ?? 60) && isFeasible(evaluate(lower)); k++) {
    if (opts.tighten) upper = lower;
    lower /= 2;
  }
  return { lower, upper };
}

/** Doubles `start` until the condition holds (at most 60 times); NumericalError with `what` otherwise. */
export function bracketAbove(evaluate: (s: number) => Evaluation, start: number, what: string): number {
  let up = start;
  for (let k = 0; !isFeasible(evaluate(up)); k++) {
    if (k >= 60) throw new NumericalError(`${what}: no scale meets ε`);
    up *= 2;
  }
  return up;
}
