import type { Coupling } from '../coupling/comonotone.js';
import { distances } from '../coupling/comonotone.js';
import { logExpectationExp } from '../numerics/logExpectation.js';
import type { ScaleProblem } from '../numerics/smallestScale.js';

/**
 * Proposition 1 (Appendix C) of Ding, Yang, Zhang (arXiv 2605.05723), Laplace, α ∈ (0, 1):
 * D_α ≤ ε if  Σ_π m · exp(−α|x−x'|/b) ≥ e^{(α−1)ε}, for any coupling π; we use π*.
 * (The cost −e^{−α|z|/b} is concave in |z|, so π* need not be the best coupling here; any
 * coupling is valid.)
 *
 * The left side rises from p₀ (mass of π* with x = x') to 1 as b grows. If p₀ ≥ e^{(α−1)ε}
 * the condition holds for every b > 0 and, by lower semicontinuity of D_α, for the data itself:
 * `null` = no noise needed. Otherwise the root lies in
 *   [α·d_min / −log((e^{(α−1)ε} − p₀)/(1 − p₀)),  α·W₁ / ((1−α)ε)]
 * (lower: LHS ≤ p₀ + (1−p₀)e^{−α d_min/b}, d_min the least positive distance; upper: Jensen).
 */
export function proposition1Problem(c: Coupling, alpha: number, epsilon: number): ScaleProblem | null {
  const d = distances(c);
  const target = (alpha - 1) * epsilon; // < 0
  let p0 = 0;
  let dMin = Infinity;
  let w1 = 0;
  for (let k = 0; k < d.length; k++) {
    if (d[k] === 0) p0 += c.mass[k];
    else if (d[k] < dMin) dMin = d[k];
    w1 += c.mass[k] * d[k];
  }
  const need = Math.exp(target);
  if (p0 >= need * (1 + 1e-12)) return null;
  const t = new Float64Array(d.length);
  // −log((e^target − p₀)/(1 − p₀)) = −log1p(expm1(target)/(1 − p₀)): accurate for tiny (α−1)ε.
  const gap = -Math.log1p(Math.expm1(target) / (1 - Math.min(p0, need)));
  return {
    evaluate(b) {
      for (let k = 0; k < d.length; k++) t[k] = (-alpha * d[k]) / b;
      return { ...logExpectationExp(c.mass, t), target, sense: 'ge' };
    },
    lower: (alpha * dMin) / gap,
    upper: (alpha * w1) / -target,
  };
}
