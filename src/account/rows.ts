import type { Cost, Eta } from '../conditions/costs.js';
import type { Mechanism } from '../calibrate/rules.js';
import { rdpToDpSharp } from '../audit/conversion.js';
import { massErrorCharge } from '../distribution/scenario.js';
import { budgetBelowCharge, InputError, noRelease } from '../errors.js';
import { mechanismDef } from '../mechanisms/registry.js';
import { checkSetting } from '../settings.js';
import { ARRAY, checkShape, OBJECT } from '../shapes.js';
import type { ScaleProblem } from '../numerics/smallestScale.js';

/** One release of the (same) value: its noise family and calibrated scale. */
export interface Release {
  mechanism: Mechanism;
  /** Laplace b, Gaussian σ, exponential θ; > 0. */
  scale: number;
  cost?: Cost;
  eta?: Eta;
}

/** How a joint divergence was bounded. */
export type JointMethod =
  | 'exact'
  | 'exact (Gaussian mean)'
  | 'coupled'
  | 'chained'
  | 'path-coupled'
  | 'boundary-coupled'
  | 'group-dp'
  | 'sup-at-atoms'
  | 'data-processing'
  | 'unbounded';

/** One order of an account: the certified joint D_α, how it was bounded, and the naive sum beside it. */
export interface AccountRow {
  alpha: number;
  /** Certified upper bound on the joint D_α over every prior, pair and required direction. */
  divergence: number;
  method: JointMethod;
  binding: { prior: string; pair: [string, string] } | null;
  /** Σ of each release's own divergence, as if Pufferfish budgets added up (they do not). */
  naiveSum: number;
  /**
   * true: the joint level is known (exact accountant) and exceeds the naive sum — adding budgets
   * would have understated the leak; false: it does not; null: only an upper bound is known here.
   */
  understated: boolean | null;
}

/** The joint level of several releases of one value: one row per order, and the (ε′, δ) they imply. */
export interface Accounting {
  releases: number;
  rows: AccountRow[];
  /** With `delta`: the smallest ε′ over the α's by the sharper conversion, and its α. */
  epsilonDelta: { epsilon: number; delta: number; alpha: number } | null;
  /** What the releases are of, where not repeats of one value (a series' windows, in order). */
  releasesOf?: string;
  /** Why a bound the accountant would use did not apply, and what answered instead. */
  note?: string;
}

/**
 * The smallest ε′ at `delta` over an account's rows of order α > 1 (the sharper conversion,
 * docs/math.md §3; at α = ∞, and for group DP's level at any order, the level itself, which is
 * (ε, 0) and so (ε, δ) for every δ), or null
 * without `delta` or a finite row.
 */
export function bestEpsilonDelta(rows: readonly AccountRow[], delta: number | undefined): Accounting['epsilonDelta'] {
  let best: Accounting['epsilonDelta'] = null;
  if (delta === undefined) return best;
  for (const r of rows) {
    // Group DP's level is a D∞ level at every order: an ε itself, not converted as a Rényi bound.
    const pure = r.alpha === Infinity || r.method === 'group-dp';
    if (!(pure || r.alpha > 1) || !Number.isFinite(r.divergence)) continue;
    const e = pure ? r.divergence : rdpToDpSharp(r.divergence, r.alpha, delta);
    if (!best || e < best.epsilon) best = { epsilon: e, delta, alpha: pure ? Infinity : r.alpha };
  }
  return best;
}

/** One unit's share of an account at one order (a pair, or one direction of it): its certified bound and how, and the naive sum of the releases' own levels. */
export interface AccountShare {
  value: number;
  /** A certified lower end of the joint D_α where it is known exactly (then whether the naive sum understates it is decided). */
  lower: number | null;
  method: JointMethod;
  naive: number;
}

/**
 * An account's rows from every unit's shares (`shares[j][k]`: unit j at order k), written once for
 * every kind of law: per order the largest bound (the first largest binds), the laws' mass error
 * added (docs/math.md §13), the naive sum beside it, and with `delta` the best (ε′, δ).
 * @example accountOf([{ prior: 'p', pair: ['a', 'b'] }], [[{ value: 0.5, lower: 0.4, method: 'exact', naive: 0.3 }]], [2], { releases: 2 }).rows[0].understated // true
 */
export function accountOf(
  units: readonly { prior: string; pair: readonly [string, string] }[],
  shares: readonly (readonly AccountShare[])[],
  alphas: readonly number[],
  o: { releases: number; delta?: number; massError?: number },
): Accounting {
  const rows = alphas.map((alpha, k): AccountRow => {
    let best: { share: AccountShare; j: number } | null = null;
    let naive = 0;
    for (const [j, unit] of shares.entries()) {
      if (!best || unit[k].value > best.share.value) best = { share: unit[k], j };
      naive = Math.max(naive, unit[k].naive);
    }
    const { share: b, j } = best!;
    return {
      alpha,
      divergence: b.value + massErrorCharge(o.massError ?? 0, alpha),
      method: b.method,
      binding: b.value > 0 ? { prior: units[j].prior, pair: [units[j].pair[0], units[j].pair[1]] } : null,
      naiveSum: naive,
      understated: b.lower === null ? null : naive < b.lower,
    };
  });
  return { releases: o.releases, rows, epsilonDelta: bestEpsilonDelta(rows, o.delta) };
}

/**
 * One unit of the next-release search (a pair, or one direction of it), as a kind of law supplies it
 * to the one search (`nextReleaseScale`): its label, the data's own divergence and the past releases'
 * joint bound (each error included), and the condition on the next release's scale.
 */
export interface NextUnit {
  label: { prior: string; pair: [string, string] };
  /** The unit in a refusal's words ("prior 'p', pair a vs b"), and what the refusal adds (" under this bound"). */
  where: string;
  tail?: string;
  /** D_α of the data itself: at most ε, and no release of it can exceed the budget (data processing). */
  data(): number;
  /** The past releases' certified joint bound (null: none): at ε or above, no further release fits. */
  past(): number | null;
  /** The past releases with the next one at a trial scale, within ε: non-increasing in the scale. */
  problem(): ScaleProblem;
  /** How the joint bound at the scale found was bounded. */
  method(scale: number): JointMethod;
}

/**
 * The budget left for the releases once the laws' mass error is charged (computed laws, a chain's:
 * docs/math.md §13); InputError naming ε where the charge takes it all.
 */
export function budgetLeft(massError: number | undefined, alpha: number, epsilon: number): number {
  const charge = massErrorCharge(massError ?? 0, alpha);
  if (!(epsilon > charge)) throw budgetBelowCharge(charge);
  return epsilon - charge;
}

/**
 * What every account checks, whatever its kind of law: at least one release (a series' windows
 * may have none out yet: `none`), δ, and no finite order a release's family cannot give (past
 * 1e150: refused by its reason, never a NaN row).
 */
export function checkAccount(releases: readonly Release[], opts: { alphas: readonly number[]; delta?: number }, none = false): void {
  checkShape(ARRAY, releases, 'releases');
  checkShape(OBJECT, opts, 'options');
  if (releases.length === 0 && !none) throw noRelease();
  if (opts.delta !== undefined) checkSetting('delta', opts.delta);
  for (const alpha of opts.alphas)
    for (const r of releases) {
      const outside = alpha > 1 && alpha < Infinity ? mechanismDef(r.mechanism).alphaRange(alpha) : null;
      if (outside) throw new InputError(outside, 'alpha');
    }
}
