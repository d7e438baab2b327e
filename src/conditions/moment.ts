import type { Coupling } from '../coupling/comonotone.js';
import { EPS } from '../numerics/float.js';
import { logExpectationExp } from '../numerics/logExpectation.js';
import type { ScaleProblem } from '../numerics/smallestScale.js';

/**
 * The form shared by Theorem 1 (eq. 7/13), Corollary 1 (eq. 16) and Theorem 2 (eq. 18):
 *
 *     log Σ_π m_k · exp(λ(s)·φ_k) ≤ target = (α−1)ε,
 *
 * with φ_k ≥ 0 a per-atom cost and λ(s) > 0 decreasing in the scale s (so is the left side).
 * Bracket (the paper's): Jensen gives LHS ≥ λ(s)·E_π φ, the max gives LHS ≤ λ(s)·max φ, hence
 * s* ∈ [λ⁻¹(target / E φ), λ⁻¹(target / max φ)].
 */
export interface Intensity {
  at(s: number): number;
  inverse(lambda: number): number;
}

export function momentProblem(c: Coupling, phi: Float64Array, intensity: Intensity, target: number): ScaleProblem {
  let mean = 0;
  let max = 0;
  for (let k = 0; k < phi.length; k++) {
    mean += c.mass[k] * phi[k];
    if (phi[k] > max) max = phi[k];
  }
  const t = new Float64Array(phi.length);
  return {
    evaluate(s) {
      const lambda = intensity.at(s);
      for (let k = 0; k < phi.length; k++) t[k] = lambda * phi[k];
      return { ...logExpectationExp(c.mass, t), target, sense: 'le' };
    },
    lower: intensity.inverse(target / mean),
    upper: intensity.inverse(target / max),
  };
}

/**
 * The α = ∞ form (Remark 1, Corollary 1 at α = ∞, Song et al.): λ(s)·max φ ≤ ε, i.e.
 * s = λ⁻¹(ε / max φ), certified like every other condition (rounding of λ⁻¹ cannot undershoot).
 */
export function supProblem(maxPhi: number, intensity: Intensity, epsilon: number): ScaleProblem {
  const s = intensity.inverse(epsilon / maxPhi);
  return {
    evaluate(scale) {
      const value = intensity.at(scale) * maxPhi;
      return { value, error: 4 * EPS * value, target: epsilon, sense: 'le' };
    },
    lower: s,
    upper: s,
  };
}

/** λ(s) = k / s^q and its inverse: the intensities of every closed-form mechanism here. */
export function powerIntensity(k: number, q: number): Intensity {
  return { at: (s) => k / s ** q, inverse: (lambda) => (k / lambda) ** (1 / q) };
}
