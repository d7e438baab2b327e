import { checkSetting, settingDefault } from '../settings.js';
import { checkShape, NUMBER } from '../shapes.js';
import type { Noise } from '../divergence/kernel.js';
import { InputError } from '../errors.js';
import { nextDown, nextUp } from '../numerics/float.js';
import { log1mexp, tailsOf, type Tails } from '../mechanisms/tails.js';

/** The share of the noise an error bar covers unless asked otherwise. */
export const DEFAULT_CONFIDENCE = settingDefault('confidence');

/** A confidence level: a number strictly between 0 and 1. */
export function checkConfidence(c: number): number {
  checkSetting('confidence', c);
  return c;
}

/** The largest double strictly below `x`. */

/**
 * The error bar `y ± h` of an untruncated release, each end rounded outward: the double
 * subtraction y − h rounds to nearest, so one step down (up for y + h) contains the exact ends.
 * With symmetric noise of half-width h at confidence c, the true value lies in it with
 * probability ≥ c over the noise.
 * @example symmetricInterval(10, 2) // [7.999999999999999, 12.000000000000002]
 */
export function symmetricInterval(y: number, h: number): [number, number] {
  checkShape(NUMBER, y, 'y');
  if (!(typeof h === 'number' && h >= 0)) throw new InputError(`must be a half-width ≥ 0, got ${String(h)}`, 'halfWidth');
  if (h === 0) return [y, y];
  return [exactSum(y, -h) ?? nextDown(y - h), exactSum(y, h) ?? nextUp(y + h)];
}

/** a + b when the double sum is exact (Knuth's TwoSum error is 0: integers, integer noise), else null (then rounded outward). */
function exactSum(a: number, b: number): number | null {
  const s = a + b;
  const bb = s - a;
  return Number.isFinite(s) && a - (s - bb) + (b - bb) === 0 ? s : null;
}

/**
 * The exact confidence interval of a truncated release (docs/math.md §14). With Y = x + Z redrawn
 * until it lies in [lo, hi], G_y(x) = P(Y ≤ y | x) is the truncated law's CDF at y, non-increasing
 * in x (log-concave noise: a monotone likelihood ratio), and G_Y(x) is uniform over the noise. So
 * for any tail share a(x) ∈ [0, 1 − c], the set {x ∈ support : a(x) ≤ G_y(x) ≤ a(x) + c} holds the
 * true x with probability exactly c. Equal tails, a = (1 − c)/2, leave the set empty for some y
 * near the truncation's ends; `a` instead ramps from 0 at the support's low end to 1 − c at its
 * high end over three noise scales (equal tails in between), non-decreasing, so the set is an
 * interval and never empty (by continuity: G_y − a goes from ≥ 0 to ≤ c). `support` is the range
 * of values the true x can take (the laws' atoms); its finite ends make the interval finite.
 * G is computed in closed form in log space (each tail directly, never 1 minus the other) and its
 * rounding charged by a margin of 1e-9 in log G, so each returned end lies outside the exact set.
 * @example truncatedInterval(1.5, noiseOf('laplace', 0.2), [0, 2], 0.95, [0, 6]) // [0.91…, 6]: near the top of [0, 2] every larger x is as likely
 */
export function truncatedInterval(
  y: number,
  noise: Noise,
  interval: [number, number],
  confidence: number,
  support: [number, number] = [-Infinity, Infinity],
): [number, number] {
  const [lo, hi] = interval;
  if (!(y >= lo && y <= hi)) throw new InputError(`released value ${y} lies outside [${lo}, ${hi}]`, 'truncate');
  checkConfidence(confidence);
  const [s0, s1] = support;
  if (!(s0 <= s1)) throw new InputError(`must be [LO, HI] with LO ≤ HI, got [${s0}, ${s1}]`, 'support');
  if (s0 === s1) return [s0, s1];
  if (noise.scale === 0) return [y, y];
  const share = tailShare(confidence, support, RAMP_SCALES * noise.scale);
  const cdf = (x: number) => logTruncatedCdf(noise, interval, y, x);
  const x0 = Math.min(Math.max(y, s0), s1);
  // U = sup{x : G_y(x) ≥ a(x)}, L = inf{x : 1 − G_y(x) ≥ 1 − c − a(x)}: kept unless certified outside.
  const U = supOfLowerSet((x) => cdf(x)[0] + LOG_MARGIN >= Math.log(share(x)), s0, s1, x0, noise.scale);
  const negL = supOfLowerSet((x) => cdf(-x)[1] + LOG_MARGIN >= Math.log(1 - confidence - share(-x)), -s1, -s0, -x0, noise.scale);
  // Empty only over an unbounded support (no ramp at an infinite end): then nothing narrower is certain.
  if (U === null || negL === null || -negL > U) return [s0, s1];
  return [-negL, U];
}

