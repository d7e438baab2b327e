import type { Cost, Eta } from '../conditions/costs.js';
import type { Mechanism } from '../calibrate/rules.js';
import type { EmpiricalAuditResult } from './empirical.js';
import { cryptoSource } from '../sampling/random.js';

/** What to audit: the noise family and scale, the orders, ε, and optionally δ and the number of releases. */
export interface AuditSettings {
  mechanism: Mechanism;
  /** Laplace b, Gaussian σ, exponential θ. */
  scale: number;
  alphas: number[];
  /** Budget to report the slack against. */
  epsilon: number;
  /** δ for the (ε′, δ) conversions. */
  delta: number;
  cost?: Cost;
  eta?: Eta;
}

/** One audited (α, prior, direction): the certified D_α, its slack against ε and the (ε′, δ) conversions. */
export interface AuditRow {
  alpha: number;
  prior: string;
  pair: [string, string];
  /** `from‖to`: the direction of the divergence. */
  direction: [string, string];
  divergence: number;
  error: number;
  /**
   * How `error` is proven: `bernstein-ellipse` (certified quadrature, docs/math.md §8) or
   * `sup-at-atoms` (α = ∞: the supremum is attained at an atom, docs/math.md §4), or
   * `data-processing` (scale 0, or where the quadrature cannot certify: D_α of the data itself,
   * an upper bound on D_α of any release of it), or `coupled-bound` (vector queries: an upper bound
   * by joint convexity over a coupling, docs/math.md §12; `divergence` is then that bound).
   */
  certificate: 'bernstein-ellipse' | 'sup-at-atoms' | 'data-processing' | 'order-monotone' | 'coupled-bound';
  /** ε − (D_α + error): ≥ 0 means the guarantee is certified at this scale. */
  slack: number;
  /** (ε′, δ) by eq. (5) and by the sharper conversion; null for α < 1. */
  epsilonEq5: number | null;
  epsilonSharp: number | null;
  /** Laplace-shaped noise: the ε-Pufferfish level sup log p/q (α = ∞) with its proven error added, rounded up. */
  pufferfishEpsilon: number | null;
}

/** An upper bound on I(Y; S) for a prior of a vector-valued query, and how it was found. */
export interface MiBoundRow {
  prior: string;
  atMost: number;
  how: 'max-entropy' | 'data-processing';
}

/** One prior's MI row: exact on ℝ, an upper bound on ℝ^d. */
export type MiRow = MiAuditRow | MiBoundRow;

/** I(Y; S) of one prior at the audited scale (nats and bits, with its error), and what the ε-Pufferfish level implies. */
export interface MiAuditRow {
  prior: string;
  nats: number;
  bits: number;
  error: number;
  /** Laplace-shaped noise: the MI level the exact ε-PP level implies, ε·tanh(ε/2) (docs/math.md §7). */
  impliedByPufferfish: number | null;
}

/**
 * Draws an atom index with the given masses from the platform CSPRNG (53-bit uniforms; the
 * audit's sampling need not be exact, only independent of the test): the last atom takes what
 * rounding leaves.
 */
export function atomSampler(masses: ArrayLike<number>): () => number {
  const u = new Uint32Array(2);
  return () => {
    cryptoSource.fill(new Uint8Array(u.buffer));
    let r = (u[0] * 2 ** 21 + (u[1] >>> 11)) / 2 ** 53,
      k = 0;
    while (k < masses.length - 1 && r >= masses[k]) {
      r -= masses[k];
      k++;
    }
    return k;
  };
}

/** One pair's sample-based audit: the prior, the pair and the test's result. */
export interface EmpiricalRow {
  prior: string;
  pair: [string, string];
  result: EmpiricalAuditResult;
}
