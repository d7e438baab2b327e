import { EPS } from '../../numerics/float.js';

/**
 * (α − 1)·D_α between two-sided geometric noise at scale b and its shift by k (docs/math.md §21,
 * "The shift's divergence"), α > 1, with its rounding bound. With λ = 1/b, r = e^{−λ}, μ = (2α − 1)λ:
 *
 *   (α − 1)·D_α = (α − 1)kλ + log( (1 + e^{−μk} + (1 − r)·Σ_{z=1}^{k−1} e^{−μz}) / (1 + r) ),
 *
 * summing P(z)^α P(z − k)^{1−α} over z ≤ 0, 0 < z < k and z ≥ k. The bracket lies in [1/2, 1]
 * (its terms are positive), so its log never overflows. A shift off the integers moves the outputs
 * to another lattice: D_α = ∞.
 * @example geometricShiftExponent(2, 0, 1).value // 0
 */
export function geometricShiftExponent(alpha: number, k: number, b: number): { value: number; error: number } {
  if (!Number.isInteger(k)) return { value: Infinity, error: 0 };
  k = Math.abs(k);
  if (k === 0) return { value: 0, error: 0 };
  const lambda = 1 / b;
  const mu = (2 * alpha - 1) * lambda;
  // Σ_{z=1}^{k−1} e^{−μz} = e^{−μ}·(1 − e^{−μ(k−1)})/(1 − e^{−μ}), by expm1 (μ > 0 for α > 1).
  const middle = k === 1 ? 0 : (Math.exp(-mu) * Math.expm1(-(k - 1) * mu)) / Math.expm1(-mu);
  const inside = (1 + Math.exp(-mu * k) - Math.expm1(-lambda) * middle) / (1 + Math.exp(-lambda));
  const linear = (alpha - 1) * k * lambda;
  const value = linear + Math.log(inside);
  // Each factor and exponential is within a few ulps (an exponential's argument error e^{−x}·x·u
  // is below u/e where its term is tiny), the bracket's sum of positive terms within 16u, its log
  // within 16u + u·|log|; the linear term within 4u relative; the sum within u.
  const error = 32 * EPS * (1 + Math.abs(linear) + Math.abs(Math.log(inside)) + Math.abs(value));
  return { value, error };
}
