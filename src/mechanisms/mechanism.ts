import { nextUp } from '../numerics/float.js';
import type { PairCoupling } from '../coupling/pairs.js';
import type { Cost, Eta } from '../conditions/costs.js';
import type { Noise, OnePassIntegral } from '../divergence/kernel.js';
import type { Mixture2 } from '../divergence/mixture.js';
import type { ScaleProblem } from '../numerics/smallestScale.js';
import type { ExactNoise } from '../sampling/samplers.js';
import type { GaussianMixture } from '../distribution/mixture.js';
import type { ComponentCoupling } from '../gaussianPriors/gaussianScenario.js';

/**
 * What a noise family must provide to be calibrated, accounted, sampled and shown. One module
 * per family (`laplace/`, `gaussian/`, `exponential/`) implements it, and `registry.ts` lists
 * them: adding a family is one folder and one registry line, and the compiler names every
 * field (every rule of the table) still missing.
 */

/** Single calibration methods; `best` (the default) picks the smallest of those that apply. */
export const SINGLE_METHODS = ['theorem', 'pierquin', 'wasserstein-inf', 'coupled', 'exact'] as const;
/** One calibration method: a theorem of the paper, a baseline, the coupled bound or the exact accountant. */
export type SingleMethod = (typeof SINGLE_METHODS)[number];
/**
 * The calibration methods: each single method, and `best` (the smallest certified scale among those that apply).
 * @example METHODS.includes('best') // true
 */
export const METHODS = [...SINGLE_METHODS, 'best'] as const;
/** A calibration method by name, or `best`. */
export type Method = (typeof METHODS)[number];

/** Short names for tables and chart legends. */
export const METHOD_LABEL: Record<SingleMethod, string> = {
  theorem: 'Theorem 1/2',
  pierquin: 'Cor. 3.1 (Pierquin)',
  'wasserstein-inf': 'W∞ (Song)',
  coupled: 'coupled',
  exact: 'exact',
};

/** A (prior, pair) needs no noise, and why: the one representation of "no noise needed". */
export interface NoNoise {
  zero: string;
}

/** A rule, method or guarantee that does not apply, and why (shown to the user as is). */
export interface NotApplicable {
  notApplicable: string;
}

export const notApplicable = (why: string): NotApplicable => ({ notApplicable: why });
export const isNotApplicable = (x: object): x is NotApplicable => 'notApplicable' in x;

/** The condition a method imposes on one (prior, pair), as a certified scale problem. */
export interface CalibrationRule {
  /** The theorem or equation applied. */
  rule: string;
  /** The condition, as printed. */
  condition: string;
  problem(pc: PairCoupling, ordered: boolean): ScaleProblem | NoNoise;
  /**
   * A certified check that the pair's condition holds at `scale`, cheaper than building `problem`
   * (no search bracket): lets a calibration skip the search of a pair another pair already outweighs.
   */
  holdsAt?(pc: PairCoupling, ordered: boolean, scale: number): boolean;
  /** Why the pair needs no noise at all, found cheaply (the data itself meets ε), else null: as `problem` would say. */
  noNoise?(pc: PairCoupling, ordered: boolean): string | null;
}

/** Family-specific options (the exponential mechanism's cost and η); defaults filled in. */
export interface NoiseOptions {
  cost: Cost;
  eta: Eta;
}

/** The additive noise at a mechanism scale, as the exact accountant sees it. */
export type Accountant = (scale: number) => Noise;

/** What a rule of the table sees: the Rényi order and budget, the family's options, and its accountant. */
export interface RuleContext extends NoiseOptions {
  alpha: number;
  epsilon: number;
  /** The exact accountant of this family with these options, or why there is none. */
  accountant: Accountant | NotApplicable;
  /** The other methods' rules that apply (what `exact` searches below). */
  bounds(): CalibrationRule[];
  /**
   * Releases of the same value, accounted jointly (docs/math.md §9). Families with a
   * `sufficientScale` always see 1 (the driver maps the scale); the others must handle N or refuse.
   */
  releases: number;
}

export type RuleEntry = (ctx: RuleContext) => CalibrationRule | NotApplicable;

/** Every family declares every method: a rule or a stated reason it does not apply. */
export type RuleTable = { readonly [M in SingleMethod]: RuleEntry };

/** A (prior, pair) of Gaussian-mixture conditionals with their component coupling (docs/math.md §11). */
export interface MixturePair {
  prior: string;
  pair: [string, string];
  P: GaussianMixture;
  Q: GaussianMixture;
  c: ComponentCoupling;
}

/** A method's condition on a pair of Gaussian-mixture conditionals, as a certified scale problem. */
export interface MixtureRule {
  rule: string;
  condition: string;
  /** Why `best` leaves this method out for the pair (found without building its problem), or null. */
  leftOut?(pair: MixturePair): string | null;
  problem(pair: MixturePair, ordered: boolean): ScaleProblem | NoNoise | NotApplicable;
}