/** Noise scales over which the tail share ramps to a one-sided test at a finite end of the support. */
const RAMP_SCALES = 3;
/** The log-space margin charged for the closed forms' rounding (they agree with 50-digit values to ~1e-13). */
const LOG_MARGIN = 1e-9;

/**
 * a(x): the share of the truncated law left below the acceptance region at x, from 0 at a finite
 * low end of the support to 1 − c at a finite high end, (1 − c)/2 at least `ramp` inside both.
 */
function tailShare(c: number, [s0, s1]: [number, number], ramp: number): (x: number) => number {
  const r = Math.min(ramp, (s1 - s0) / 2);
  const rise = (d: number) => Math.min(1, Math.max(0, d / r));
  return (x) => ((1 - c) / 2) * ((Number.isFinite(s0) ? rise(x - s0) : 1) + 1 - (Number.isFinite(s1) ? rise(s1 - x) : 1));
}

/** log P(a ≤ x + sZ ≤ b), for x between a and b. */
function logMass(t: Tails, x: number, s: number, a: number, b: number): number {
  if (!(a < b)) return -Infinity;
  const A = (a - x) / s;
  const B = (b - x) / s;
  const w = (b - a) / s; // the width itself, not B − A (two rounded values)
  if (A >= 0) return t.logTail(A) + log1mexp(t.logTailRatio(A, w));
  if (B <= 0) return t.logTail(-B) + log1mexp(t.logTailRatio(-B, w));
  return t.logCentral(A, B);
}

/**
 * [log G_y(x), log(1 − G_y(x))], G_y(x) = P(Y ≤ y | x) for Y = x + sZ conditioned on [lo, hi]:
 * outside [lo, hi] anchored at the nearer end (A noise scales away), so both stay accurate as
 * x → ±∞; each computed directly, never as 1 minus the other.
 */
export function logTruncatedCdf(noise: Noise, [lo, hi]: [number, number], y: number, x: number): [number, number] {
  const family = tailsOf(noise.family);
  if (!family) throw new InputError(`no truncated interval for ${noise.family} noise`, 'truncate');
  const s = noise.scale;
  const u = (y - lo) / s;
  const v = (hi - y) / s;
  const W = (hi - lo) / s;
  const anchored = (A: number, near: number, far: number): [number, number] => {
    const all = log1mexp(family.logTailRatio(A, W));
    const dn = family.logTailRatio(A, near);
    return [log1mexp(dn) - all, dn + log1mexp(family.logTailRatio(A + near, far)) - all];
  };
  if (x <= lo) return anchored((lo - x) / s, u, v).map((g) => Math.min(0, g)) as [number, number];
  if (x >= hi) {
    const [g, gBar] = anchored((x - hi) / s, v, u); // the mirror: −Y given −x on [−hi, −lo]
    return [Math.min(0, gBar), Math.min(0, g)];
  }
  const all = logMass(family, x, s, lo, hi);
  // A probability: rounding never makes it exceed 1.
  return [Math.min(0, logMass(family, x, s, lo, y) - all), Math.min(0, logMass(family, x, s, y, hi) - all)];
}

/**
 * sup{x ∈ [s0, s1] : keep(x)} for `keep` true on a lower part of [s0, s1] ("not certified
 * outside"); null when it fails everywhere. Starts at x0 ∈ [s0, s1]; an infinite side is searched
 * by doubling steps up to 2⁶⁴·step (beyond: ±∞). The bisection returns its outside point, so the
 * end only moves outward.
 */
function supOfLowerSet(keep: (x: number) => boolean, s0: number, s1: number, x0: number, step: number): number | null {
  let inside: number;
  let outside: number;
  if (keep(x0)) {
    const far = firstChange(keep, s1, x0, step, false);
    if (far === null) return s1;
    [inside, outside] = far;
  } else {
    const far = firstChange(keep, s0, x0, -step, true);
    if (far === null) return null;
    [outside, inside] = far;
  }
  for (let i = 0; i < 1100; i++) {
    const mid = inside + (outside - inside) / 2;
    if (mid === inside || mid === outside) break;
    if (keep(mid)) inside = mid;
    else outside = mid;
  }
  return outside;
}

/**
 * From x0 towards `end` by doubling steps: [the last point like x0, the first with keep = `want`];
 * null when none is found up to `end` (an infinite end: within 2⁶⁴ steps).
 */
function firstChange(keep: (x: number) => boolean, end: number, x0: number, step: number, want: boolean): [number, number] | null {
  if (Number.isFinite(end)) return keep(end) === want ? [x0, end] : null;
  let last = x0;
  for (let k = 0; k < 64; k++) {
    const t = x0 + step * 2 ** k;
    if (keep(t) === want) return [last, t];
    last = t;
  }
  return null;
}
