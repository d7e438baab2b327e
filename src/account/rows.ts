import type { Cost, Eta } from '../conditions/costs.js';
import type { Mechanism } from '../calibrate/rules.js';
import { rdpToDpSharp } from '../audit/conversion.js';

/** One release of the (same) value: its noise family and calibrated scale. */
export interface Release {
  mechanism: Mechanism;
  /** Laplace b, Gaussian σ, exponential θ; > 0. */
  scale: number;
  cost?: Cost;
  eta?: Eta;
}

/** How a joint divergence was bounded. */
export type JointMethod = 'exact' | 'exact (Gaussian mean)' | 'coupled' | 'chained' | 'path-coupled' | 'sup-at-atoms' | 'data-processing' | 'unbounded';

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
}

/**
 * The smallest ε′ at `delta` over the finite orders of an account's rows (the sharper conversion,
 * docs/math.md §3), or null without `delta` or a finite row.
 */
export function bestEpsilonDelta(rows: readonly AccountRow[], delta: number | undefined): Accounting['epsilonDelta'] {
  let best: Accounting['epsilonDelta'] = null;
  if (delta === undefined) return best;
  for (const r of rows) {
    if (!(r.alpha > 1) || r.alpha === Infinity || !Number.isFinite(r.divergence)) continue;
    const e = rdpToDpSharp(r.divergence, r.alpha, delta);
    if (!best || e < best.epsilon) best = { epsilon: e, delta, alpha: r.alpha };
  }
  return best;
}
