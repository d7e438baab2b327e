/**
 * Costs and temperatures of the exponential mechanism `p_N(z) ∝ exp(−η(θ)·c(z))` (paper §2.2,
 * Corollary 1). `c` must be a metric-like cost (c ≥ 0, c(z) = c(−z), c(z) ≤ c(a) + c(z−a)) so
 * that the triangle step of the proof holds, and `exp(−η c)` must be integrable on ℝ so that
 * the noise exists. That rules out a capped cost `min(|z|, K)` (not integrable); `√|z|` is a
 * metric (the square root of a metric is one) and integrable.
 */
export interface Cost {
  readonly name: string;
  /** The cost c(z) of an output z away from the true value. */
  apply(z: number): number;
  /** Variance of the noise with density ∝ exp(−η·c(z)). */
  variance(eta: number): number;
}

/** c(z) = |z|: Laplace noise with b = 1/η, variance 2/η². */
export const absCost: Cost = { name: 'abs', apply: Math.abs, variance: (eta) => 2 / eta ** 2 };

/**
 * c(z) = √|z|. With z = u²/η²: ∫e^{−η√|z|}dz = 4/η², ∫z²e^{−η√|z|}dz = 4·Γ(6)/η⁶, so variance 120/η⁴.
 * Heavier tails than Laplace, flatter near 0.
 */
export const sqrtCost: Cost = { name: 'sqrt', apply: (z) => Math.sqrt(Math.abs(z)), variance: (eta) => 120 / eta ** 4 };

/**
 * The exponential mechanism's costs by name: `abs` (c = |z|, Laplace-shaped noise) and `sqrt` (c = √|z|).
 * @example calibrate(builtinScenario('heart'), { mechanism: 'exponential', method: 'theorem', alpha: 2, epsilon: 1, cost: costs.sqrt }).scale
 */
export const costs: Record<string, Cost> = { abs: absCost, sqrt: sqrtCost };

/** η(θ): decreasing in θ (the paper takes η ∝ 1/θ). `inverse` maps η back to θ. */
export interface Eta {
  readonly name: string;
  /** k of η(θ) = θ^(−k), when it is that family (lets worker threads rebuild it). */
  readonly power?: number;
  /** η at the parameter θ. */
  at(theta: number): number;
  /** θ with η(θ) = `eta`. */
  inverse(eta: number): number;
}

/** η(θ) = θ^(−k), k > 0; k = 1 is the paper's default and makes c = |·| the Laplace mechanism. */
export function etaPower(k = 1): Eta {
  if (!(k > 0) || !Number.isFinite(k)) throw new RangeError(`etaPower: k must be positive, got ${k}`);
  return {
    name: k === 1 ? '1/θ' : `θ^-${k}`,
    power: k,
    at: (theta) => theta ** -k,
    inverse: (eta) => eta ** (-1 / k),
  };
}
