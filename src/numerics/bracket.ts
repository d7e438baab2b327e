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

/** The most a predicted step may divide the scale by. */
const MAX_STEP = 1024;
/** … and where the last two values are flat (a slope below ¼: the data's own divergence shows), by this. */
const FLAT_STEP = 16;

/**
 * A bracket below a feasible scale for a condition `value ≤ target` that falls with the scale
 * roughly like a power law (divergences of added noise: ∝ s^{−2} far out, flatter near the data).
 * From the charged value (value + error) at the lowest feasible scale so far and the slope of
 * log v against log s through the last two (2 from one point), it predicts where v meets the
 * target and evaluates 3% below that point, aiming just past the root: an infeasible point ends
 * the search, a feasible one becomes the new upper end. Every end it returns was evaluated:
 * `lower` infeasible (or the search's floor) and `upper` feasible, so the model affects only how
 * many evaluations the bracket costs, never safety. Pair it with `logLog` Brent, which closes a
 * wide bracket of a near power law in a few steps. Falls back to halving when the values give no
 * usable slope.
 * @example bracketPredict((s) => ({ value: 1 / s, error: 0, target: 1, sense: 'le' }), 64) // lower < 1 ≤ upper
 */
export function bracketPredict(
  evaluate: (s: number) => Evaluation,
  feasible: number,
  opts: { tries?: number; margin?: number } = {},
): { lower: number; upper: number } {
  const margin = opts.margin ?? 0.03;
  const charged = (e: Evaluation) => (e.sense === 'le' ? e.value + e.error : Number.NaN);
  const first = evaluate(feasible);
  const target = first.target;
  let hi = { s: feasible, v: charged(first) };
  let prev: { s: number; v: number } | null = null;
  for (let k = 0; k < (opts.tries ?? 12); k++) {
    const slope = prev && hi.v > 0 && prev.v > 0 && prev.s !== hi.s ? -Math.log(hi.v / prev.v) / Math.log(hi.s / prev.s) : 2;
    if (!(hi.v > 0) || !(target > 0) || !Number.isFinite(slope)) break;
    const guess = hi.s * (hi.v / target) ** (1 / Math.min(8, Math.max(0.25, slope)));
    // At most a factor MAX_STEP per step: where the values flatten before a steep rise (the laws'
    // own divergence met at small scales) the power law predicts orders of magnitude too far, and
    // a flat secant says so (FLAT_STEP): far below, atoms thousands of scales apart cost the
    // costliest quadratures, only to be infeasible.
    const t = Math.max(Math.min(guess * (1 - margin), hi.s / (1 + margin)), hi.s / (slope < 0.25 ? FLAT_STEP : MAX_STEP));
    if (!(t > 0)) break;
    const e = evaluate(t);
    if (!isFeasible(e)) return { lower: t, upper: hi.s };
    prev = hi;
    hi = { s: t, v: charged(e) };
  }
  return bracketBelow(evaluate, hi.s, { tighten: true });
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
