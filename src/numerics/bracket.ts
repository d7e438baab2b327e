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

/**
 * A tight bracket below a feasible scale for a condition `value ≤ target` that falls with the
 * scale roughly like a power law (divergences of added noise: ∝ s^{−2} far out, flatter near the
 * data): from the charged values (value + error) at the last two scales it fits log v against
 * log s, predicts where v meets the target, and evaluates just below and just above that point.
 * Every end it returns was evaluated: `lower` infeasible (or the search's floor) and `upper`
 * feasible, so the model affects only how many evaluations the bracket costs, never safety. Falls
 * back to halving when the values give no usable slope.
 * @example bracketPredict((s) => ({ value: 1 / s, error: 0, target: 1, sense: 'le' }), 64) // a bracket around 1, a few % wide
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
  let lo: { s: number; v: number } | null = null;
  // The two most recent points, for the slope.
  let a = hi,
    b: { s: number; v: number } | null = null;
  for (let k = 0; k < (opts.tries ?? 8); k++) {
    if (lo && hi.s <= lo.s * (1 + 3 * margin)) break;
    const slope = b && a.v > 0 && b.v > 0 && a.s !== b.s ? -Math.log(a.v / b.v) / Math.log(a.s / b.s) : 2;
    if (!(a.v > 0) || !(target > 0) || !Number.isFinite(slope)) break;
    let guess = a.s * (a.v / target) ** (1 / Math.min(8, Math.max(0.25, slope)));
    // Stay strictly inside the bracket known so far.
    if (lo) guess = Math.max(guess, lo.s * (1 + margin) ** 2);
    guess = Math.min(guess, hi.s / (1 + margin));
    if (!(guess > 0)) break;
    for (const t of [guess * (1 - margin), guess * (1 + margin)]) {
      if (t >= hi.s || (lo && t <= lo.s)) continue;
      const e = evaluate(t);
      const pt = { s: t, v: charged(e) };
      if (isFeasible(e)) hi = pt;
      else lo = pt;
      b = a;
      a = pt;
      if (isFeasible(e)) break; // the point above cannot tell more
    }
  }
  return lo ? { lower: lo.s, upper: hi.s } : bracketBelow(evaluate, hi.s, { tighten: true });
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
