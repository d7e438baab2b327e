import type { BoundedLogDensity, Mixture } from './mixture.js';
import type { Bounded } from '../numerics/logExpectation.js';

/**
 * A non-negative integrand built from mixture densities and homogeneous of degree 1 in them
 * (so beyond the outer atoms of a Laplace mixture it is ∝ e^{∓y/b}, and the tails are exact).
 */
export interface Integrand {
  mixtures: Mixture[];
  /** The integrand is Π_k m_k^{powers[k]} (Σ powers = 1): the form the Bernstein-ellipse certificate needs. */
  powers: readonly number[];
  /** log of the integrand at node i, from each mixture's log density there. */
  combine(ld: Float64Array[], i: number): number;
  /** Multiplier of |log density| in the rounding error of the combined log. */
  sensitivity: number;
  /**
   * Gaussian tails: `shifted` = Rényi α > 1 (the mass sits near αx + (1−α)x′, bounded via
   * p ≤ φ(y−x₀), q ≥ v₀φ(y−x′₀)); `mass` = integrand ≤ e^{logC}·(a mixture's density), bounded
   * by Mills' ratio from the outer atoms.
   */
  tail: { mode: 'shifted'; muL: number; muR: number; shiftL: number; shiftR: number } | { mode: 'mass'; logC: number };
}

export type PowerIntegrand = Integrand & { powers: readonly number[] };

/** p^α q^{1−α} of mixtures P, Q at noise scale s, with its Gaussian tail model. */
export function renyiIntegrand(P: Mixture, Q: Mixture, alpha: number, s: number): PowerIntegrand {
  const tail: Integrand['tail'] =
    alpha > 1
      ? {
          mode: 'shifted',
          muL: alpha * P.x[0] + (1 - alpha) * Q.x[0],
          muR: alpha * P.x[P.x.length - 1] + (1 - alpha) * Q.x[Q.x.length - 1],
          shiftL: (1 - alpha) * Q.logw[0] + (alpha * (alpha - 1) * (P.x[0] - Q.x[0]) ** 2) / (2 * s * s),
          shiftR: (1 - alpha) * Q.logw[Q.x.length - 1] + (alpha * (alpha - 1) * (P.x[P.x.length - 1] - Q.x[Q.x.length - 1]) ** 2) / (2 * s * s),
        }
      : { mode: 'mass', logC: 0 }; // α ≤ 1: p^α q^{1−α} ≤ αp + (1−α)q
  return {
    mixtures: [P, Q],
    powers: [alpha, 1 - alpha],
    combine: (ld, i) => alpha * ld[0][i] + (1 - alpha) * ld[1][i],
    sensitivity: alpha + Math.abs(1 - alpha),
    tail,
  };
}

/** What the quadrature asks of a family to set up its domain. */
export interface DomainInput {
  /** Outermost atoms of all mixtures. */
  z0: number;
  zN: number;
  /** Integration interval (±∞ for the whole line). */
  LO: number;
  HI: number;
  scale: number;
  /** Nats by which to push Gaussian cut-offs further out (retry when the tail bound matters). */
  extraNats: number;
  /** The log integrand at z0 and zN, with its rounding bound. */
  atEnds(): { h: Float64Array; err: Float64Array };
}

/** The integration domain [lo, hi], extra breakpoints, and the log of the tail terms. */
export interface Domain {
  lo: number;
  hi: number;
  breaks: number[];
  /**
   * Exact tail integral (added to the value), tail bound (added to the error), and its rounding;
   * Gaussian also `logEdge`, the log of the sum over both cut-offs of the bounding density there
   * (it increases towards the cut-off, so a node sum beyond it is at most the bound plus step·edge).
   */
  tails: { logValue: number; logBound: number; logRound: number; logEdge?: number };
}

/**
 * Everything the exact accountant needs of one additive noise family: its density, a fast
 * mixture evaluator with rounding bounds, panel certificates, the tail model and the initial
 * panel layout. One implementation per family (mechanisms/laplace, mechanisms/gaussian), listed
 * in `kernels.ts`.
 */
