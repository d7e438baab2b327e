import type { Coupling } from '../coupling/comonotone.js';
import type { ScaleProblem } from '../numerics/smallestScale.js';
import { absCost, etaPower } from './costs.js';
import { corollary1Problem } from './corollary1.js';
import { supProblem } from './moment.js';

/**
 * Theorem 1 (eq. 7/13) of Ding, Yang, Zhang (arXiv 2605.05723), Laplace noise, α ∈ (1, ∞):
 * the smallest b with  log Σ_π* m · exp(α|x−x'|/b) ≤ (α−1)ε;  root in [αW₁, αW∞]/((α−1)ε).
 * Remark 1 (α = ∞): b = W∞/ε, the Wasserstein mechanism of Song, Wang, Chaudhuri (2017).
 * Laplace is the exponential mechanism with c = |·| and η(θ) = 1/θ, so this is Corollary 1.
 * @example theorem1Problem(comonotoneCoupling(p, q), 2, 1) // solve with smallestFeasibleScale
 */
export function theorem1Problem(c: Coupling, alpha: number, epsilon: number): ScaleProblem {
  return corollary1Problem(c, alpha, epsilon, absCost, etaPower(1));
}

/**
 * Remark 1 (α = ∞) from W∞ alone: Theorem 1's condition at α = ∞, the same problem
 * `theorem1Problem(c, Infinity, ε)` builds from the coupling (Corollary 1's sup of |x − x′| is W∞).
 * @example remark1Problem(2, 1).lower // 2
 */
export function remark1Problem(wInf: number, epsilon: number): ScaleProblem {
  return supProblem(wInf, etaPower(1), epsilon);
}
