import { EPS } from '../numerics/float.js';
import type { Bounded } from '../numerics/logExpectation.js';
import type { Noise, OnePassIntegral } from './kernel.js';
import { logAddExp, type Mixture } from './mixture.js';

/** Neighbours on each side whose likelihood ratios are summed one by one; the rest are bounded together. */
const NEAR = 8;

/**
 * log ∫_I p^α q^{1−α} (and the reverse direction with `both`) for α > 1 when every atom lies many
 * noise scales from the next (docs/math.md §8, "Isolated atoms"): bracketed in closed form between
 * Σ a_j^α b_j^{1−α} F_j (the map (u, v) ↦ u^α v^{1−α} is convex and 1-homogeneous, so subadditive)
 * and the same sum over each atom's core, where the other atoms' share of the denominator is at
 * most η_j (a monotone likelihood ratio: the noise is symmetric and log-concave). F_j is the
 * atom's chance of landing in the interval (`mass`; 1 on the whole line). Null where the bracket is
 * wider than rtol/2, an atom of the numerator's law is missing from the other's, or the noise
 * declares no tail bound: the other rules run.
 */
export function isolatedAtoms(
  P: Mixture,
  Q: Mixture,
  alpha: number,
  noise: Noise,
  rtol: number,
  both: boolean,
  mass?: (x: number) => Bounded,
): OnePassIntegral[] | null {
  const tail = noise.kernel.logTailAbove;
  if (!(alpha > 1) || !tail) return null;
  const atoms = unionOf(P, Q);
  if (!atoms) return null;
  const { x, a, b } = atoms;
  const s = noise.scale;
  const n = x.length;
  // Core radii: a quarter of the distance to the nearest atom; the rule is tried only where even the
  // narrowest core holds all but a negligible share of its atom's noise.
  const radius = new Float64Array(n);
  for (let j = 0; j < n; j++) radius[j] = 0.25 * Math.min(j > 0 ? x[j] - x[j - 1] : Infinity, j < n - 1 ? x[j + 1] - x[j] : Infinity);
  let outside = -Infinity;
  for (let j = 0; j < n; j++) outside = Math.max(outside, tail(radius[j], s));
  if (!(outside + Math.LN2 <= Math.log(rtol) - 12)) return null;
  const F = Array.from(x, (xj) => (mass ? mass(xj) : { value: 0, error: 0 }));
  const one = (num: Float64Array, den: Float64Array): OnePassIntegral | null => bracket(x, num, den, radius, F, alpha, noise, rtol);
  const pq = one(a, b);
  if (!pq) return null;
  if (!both) return [pq];
  const qp = one(b, a);
  return qp ? [pq, qp] : null;
}

/** The two laws' atoms merged (sorted), with each law's log weight there (−∞ where it has none). */
function unionOf(P: Mixture, Q: Mixture): { x: Float64Array; a: Float64Array; b: Float64Array } | null {
  const xs: number[] = [],
    as: number[] = [],
    bs: number[] = [];
  let i = 0,
    k = 0;
  while (i < P.x.length || k < Q.x.length) {
    const xp = i < P.x.length ? P.x[i] : Infinity,
      xq = k < Q.x.length ? Q.x[k] : Infinity;
    const x = Math.min(xp, xq);
    xs.push(x);
    as.push(xp === x ? P.logw[i++] : -Infinity);
    bs.push(xq === x ? Q.logw[k++] : -Infinity);
  }
  for (let j = 1; j < xs.length; j++) if (!(xs[j] > xs[j - 1])) return null;
  return { x: Float64Array.from(xs), a: Float64Array.from(as), b: Float64Array.from(bs) };
}

/**
 * log ∫ num^α den^{1−α} bracketed: above by Σ_j A_j F_j, below by Σ_j A_j (1 + η_j)^{1−α}
 * (F_j − P(|N| > r_j))⁺, with A_j = num_j^α den_j^{1−α}; the estimate is the bracket's log-midpoint.
 */
