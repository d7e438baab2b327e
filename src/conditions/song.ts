import type { ScaleProblem } from '../numerics/smallestScale.js';
import { supProblem, type Intensity } from './moment.js';

/**
 * The W∞ (Wasserstein) mechanism of Song, Wang, Chaudhuri (SIGMOD 2017): b = W∞/ε gives
 * ε-Pufferfish privacy, hence (α, ε)-RPP for every α since D_α ≤ D∞. For the exponential
 * mechanism the same argument gives θ = η⁻¹(ε / sup_{π*} c) (Corollary 1 at α = ∞).
 * `eta` is η(θ) (for Laplace, b ↦ 1/b).
 */
export function songProblem(maxCost: number, epsilon: number, eta: Intensity): ScaleProblem {
  return supProblem(maxCost, eta, epsilon);
}