/**
 * A family's rules for Gaussian and mixture priors (closed forms of its noise on Gaussian
 * components, docs/math.md §11): every method declared, a rule or why it does not apply.
 */
export interface MixtureRules {
  /** The methods that apply, in `best`'s order of preference on ties. */
  readonly order: readonly SingleMethod[];
  readonly rules: { readonly [M in SingleMethod]: (ctx: { alpha: number; epsilon: number }) => MixtureRule | NotApplicable };
}

/** Moments of X under a prior, for the mutual-information bounds. */
export interface PriorMoments {
  variance: number;
  /** Mean absolute deviation E|X − EX|. */
  mad: number;
}

/** A closed-form mutual-information bound I(Y;S) ≤ value(s) (docs/math.md §7). */
export interface MiBound {
  rule: string;
  value(m: PriorMoments, scale: number): number;
  /** The scale at which value = ε (certified by the caller). */
  closed(m: PriorMoments, epsilon: number): number;
}

/** Everything the toolkit knows of one noise family: its parameter, variance, error bars, sampler, exact accountant and the calibration rule of each method. */
export interface MechanismDef {
  /** Registry key, as typed on the command line. */
  readonly name: string;
  /** Display name ("Laplace"). */
  readonly title: string;
  /** Which parameter `scale` is, and how it prints. */
  readonly parameter: 'b' | 'sigma' | 'theta';
  readonly symbol: string;
  /** The paper's own bound, as labelled in figures ("Theorem 1"). */
  readonly theoremLabel: string;
  /** Variance of the noise as a formula in the parameter ("2b²"). */
  readonly varianceFormula: string;
  /**
   * How several releases compose in the joint accountant (docs/math.md §9): `rate` (Laplace-shaped,
   * R_α per release), `precision` (Gaussian: several are one at the precision-weighted σ), `ratio`
   * (a bounded density ratio e^{η·c}), `lattice` (integer outputs, each bounded by its D∞ rate 1/b).
   */
  readonly composes: 'rate' | 'precision' | 'ratio' | 'lattice';
  /**
   * Set for noise b·Z with one fixed law Z on ℝ (Laplace, Gaussian): every divergence between shifts
   * Δ apart at scale b is that of shifts Δ/g apart at scale b/g, so values sharing a factor g may be
   * bounded divided by it (docs/math.md §19). Integer noise on ℤ is not: its lattice does not scale.
   */
  readonly scaleFamily?: true;
  /** Why this family cannot give Rényi order α at all, or null when it can. */
  alphaRange(alpha: number): string | null;
  /** Variance of the noise at `scale`. */
  variance(scale: number, o: NoiseOptions): number;
  /** x with P(|noise| ≤ x) ≥ `coverage` (0 < coverage < 1), rounded up: the noise in the data's units. */
  halfWidth(scale: number, coverage: number, o: NoiseOptions): number;
  /** The exact accountant's view of the noise, or why there is none for these options. */
  accountant(o: NoiseOptions): Accountant | NotApplicable;
  /** The exact sampler at a calibrated scale; derived parameters rounded towards more noise. */
  sampler(scale: number, o: NoiseOptions): ExactNoise;
  /**
   * When N releases of the same value carry exactly the information of one release at a smaller
   * scale (Gaussian: the mean, σ/√N), that scale rounded down, and its inverse for brackets.
   * Absent: the family's rules handle `releases` themselves.
   */
  readonly sufficientScale?: {
    /** The one-release scale equivalent to `releases` releases at `scale`. */
    toSingle(scale: number, releases: number): number;
    /** The per-release scale whose `releases` releases equal one release at `scale`. */
    fromSingle(scale: number, releases: number): number;
  };
  /**
   * An upper bound on D_α between this noise around two points Δ apart (the divergence a
   * differential-privacy calibration with sensitivity Δ controls), with its rounding error:
   * what a contaminating adversary can add (docs/math.md §10). ∞ where the family has none.
   */
  pointDivergence(delta: number, scale: number, alpha: number, o: NoiseOptions): { value: number; error: number };
  /** Options worth printing with a result (exponential: cost and η). */
  describe(o: NoiseOptions): { cost?: string; eta?: string };
  /** The family options this noise reads (others given are refused, never ignored). */
  readonly options: readonly (keyof NoiseOptions)[];
  readonly rules: RuleTable;
  /** Its rules on Gaussian and mixture priors, where its divergences between Gaussian components have closed forms. */
  readonly mixture?: MixtureRules;
  /** The mutual-information guarantee's closed-form bound, or why the family has none. */
  readonly mi: MiBound | NotApplicable;
  /** Independent noise on each coordinate of a vector-valued query (docs/math.md §12), or why the family has none. */
  readonly product: ProductNoise | NotApplicable;
  /** Set when this family's coupled bound equals its Theorem (their curves coincide): the remark to show beside a plot. */
  readonly coupledIsTheorem?: string;
}

