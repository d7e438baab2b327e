import { NumericalError } from '../errors.js';
import { brentBracket } from './brent.js';

/**
 * A privacy condition evaluated at one noise scale: `value ≤ target` (sense `le`) or
 * `value ≥ target` (sense `ge`), where `value` carries an absolute floating-point error bound.
 * A scale is accepted only if the condition holds after the error is counted against it.
 */
export interface Evaluation {
  value: number;
  error: number;
  target: number;
  sense: 'le' | 'ge';
}

/** `value ± error` still satisfies the condition: the error is charged to the budget. */
export function isFeasible(e: Evaluation): boolean {
  return e.sense === 'le' ? e.value + e.error <= e.target : e.value - e.error >= e.target;
}

/** Worst-case distance to violating the condition (≥ 0 when feasible); negative when it fails. */
function slack(e: Evaluation): number {
  return e.sense === 'le' ? e.target - (e.value + e.error) : e.value - e.error - e.target;
}

/**
 * A condition that is monotone in the scale: infeasible below some s*, feasible above it.
 * `lower ≤ s* ≤ upper` must hold analytically (each condition module proves its bracket).
 */
export interface ScaleProblem {
  evaluate(scale: number): Evaluation;
  lower: number;
  upper: number;
  /** Relative bracket width at which to stop (default 4·2^-52); wider for costly conditions. */
  rtol?: number;
  /** Said in the result's explanation when the problem binds (e.g. why a fallback was used). */
  note?: string;
  /**
   * The charged value (`le` sense, positive target) falls roughly like a power law in the scale:
   * Brent then runs on log(value/target) against log(scale), where it is nearly linear, and needs
   * fewer (costly) evaluations. Only the path changes: the answer is still the feasible end.
   */
  logLog?: boolean;
}

export interface ScaleSolution {
  scale: number;
  /** The condition re-evaluated at `scale`; always feasible. */
  check: Evaluation;
  iterations: number;
}

/**
 * The smallest scale (to a relative 1e-15 or so) at which the condition is *certified*, i.e.
 * holds with its error bound charged. Generic safe bracketing search in the spirit of
 * dp_accounting: the analytic upper end is nudged up until it certifies (it can fail only by
 * rounding); if the analytic lower end already certifies, it is the answer (nothing below it
 * can be feasible); otherwise Brent's method runs inside [lower, upper] and the *feasible* end of
 * the final bracket is returned, re-checked.
 */
export function smallestFeasibleScale(problem: ScaleProblem): ScaleSolution {
  const g = (s: number) => -slack(problem.evaluate(s));
  let { lower, upper } = problem;
  if (!(lower > 0) || !(upper > 0) || !Number.isFinite(upper)) {
    throw new NumericalError(`invalid analytic bracket [${lower}, ${upper}]`);
  }
  // Analytically lower ≤ upper; rounding may swap ends that coincide in exact arithmetic.
  if (lower > upper) lower = upper;
  let step = 1e-13;
  let nudges = 0;
  while (g(upper) > 0) {
    if (++nudges > 40) throw new NumericalError(`condition does not certify near its analytic upper bound ${problem.upper}`);
    lower = upper;
    upper = upper * (1 + step);
    step *= 4;
  }
  let scale: number;
  let iterations = nudges;
  if (g(lower) <= 0) {
    scale = lower;
  } else if (problem.logLog) {
    // x = log s, ends mapped back exactly (so the ends are not evaluated twice at s ≠ exp(log s)).
    const [xl, xu] = [Math.log(lower), Math.log(upper)];
    const at = (x: number) => (x === xl ? lower : x === xu ? upper : Math.exp(x));
    const h = (x: number) => {
      const e = problem.evaluate(at(x));
      const v = (e.value + e.error) / e.target;
      // The sign is feasibility's; the magnitude is log v, clamped finite.
      return isFeasible(e) ? Math.max(-700, Math.log(Math.max(Math.min(v, 1), 1e-300))) : Math.min(700, Math.max(Math.log(v), 1e-300));
    };
    const br = brentBracket(h, xl, xu, { rtol: 0, xtol: problem.rtol ?? 4 * Number.EPSILON });
    scale = at(br.feasible);
    iterations += br.iterations;
  } else {
    const br = brentBracket(g, lower, upper, { rtol: problem.rtol });
    scale = br.feasible;
    iterations += br.iterations;
  }
  const check = problem.evaluate(scale);
  if (!isFeasible(check)) throw new NumericalError(`re-check failed at scale ${scale}`);
  return { scale, check, iterations };
}

/**
 * The smallest scale at which a monotone yes/no check `fits` holds (false below some s*, true
 * above), to a relative `rtol`: null when even 10³⁰⁰ does not fit. From `start` it walks down by
 * halves while the scale fits (to 10⁻³⁰⁰: the noise is then negligible) or up by doubling until it
 * does, then bisects geometrically; the answer is always the fitting end. For checks with no
 * certified value to root-find on (a ledger's budget, a joint bound's yes/no), where
 * `smallestFeasibleScale` needs one; the caller re-checks what it prints.
 * @example smallestFitting((s) => s >= 3, 1) // within 10⁻⁶ above 3
 */
export function smallestFitting(fits: (scale: number) => boolean, start = 1, rtol = 1e-6): number | null {
  if (!fits(1e300)) return null;
  let lo = start;
  let hi = start;
  if (fits(hi)) {
    for (lo = hi / 2; fits(lo); lo /= 2) {
      hi = lo;
      if (lo < 1e-300) return hi;
    }
  } else {
    while (!fits(hi)) {
      lo = hi;
      hi *= 2;
    }
  }
  while (hi - lo > rtol * hi) {
    const mid = Math.sqrt(lo * hi);
    if (mid <= lo || mid >= hi) break;
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
