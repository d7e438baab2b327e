import { maxOf } from '../numerics/float.js';
import type { Coupling } from '../coupling/comonotone.js';
import type { Cost, Eta } from './costs.js';
import { momentProblem, supProblem, type Intensity } from './moment.js';
import type { ScaleProblem } from '../numerics/smallestScale.js';

/**
 * Corollary 1 (eq. 16/17) of Ding, Yang, Zhang (arXiv 2605.05723), exponential mechanism
 * `p_N(z) ∝ exp(−η(θ)c(z))`: the smallest θ with
 *     log Σ_π* m · exp(α·η(θ)·c(x−x')) ≤ (α−1)ε,         α ∈ (1, ∞);
 *     θ = η⁻¹(ε / sup_{π*} c(x−x')),                        α = ∞ (Kantorovich–exponential mechanism).
 * Proof idea: triangle inequality of c, then Hölder with exponents α and α/(α−1).
 */
export function corollary1Problem(c: Coupling, alpha: number, epsilon: number, cost: Cost, eta: Eta): ScaleProblem {
  const phi = c.x.map((x, k) => cost.apply(x - c.y[k]));
  if (alpha === Infinity) return supProblem(maxOf(phi), eta, epsilon);
  const intensity: Intensity = { at: (theta) => alpha * eta.at(theta), inverse: (l) => eta.inverse(l / alpha) };
  return momentProblem(c, phi, intensity, (alpha - 1) * epsilon);
}