/** Finite orders beyond this are refused by families with a D∞ level: D_α there equals D∞ within rounding, and (α − 1)·ε leaves the doubles. */
const FINITE_ORDER_MAX = 1e150;

/**
 * A family whose α = ∞ calibration exists refuses finite orders past 1e150 and points to α = ∞,
 * which covers every order (D_α is non-decreasing in α).
 * @example beyondFiniteOrders('Laplace', 1e200) // 'Laplace calibration covers finite α up to 1e150 …'
 */
export function beyondFiniteOrders(title: string, alpha: number): string | null {
  return alpha > FINITE_ORDER_MAX && alpha < Infinity
    ? `${title} calibration covers finite α up to 1e150 (beyond, (α − 1)·ε leaves the range of a double); α = inf covers every order (D_α ≤ D∞)`
    : null;
}

/**
 * Product noise on ℝ^d: independent noise of this family on every coordinate. Its shift divergence
 * is a function of one norm of the displacement, and its terms add over coordinates and releases.
 */
export interface ProductNoise {
  /** The norm of the displacement the shift divergence depends on: ℓ₁ (Laplace, through D∞ and R_α), ℓ₂ (Gaussian). */
  readonly norm: 'l1' | 'l2';
  /**
   * (α−1)·D_α between one release's product noise and its shift by t(c) (in units of the scale) on
   * the coordinates `coords`, with its rounding error: what the coupled bound sums. A family on the
   * integers reads `lattice(c)`, the shift itself and the coordinate's noise scale (its divergence
   * depends on both, not on their ratio alone); without it, it certifies nothing (∞).
   */
  exponent(
    alpha: number,
    t: (c: number) => number,
    coords: readonly number[],
    lattice?: (c: number) => readonly [shift: number, scale: number],
  ): { value: number; error: number };
  /** One coordinate's term of `exponent` in plain floating point: a transport cost, not a certificate. */
  cost(alpha: number, t: number): number;
  /** One coordinate's term of the coupled bound, as its rule names it (the bound sums them over coordinates: docs/math.md §12). */
  readonly term: string;
  /** A scale at which every coupled pair within `dist` in the norm meets ε through the summed exponent, N releases: the coupled search's upper end. */
  feasibleScale(alpha: number, releases: number, dist: number, epsilon: number): number;
  /** The log-moment exponent of the family's Theorem (1 or 2) for a coupled pair at distance `dist` in the norm, scale `s`, N releases. */
  normExponent(alpha: number, releases: number, dist: number, s: number): number;
  /** D∞ per unit of displacement in the norm at scale `s` (absent: D∞ is infinite). */
  dInfRate?(s: number): number;
  /**
   * The family's exact accountant on ℝ² (docs/math.md §12, "Exact in two dimensions"): log ∫ p^α q^{1−α}
   * and, with `both`, log ∫ q^α p^{1−α}, each with its certified error, for two laws on ℝ² under
   * independent noise of scales (s₁, s₂) per coordinate; null where its rule declines. Absent: the
   * coupled bound stands alone.
   */
  exact2d?(P: Mixture2, Q: Mixture2, alpha: number, scales: readonly [number, number], both: boolean): OnePassIntegral[] | null;
}

/**
 * The orders at which the exact accountant on ℝ² is used (1, 64]: its nodes grow with α in each
 * coordinate (the certificate's |d log f/dy| ≤ (2α − 1)/b), so its work with about α² — seconds per
 * evaluation at α = 64 on a table's two columns, a quarter of a minute at 257. Above, the bounds stand.
 * @example planeOrder(64) // true
 */
export const planeOrder = (alpha: number): boolean => alpha > 1 && alpha <= 64;

/**
 * Whether the exact accountant on ℝ² takes laws with `cells` distinct value pairs at order α: its
 * slices' and panels' nodes each grow with S = 2α − 1 where atoms are sparse, so its work is bounded
 * by cells·S², kept within 2.7·10⁶ (300 000 pairs at α = 2; a second or so per evaluation).
 * @example planeWithin(13_832, 2) // true
 */
export const planeWithin = (cells: number, alpha: number): boolean => planeOrder(alpha) && cells * (2 * alpha - 1) ** 2 <= 2.7e6;

/**
 * The noise scale of a coordinate of weight w under a common scale: w·scale rounded up (never less
 * noise than the weight asks), the scale itself at weight 1. The release draws at it, and a family
 * whose divergence depends on the scale itself (the geometric's) is certified at it.
 * @example coordinateScale(2, 1) // 2
 */
export function coordinateScale(scale: number, weight: number): number {
  return weight === 1 ? scale : nextUp(weight * scale);
}
