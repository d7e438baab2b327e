import { EPS } from '../numerics/float.js';
import { logExpectationExp2 } from '../numerics/logExpectation.js';
import type { ScaleProblem } from '../numerics/smallestScale.js';
import { supProblem, powerIntensity } from './moment.js';
import { remark2Problem } from './theorem2.js';

/**
 * Mironov's Laplace RDP (RDP paper, Prop. 6): D_α(Lap(0,b) ‖ Lap(Δ,b)) = R_α(Δ/b) with
 *   (α−1)·R_α(t) = log( α/(2α−1)·e^{(α−1)t} + (α−1)/(2α−1)·e^{−αt} ),   α > 1.
 * Returns (α−1)·R_α(t) with its error bound (the weights sum to 1, so `logExpectationExp` applies).
 */
export function scaledLaplaceRdp(alpha: number, t: number) {
  const r = logExpectationExp2(alpha / (2 * alpha - 1), (alpha - 1) / (2 * alpha - 1), (alpha - 1) * t, -alpha * t);
  return { value: r.value, error: r.error + 8 * EPS * Math.abs(r.value) };
}

/** R_α(t) itself (α > 1; R_∞(t) = t). */
export function laplaceRdp(alpha: number, t: number): number {
  return alpha === Infinity ? t : scaledLaplaceRdp(alpha, t).value / (alpha - 1);
}

/**
 * Pierquin, Bellet, Tommasi et al. (ICML 2024) Cor. 3.1, Laplace: the smallest b with
 * R_α(W∞/b) ≤ ε (Mironov's Laplace RDP with the sensitivity replaced by W∞).
 * Bracket: R_α(t) ≤ t (D_α ≤ D∞) gives b ≤ W∞/ε; dropping the e^{−αt} term gives
 * R_α(t) ≥ t + log(α/(2α−1))/(α−1), so b ≥ W∞ / (ε + log((2α−1)/α)/(α−1)).
 */
export function pierquinLaplaceProblem(wInf: number, alpha: number, epsilon: number): ScaleProblem {
  if (alpha === Infinity) return supProblem(wInf, powerIntensity(1, 1), epsilon);
  // 32 ulps inside (α−1)ε: the account of the release (the coupled bound, whose outer
  // expectation adds a few ulps of error) then reports a level ≤ ε.
  const target = (alpha - 1) * epsilon * (1 - 32 * EPS);
  return {
    evaluate: (b) => ({ ...scaledLaplaceRdp(alpha, wInf / b), target, sense: 'le' }),
    lower: wInf / (epsilon + Math.log((2 * alpha - 1) / alpha) / (alpha - 1)),
    upper: wInf / epsilon,
  };
}

/** Pierquin et al. Cor. 3.1, Gaussian: σ = W∞·√(α/(2ε)) (Remark 2 at Δ = W∞), α ∈ (1, ∞). */
export function pierquinGaussianProblem(wInf: number, alpha: number, epsilon: number): ScaleProblem {
  return remark2Problem(wInf, alpha, epsilon);
}