export interface NoiseKernel {
  /**
   * Outputs on the integers (a discrete family): `renyiOnePass` is then the whole, exact answer (a
   * sum, never a quadrature), and intervals (truncation) are refused.
   */
  readonly lattice?: boolean;
  /** log f(z) of the noise density at scale s. */
  logDensity(z: number, s: number): number;
  /** |d log f(y − x)/dy| at distance `far` from the farthest atom (plain oracle's node-rounding charge). */
  plainLip(far: number, s: number): number;
  /** log p(y) of a mixture at sorted points, fast, with rigorous rounding bounds. */
  mixtureLogDensity(m: Mixture, s: number, ys: Float64Array): BoundedLogDensity;
  /**
   * log of a rigorous bound on |∫_panel f − K21| for every integrand and panel [a_i, b_i]
   * (docs/math.md §8); mixtures shared by the integrands are evaluated once. `enough[i]`, when
   * given, is a log error the caller does not need to beat on panel i (a kernel may stop
   * tightening there; any bound it returns is still rigorous).
   */
  panelErrors(fs: PowerIntegrand[], s: number, a: number[], b: number[], plain: boolean, enough?: Float64Array): Float64Array[];
  /** Integration domain and tails (exact for Laplace, bounded for Gaussian). */
  domain(f: Integrand, d: DomainInput): Domain;
  /** The breakpoints kept as panel ends (Gaussian: thinned, having no kinks). */
  panelEnds(pts: Float64Array<ArrayBuffer>, s: number): Float64Array<ArrayBuffer>;
  /** Width of the first panel at a breakpoint, for an integrand of sharpness `sharp` (≈ α). */
  firstPanel(s: number, sharp: number): number;
  /** Optional width of equal initial panels (gaps up to 64 of them), where certificates usually pass at once. */
  evenPanel?(s: number, sharp: number): number;
  /**
   * Optional one-pass certified log ∫ p^α q^{1−α} over the whole line (and log ∫ q^α p^{1−α} with
   * `both`), each with its error bound; null where it does not apply, and the adaptive quadrature runs.
   * `quick`: fewer nodes for a looser certified error where the rule has such a shortcut (a check, not a search).
   * `interval`: over [LO, HI] only, where the rule declares `onePassIntervals` (a truncated release);
   * `logFloor` then bounds log ∫ from below (over the whole line at α > 1 it is 0).
   */
  renyiOnePass?(
    P: Mixture,
    Q: Mixture,
    alpha: number,
    s: number,
    rtol: number,
    both: boolean,
    quick?: boolean,
    interval?: readonly [number, number],
    logFloor?: number,
  ): OnePassIntegral[] | null;
  /** `renyiOnePass` takes an interval (and α = 1: a mixture's mass in it). */
  readonly onePassIntervals?: boolean;
  /** Optional closed form of log P(Y ∈ [lo, hi]) for Y the mixture at scale s, with its error bound. */
  logMassIn?(m: Mixture, s: number, interval: readonly [number, number]): Bounded;
  /**
   * Optional certified upper bound on log P(N > d) for the noise N at scale s and a distance d ≥ 0
   * computed by one rounded subtraction (its rounding allowed for): how far an atom's noise reaches.
   */
  logTailAbove?(d: number, s: number): number;
}

/** log ∫ f with a certified bound on its error, the density evaluations it took, and the tail bound's share. */
export interface OnePassIntegral {
  value: number;
  error: number;
  nodes: number;
  tailShare: number;
}

/**
 * Additive noise at one scale: the family's name (for messages and upper layers) and its kernel,
 * which the divergences integrate. The kernel travels with the noise, so this layer never looks
 * a family up by name.
 */
export interface Noise {
  readonly family: string;
  readonly scale: number;
  readonly kernel: NoiseKernel;
}