function bracket(
  x: Float64Array,
  num: Float64Array,
  den: Float64Array,
  radius: Float64Array,
  F: readonly Bounded[],
  alpha: number,
  noise: Noise,
  rtol: number,
): OnePassIntegral | null {
  const n = x.length;
  const tail = noise.kernel.logTailAbove!;
  const sums = logPartialSums(den);
  // The sums, and each term's rounding weighted by the term (log of Σ term·8u·magnitude).
  let upper = -Infinity,
    lower = -Infinity,
    rounded = -Infinity;
  for (let j = 0; j < n; j++) {
    if (num[j] === -Infinity) continue;
    if (den[j] === -Infinity) return null; // the data's own divergence is infinite: this bracket says nothing
    const logA = alpha * num[j] + (1 - alpha) * den[j];
    const eta = logShare(x, den, sums, j, radius[j], noise);
    // log(F_j − P(|N| > r_j))⁺ in logs: a mass below e^{−708} (an atom far outside the interval) is no subnormal.
    const least = F[j].value - F[j].error;
    const share = 2 * Math.exp(tail(radius[j], noise.scale) - least);
    const core = share < 1 ? least + Math.log1p(-share) : -Infinity;
    const term = logA + F[j].value + F[j].error;
    upper = logAddExp(upper, term);
    if (core > -Infinity) lower = logAddExp(lower, logA + (1 - alpha) * Math.log1p(Math.exp(eta)) + core);
    // An exponent is within 8u of its magnitude (products, sums, log1p): a relative error of the term.
    const magnitude = Math.abs(alpha * num[j]) + Math.abs((1 - alpha) * den[j]) + Math.abs(F[j].value) + F[j].error + 1;
    rounded = logAddExp(rounded, term + Math.log(8 * EPS * magnitude));
  }
  if (upper === -Infinity) return { value: -Infinity, error: 0, nodes: 0, tailShare: 0 };
  // The ends' roundings may cross where the bracket is tight: its certificate then is the rounding
  // allowance alone, which is not shown to cover them; the other rules run.
  if (lower === -Infinity || lower > upper) return null;
  // The terms' own roundings by their shares (doubled: the lower sum's terms are at most the upper's);
  // each log-sum adds (n + 4)u.
  const rounding = 2 * Math.exp(rounded - upper) + (2 * n + 8) * EPS;
  const error = (upper - lower) / 2 + rounding;
  return error <= rtol / 2 ? { value: (upper + lower) / 2, error, nodes: 0, tailShare: 0 } : null;
}

/**
 * log η_j: an upper bound on Σ_{k≠j} (w_k/w_j)·sup over the core |y − x_j| ≤ r of φ(y − x_k)/φ(y − x_j).
 * The ratio is monotone in y (symmetric log-concave noise), so its sup is at the core's end nearer
 * x_k: φ(d − r)/φ(r) at distance d. The nearest atoms on each side are summed one by one; the rest,
 * further still, are bounded by the next one's ratio times their total weight.
 */
function logShare(x: Float64Array, w: Float64Array, sums: PartialSums, j: number, r: number, noise: Noise): number {
  const { kernel, scale: s } = noise;
  const ratio = (k: number) => kernel.logDensity(Math.abs(x[k] - x[j]) - r, s) - kernel.logDensity(r, s);
  let total = -Infinity;
  for (const dir of [-1, 1]) {
    let k = j + dir;
    for (let m = 0; m < NEAR && k >= 0 && k < x.length; m++, k += dir) total = logAddExp(total, w[k] + ratio(k));
    if (k >= 0 && k < x.length) total = logAddExp(total, (dir < 0 ? sums.upTo[k] : sums.from[k]) + ratio(k));
  }
  // Each term is within 4u of |w_k| + |ratio| (≤ 1 500 where it matters: weights are ≥ e^{−745}).
  return total === -Infinity ? total : total - w[j] + 1e-9 * Math.abs(total - w[j]) + 1e-11;
}

interface PartialSums {
  upTo: Float64Array;
  from: Float64Array;
}

/** log Σ_{i ≤ k} e^{w_i} and log Σ_{i ≥ k} e^{w_i} for every k (rounded up by their (n + 2)u). */
function logPartialSums(w: Float64Array): PartialSums {
  const n = w.length;
  const upTo = new Float64Array(n),
    from = new Float64Array(n);
  const up = (n + 2) * EPS;
  let acc = -Infinity;
  for (let k = 0; k < n; k++) {
    acc = logAddExp(acc, w[k]);
    upTo[k] = acc + up;
  }
  acc = -Infinity;
  for (let k = n - 1; k >= 0; k--) {
    acc = logAddExp(acc, w[k]);
    from[k] = acc + up;
  }
  return { upTo, from };
}
