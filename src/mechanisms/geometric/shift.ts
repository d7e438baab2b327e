import { EPS } from '../../numerics/float.js';

/** Shifts up to which the bracket's departure from 1 is also summed term by term (O(k) exponentials). */
const SUMMED_SHIFT = 4096;

/**
 * (α − 1)·D_α between two-sided geometric noise at scale b and its shift by k (docs/math.md §21,
 * "The shift's divergence"), α > 1, with its rounding bound. With λ = 1/b, r = e^{−λ}, μ = (2α − 1)λ:
 *
 *   (α − 1)·D_α = (α − 1)kλ + log( (1 + e^{−μk} + (1 − r)·Σ_{z=1}^{k−1} e^{−μz}) / (1 + r) ),
 *
 * summing P(z)^α P(z − k)^{1−α} over z ≤ 0, 0 < z < k and z ≥ k. The bracket lies in [1/2, 1]
 * (its terms are positive), so its log never overflows. Near α = 1 the two terms cancel and the
 * bracket's log is read from its departure from 1, a sum of terms of one sign (`departure`). A
 * shift off the integers moves the outputs to another lattice: D_α = ∞.
 * @example geometricShiftExponent(2, 0, 1).value // 0
 */
export function geometricShiftExponent(alpha: number, k: number, b: number): { value: number; error: number } {
  if (!Number.isInteger(k)) return { value: Infinity, error: 0 };
  k = Math.abs(k);
  if (k === 0) return { value: 0, error: 0 };
  const closed = closedForm(alpha, k, b);
  // The closed form's error has a floor of a few ulps: where that is not small beside the value, sum.
  if (closed.error <= 1e-9 * Math.abs(closed.value) || k > SUMMED_SHIFT) return closed;
  const summed = departure(alpha, k, b);
  return summed.error < closed.error ? summed : closed;
}

function closedForm(alpha: number, k: number, b: number): { value: number; error: number } {
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

/**
 * The same value with the bracket written as 1 + g: the numerator at μ less its value r at μ = λ
 * (α = 1) is Σ_z e^{−λz}·(e^{−2(α−1)λz} − 1) over z = k and, weighted by 1 − r, z = 1 … k − 1 —
 * every term ≤ 0, each by expm1, so g carries a relative error of a few ulps per term and log1p(g)
 * an error relative to itself, with no floor.
 */
function departure(alpha: number, k: number, b: number): { value: number; error: number } {
  const lambda = 1 / b;
  const twoDelta = 2 * (alpha - 1);
  let middle = 0;
  for (let z = 1; z < k; z++) middle += Math.exp(-lambda * z) * Math.expm1(-twoDelta * lambda * z);
  const numerator = Math.exp(-lambda * k) * Math.expm1(-twoDelta * lambda * k) - Math.expm1(-lambda) * middle;
  const g = numerator / (1 + Math.exp(-lambda));
  const log = Math.log1p(g);
  const linear = (alpha - 1) * k * lambda;
  const value = linear + log;
  // Each term within (6 + 3λz)u relative (its exponentials' arguments rounded, a product), the sum
  // of terms of one sign within k·u more, the weights and quotient 4u: g within rel·|g|; log1p's
  // error is at most 2·rel·|g| + u|log| ≤ (2·rel + u)·|log| (|g| ≤ |log1p(g)| for g ∈ (−1/2, 0]).
  const rel = (12 + k + 3 * lambda * k) * EPS;
  const error = 2 * (4 * EPS * Math.abs(linear) + (2 * rel + EPS) * Math.abs(log) + EPS * Math.abs(value));
  return { value, error };
}
