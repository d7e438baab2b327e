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
  /** The condition at a scale: its value, the value's error bound, the target and the sense of the inequality. */
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

/** √(lo·hi), also where the product would overflow or underflow (scales near 10^±300). */
const geometricMean = (lo: number, hi: number) => {
  const p = lo * hi;
  return p > 0 && p < Infinity ? Math.sqrt(p) : Math.sqrt(lo) * Math.sqrt(hi);
};

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
    const mid = geometricMean(lo, hi);
    if (mid <= lo || mid >= hi) break;
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * `smallestFitting` of a check that reports how far it is from fitting — `ratio(s)`, its level over
 * the budget (fits ⇔ ≤ 1) — with the same answer in fewer evaluations: the bracket is first narrowed
 * on the ratios (`narrowBracket`, at most `maxEvaluations`), then the bisection reads every step
 * outside it from the bracket (`withinBracket`) and evaluates only inside it.
 * @example smallestFittingByRatio((s) => (3 / s) ** 2) // within 10⁻⁶ above 3, as smallestFitting((s) => s >= 3)
 */
export function smallestFittingByRatio(ratio: (scale: number) => number, start = 1, rtol = 1e-6, maxEvaluations = 30, guess?: number): number | null {
  const fits = (s: number) => ratio(s) <= 1;
  // Nothing fits (the past alone over the budget, or no finite level): one evaluation says so.
  if (!fits(1e300)) return null;
  if (guess !== undefined && isAnswer(fits, start, rtol, guess)) return guess;
  // A fitting scale's ratio may be a loose bound (a check that stops once it knows the answer): only the failing ones are read.
  const bracket = narrowBracket(ratio, start, rtol / 10, maxEvaluations, { fitValues: false });
  bracket.fit = Math.min(bracket.fit, 1e300);
  return smallestFitting(withinBracket(fits, bracket), start, rtol);
}

/**
 * Whether `guess` is the answer `smallestFitting(fits, start, rtol)` gives, in two evaluations: the
 * bisection's path to it is the path of the check "at least `guess`" (a real run that answered
 * `guess` found every scale it tried below it failing, and the others fitting), which ends on
 * [lo, guess]; where `guess` fits and `lo` fails, a monotone check takes that same path step by
 * step. A search repeated on the same check (a series' plan at each release) is then two checks.
 */
function isAnswer(fits: (scale: number) => boolean, start: number, rtol: number, guess: number): boolean {
  if (!(guess > 0 && guess < Infinity)) return false;
  let lo = Number.NaN;
  const probe = (s: number) => {
    const yes = s >= guess;
    if (!yes) lo = Math.max(Number.isNaN(lo) ? 0 : lo, s);
    return yes;
  };
  if (smallestFitting(probe, start, rtol) !== guess || Number.isNaN(lo)) return false;
  return fits(guess) && !fits(lo);
}

/** A known failing and a known fitting scale of a monotone check (0 and ∞ where none is known). */
export interface ScaleBracket {
  fail: number;
  fit: number;
}

/** How `narrowBracket` reads a check's ratio. */
export interface NarrowOptions {
  /** A scale known to fit, never evaluated (the search starts below it). */
  fits?: number;
  /**
   * Whether a fitting scale's ratio tells how far it is from the threshold. A check refined only
   * until it fits (its ratio stops just under 1) does not: then only the failing scales' ratios
   * are read, by a secant from below aimed just above its root.
   */
  fitValues?: boolean;
}

/** log 10³⁰⁰: the widest scale a bracket tries either way. */
const LOG_1E300 = Math.log(1e300);

/** log r clamped finite (NaN and ∞ fail). */
const logRatio = (r: number) => (Number.isNaN(r) ? 50 : Math.max(-50, Math.min(50, Math.log(r))));

/** A secant slope of log ratio on log scale, kept within powers −8 … −1/4 (the ratio falls). */
const slopeOf = (x0: number, y0: number, x1: number, y1: number) => (x1 === x0 ? -2 : Math.max(-8, Math.min(-0.25, (y1 - y0) / (x1 - x0))));

/**
 * Narrows the bracket of a monotone check whose ratio `ratio(s)` (condition over budget, fits ⇔
 * ≤ 1) falls roughly like a power of the scale, by regula falsi on log ratio against log s
 * (Illinois variant), from `start`, within `maxEvaluations`, to a relative `rtol`. A bisection over
 * the same check can then read each answer outside the bracket instead of evaluating it: its
 * answer is the one it would give alone, with fewer evaluations (`withinBracket`).
 * @example narrowBracket((s) => (3 / s) ** 2, 1, 1e-9, 20).fit // within 10⁻⁹ above 3
 */
