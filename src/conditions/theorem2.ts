import type { Coupling } from '../coupling/comonotone.js';
import type { ScaleProblem } from '../numerics/smallestScale.js';
import { momentProblem, type Intensity } from './moment.js';

const gaussianIntensity = (alpha: number): Intensity => ({
  at: (sigma) => (alpha * (alpha - 1)) / (2 * sigma * sigma),
  inverse: (lambda) => Math.sqrt((alpha * (alpha - 1)) / (2 * lambda)),
});

/**
 * Theorem 2 (eq. 18/19) of Ding, Yang, Zhang (arXiv 2605.05723), Gaussian noise, α ∈ (1, ∞):
 * the smallest σ with  log Σ_π* m · exp(α(α−1)(x−x')²/(2σ²)) ≤ (α−1)ε;
 * σ² ∈ [αW₂², αW∞²]/(2ε).
 */
export function theorem2Problem(c: Coupling, alpha: number, epsilon: number): ScaleProblem {
  const phi = c.x.map((x, k) => (x - c.y[k]) ** 2);
  return momentProblem(c, phi, gaussianIntensity(alpha), (alpha - 1) * epsilon);
}

/**
 * Remark 2 (Mironov 2017, RDP Cor. 3): point masses Δ apart need σ = Δ·√(α/(2ε)).
 * Returned as the certified form of Theorem 2 for one atom, so rounding never undershoots.
 */
export function remark2Problem(delta: number, alpha: number, epsilon: number): ScaleProblem {
  const one = { x: Float64Array.of(0), y: Float64Array.of(delta), mass: Float64Array.of(1) };
  return theorem2Problem(one, alpha, epsilon);
}

/** Remark 2's closed form, uncertified (for display and tests). */
export const remark2Sigma = (delta: number, alpha: number, epsilon: number): number => Math.abs(delta) * Math.sqrt(alpha / (2 * epsilon));
