import { checkSetting } from '../settings.js';
import { pointMass } from '../distribution/discrete.js';
import type { Noise } from '../divergence/kernel.js';
import { logMassIn } from '../divergence/exactRenyi.js';
import { InputError } from '../errors.js';
import { nextUp } from '../numerics/float.js';

/** The share of the noise an error bar covers unless asked otherwise. */
export const DEFAULT_CONFIDENCE = 0.95;

/** A confidence level: a number strictly between 0 and 1. */
export function checkConfidence(c: number): number {
  checkSetting('confidence', c);
  return c;
}

/** The largest double strictly below `x`. */
const nextDown = (x: number) => -nextUp(-x);

/**
 * The error bar `y ± h` of an untruncated release, each end rounded outward: the double
 * subtraction y − h rounds to nearest, so one step down (up for y + h) contains the exact ends.
 * With symmetric noise of half-width h at confidence c, the true value lies in it with
 * probability ≥ c over the noise.
 * @example symmetricInterval(10, 2) // [7.999999999999999, 12.000000000000002]
 */
export function symmetricInterval(y: number, h: number): [number, number] {
  if (h === 0) return [y, y];
  return [nextDown(y - h), nextUp(y + h)];
}

/**
 * The exact confidence interval of a truncated release (docs/math.md §14): with
 * Y = x + Z redrawn until it lies in [lo, hi], G_y(x) = P(Y ≤ y | x) is the truncated law's CDF
 * at y, decreasing in x (log-concave noise: a monotone likelihood ratio). The set
 * {x : (1 − c)/2 ≤ G_y(x) ≤ (1 + c)/2} is an interval that holds the true x with probability
 * exactly c, since G_Y(x) is uniform over the noise; the interval returned contains it (so covers
 * at least c: more where the set is empty and the search still returns an interval about y). Each end is found by bisection and the end
 * returned is one certified to lie outside the set (the quadrature's error bound charged), so
 * the interval only widens; an end not certified within 2⁶⁴ noise scales is ±∞.
 * @example truncatedInterval(1.5, noiseOf('laplace', 0.2), [0, 2], 0.95) // [0.9165…, ∞]: near the top of [0, 2] every larger x is as likely
 */
export function truncatedInterval(y: number, noise: Noise, interval: [number, number], confidence: number): [number, number] {
  const [lo, hi] = interval;
  if (noise.scale === 0) return [y, y];
  if (!(y >= lo && y <= hi)) throw new InputError(`released value ${y} lies outside [${lo}, ${hi}]`, 'truncate');
  // log G_y(x) with its error bound: the two interval masses are certified, their ratio charged both errors.
  const logG = (x: number) => {
    const below = logMassIn(pointMass(x), noise, [lo, y]);
    const all = logMassIn(pointMass(x), noise, [lo, hi]);
    return { value: below.value - all.value, error: below.error + all.error + 1e-12 * (Math.abs(below.value) + Math.abs(all.value)) };
  };
  // Certified: G_y(x) > level (x below the set's lower end) or G_y(x) < level (above its upper end).
  const above = (x: number, level: number) => {
    const g = logG(x);
    return g.value - g.error > Math.log(level);
  };
  const below = (x: number, level: number) => {
    const g = logG(x);
    return g.value + g.error < Math.log(level);
  };
  const s = noise.scale;
  return [outerEnd(y, -s, (x) => above(x, (1 + confidence) / 2)), outerEnd(y, s, (x) => below(x, (1 - confidence) / 2))];
}

/**
 * The end of the confidence set on the side of `step`'s sign: a point `outside` certifies
 * beyond it, bisected towards `y` (which need not be inside) and returned as the certified
 * outside point, so the set never loses a value it holds.
 */
function outerEnd(y: number, step: number, outside: (x: number) => boolean): number {
  let near = y;
  let far = y + step;
  for (let k = 0; !outside(far); k++) {
    if (k === 64) return step > 0 ? Infinity : -Infinity;
    near = far;
    far = y + step * 2 ** (k + 1);
  }
  // outside(far) holds; shrink towards near while keeping a certified outside point.
  for (let i = 0; i < 200; i++) {
    const mid = near + (far - near) / 2;
    if (mid === near || mid === far) break;
    if (outside(mid)) far = mid;
    else near = mid;
  }
  return far;
}