export function narrowBracket(ratio: (scale: number) => number, start: number, rtol: number, maxEvaluations: number, o: NarrowOptions = {}): ScaleBracket {
  const fitValues = o.fitValues ?? true;
  const b: ScaleBracket = { fail: 0, fit: o.fits ?? Infinity };
  let [xa, ya] = [-Infinity, Number.NaN]; // the failing end
  let [xb, yb] = [o.fits === undefined ? Infinity : Math.log(o.fits), Number.NaN]; // the fitting end
  const fails: [number, number][] = [];
  let side: 'a' | 'b' | null = null;
  const at = (x: number): number => {
    const v = logRatio(ratio(Math.exp(x)));
    if (v > 0) {
      if (x > xa) [xa, ya] = [x, v];
      b.fail = Math.max(b.fail, Math.exp(x));
      fails.push([x, v]);
      if (side === 'a') yb /= 2; // Illinois: the stale end's value halved
      side = 'a';
    } else {
      if (x < xb) [xb, yb] = [x, v];
      b.fit = Math.min(b.fit, Math.exp(x));
      if (side === 'b') ya /= 2;
      side = 'b';
    }
    return v;
  };
  let x = o.fits === undefined ? Math.log(start) : xb - Math.LN2;
  let y = at(x);
  let prev: [number, number] | null = null;
  for (let n = 1; n < maxEvaluations; n++) {
    const w = xb - xa;
    if (Math.exp(w) - 1 <= rtol) break;
    let next: number;
    // Nothing failed yet: steps down that double each time (halving alone took ~1 000 evaluations
    // to the floor where everything fits: the data's own divergence within the budget).
    if (!fitValues && fails.length === 0) next = xb - Math.LN2 * 2 ** Math.min(n - 1, 10);
    else if (!fitValues) {
      // From below: the last two failing scales' secant (a power −2 from one), aimed just above its root.
      const [x1, y1] = fails[fails.length - 1];
      const s = fails.length > 1 ? slopeOf(fails[fails.length - 2][0], fails[fails.length - 2][1], x1, y1) : -2;
      const root = x1 - y1 / s;
      next = root + Math.log1p(rtol / 4);
      // A fitting end already above the root: its other side, just below the root.
      if (next >= xb) next = root + Math.log1p(-rtol / 4);
      // Another check may bind than the last failing one: outside the bracket, its middle.
      if (!(next > xa && next < xb) && Number.isFinite(w)) next = xa + w / 2;
    } else if (Number.isFinite(w) && Number.isFinite(ya) && Number.isFinite(yb)) next = xb - (yb * w) / (yb - ya);
    else next = x + Math.max(-3, Math.min(3, -y / (prev ? slopeOf(prev[0], prev[1], x, y) : -2)));
    // Kept strictly inside a known bracket (a step at its end would learn nothing), and past a
    // lone end by at least half the tolerance (a root hit exactly still needs its other side).
    if (Number.isFinite(w)) next = Number.isFinite(next) ? Math.min(xb - w * 1e-3, Math.max(xa + w * 1e-3, next)) : xa + w / 2;
    else if (xa === -Infinity) next = Math.min(next, xb + Math.log1p(-rtol / 2));
    else next = Math.max(next, xa + Math.log1p(rtol / 2));
    // Scales stay within 10^±300 (a flat or unbounded ratio's secant would step past every double).
    next = Math.min(LOG_1E300, Math.max(-LOG_1E300, next));
    if (next === x) break;
    prev = [x, y];
    x = next;
    y = at(x);
  }
  return b;
}

/**
 * `check` answered from a bracket where it can (a scale at or above `fit` fits, at or below
 * `fail` does not), evaluated only inside it: a bisection over the wrapped check takes the same
 * steps and gives the same answer as over `check` alone, for a monotone check.
 */
export function withinBracket(check: (scale: number) => boolean, b: ScaleBracket): (scale: number) => boolean {
  return (s) => {
    if (s >= b.fit) return true;
    if (s <= b.fail) return false;
    const ok = check(s);
    if (ok) b.fit = s;
    else b.fail = s;
    return ok;
  };
}

/**
 * The window calibrations' search: from `start`, doubling until the check fits (null past
 * `largest`), halving while it fits (to 10⁻¹²), then a geometric bisection to a relative 10⁻⁶;
 * the fitting end. `withinBracket` may answer its steps.
 * @example geometricBisection((s) => s >= 3, 1, 1e9) // within 10⁻⁶ above 3
 */
export function geometricBisection(fits: (scale: number) => boolean, start: number, largest: number): number | null {
  let hi = start;
  while (!fits(hi)) {
    hi *= 2;
    if (hi > largest) return null;
  }
  let lo = hi / 2;
  while (fits(lo) && lo > 1e-12) {
    hi = lo;
    lo /= 2;
  }
  while (hi / lo > 1 + 1e-6) {
    const mid = geometricMean(lo, hi);
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
