import type { Discrete } from '../distribution/discrete.js';
import { priorPairs, type Scenario } from '../distribution/scenario.js';
import { comonotoneCoupling, type Coupling } from './comonotone.js';
import { wInf } from './wasserstein.js';
import { comonotoneMovesUp, comonotoneWInf, logMomentUp, type Moves } from './wInfWalk.js';

/** One (prior, pair): the two conditionals P_X|s_i, P_X|s_j and their π* coupling. */
export interface PairCoupling {
  readonly prior: string;
  readonly pair: readonly [string, string];
  readonly p: Discrete;
  readonly q: Discrete;
  readonly coupling: Coupling;
  /**
   * W∞ of the coupling: read off it once built, else by the walk alone (`comonotoneWInf`), the same
   * number; for a scenario with `tieTolerance`, the W∞ of laws within that relative tolerance.
   */
  readonly wInf: number;
  /** W∞ of π* itself (no tie tolerance): `wInf` where the scenario has none; read off the coupling once built, else by the walk. */
  readonly exactWInf: number;
  /**
   * Where `coupling` is π* of (p, q): an upper bound on log E_π* e^{g(|x − x′|)} (g ≥ 0, non-decreasing)
   * from the masses π* moves by each distance, found by the walk once (`comonotoneMovesUp`), without
   * building π*: a rule's quick sufficient check.
   */
  readonly logExpectationUp?: (g: (d: number) => number) => number;
}

/**
 * One (prior, pair) with its π* coupling built on first use: the exact accountant and the
 * data-processing checks never need it, and on 10⁵-atom laws it costs about as much as a
 * Theorem 1 calibration.
 */
export function pairCoupling(prior: string, pair: readonly [string, string], p: Discrete, q: Discrete, tie = 0): PairCoupling {
  let coupling: Coupling | undefined;
  let w: number | undefined;
  let exact: number | undefined;
  let moves: Moves | undefined;
  return {
    prior,
    pair,
    p,
    q,
    get coupling() {
      coupling ??= comonotoneCoupling(p, q);
      return coupling;
    },
    // The α = ∞ rules read W∞ only: on large supports the coupling's exact masses cost far more.
    get wInf() {
      w ??= coupling && tie === 0 ? wInf(coupling) : comonotoneWInf(p, q, tie);
      return w;
    },
    get exactWInf() {
      if (tie === 0) return this.wInf;
      exact ??= coupling ? wInf(coupling) : comonotoneWInf(p, q);
      return exact;
    },
    logExpectationUp(g) {
      moves ??= comonotoneMovesUp(p, q);
      return logMomentUp(moves, g);
    },
  };
}

const cache = new WeakMap<Scenario, PairCoupling[]>();

/**
 * π* for every prior and pair, computed once per scenario object. Every bound in this toolkit
 * is symmetric in (x, x'), so one coupling per pair covers both directions; the exact
 * accountant checks the directions itself (both unless the scenario is ordered).
 */
export function pairCouplings(s: Scenario): PairCoupling[] {
  let out = cache.get(s);
  if (!out) {
    out = priorPairs(s).units.map(({ prior: pr, pair: [a, b] }) => pairCoupling(pr.name, [a, b], pr.conditionals[a], pr.conditionals[b], s.tieTolerance ?? 0));
    cache.set(s, out);
  }
  return out;
}
