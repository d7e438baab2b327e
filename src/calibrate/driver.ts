import { NumericalError } from '../errors.js';
import type { NoNoise } from '../mechanisms/mechanism.js';
import { isFeasible, smallestFeasibleScale, type Evaluation, type ScaleProblem } from '../numerics/smallestScale.js';

/**
 * The one calibration driver. A guarantee must hold for every unit of the prior class — each
 * (prior, secret pair) for Rényi Pufferfish, each prior for mutual information — so the scale is
 * the largest unit's certified scale, and every unit's condition is re-checked there (a unit's
 * condition need not be monotone across units' scales in floating point; the re-check makes the
 * maximum safe, not assumed).
 */
export interface Unit<L> {
  label: L;
  /** The unit's condition, or a thunk building it (costly set-ups then count in the progress). */
  problem: ScaleProblem | NoNoise | (() => ScaleProblem | NoNoise);
}

interface SolvedUnit<L> {
  label: L;
  scale: number;
  /** Why this unit needs no noise, when scale = 0 (the one representation of "no noise"). */
  zeroReason?: string;
  problem: ScaleProblem | null;
}

export interface Solution<L> {
  units: SolvedUnit<L>[];
  /** The unit needing the most noise (the first such). */
  top: SolvedUnit<L>;
  scale: number;
  /** The binding unit's condition at `scale`; null when no unit needs noise. */
  check: Evaluation | null;
}

/** Called after each unit is solved: units done, and their total. */
export type Progress = (done: number, total: number) => void;

/**
 * Per-unit results computed elsewhere (worker threads, `calibrate/parallel.ts`) by the same code on
 * the same inputs: each unit's scale, and whether every unit re-checked at the maximum. Only the
 * binding unit's condition is then built here, for its check and note.
 */
export interface Precomputed {
  units: { scale: number; zeroReason?: string }[];
  rechecked: boolean;
}

/** A unit's condition, built (a worker keeps it between solving and re-checking its share). */
export const build = <L>(u: Unit<L>): ScaleProblem | NoNoise => (typeof u.problem === 'function' ? u.problem() : u.problem);

/** Solves every unit, takes the maximum, and re-checks every unit there; `name` labels failures. */
export function solveUnits<L>(
  units: Unit<L>[],
  name: (l: L) => string,
  solve: (p: ScaleProblem) => number = (p) => smallestFeasibleScale(p).scale,
  onProgress?: Progress,
  pre?: Precomputed,
): Solution<L> {
  if (units.length === 0) throw new NumericalError('nothing to calibrate: no (prior, pair) units');
  if (pre && pre.units.length !== units.length) throw new NumericalError(`precomputed results for ${pre.units.length} of ${units.length} units`);
  const solved = units.map((u, i): SolvedUnit<L> => {
    if (pre)
      return {
        label: u.label,
        scale: pre.units[i].scale,
        ...(pre.units[i].zeroReason !== undefined ? { zeroReason: pre.units[i].zeroReason } : {}),
        problem: null,
      };
    const problem = build(u);
    const s: SolvedUnit<L> =
      'zero' in problem ? { label: u.label, scale: 0, zeroReason: problem.zero, problem: null } : { label: u.label, scale: solve(problem), problem };
    onProgress?.(i + 1, units.length);
    return s;
  });
  let topIndex = 0;
  solved.forEach((s, i) => {
    if (s.scale > solved[topIndex].scale) topIndex = i;
  });
  if (pre && solved[topIndex].scale > 0) {
    const p = build(units[topIndex]);
    solved[topIndex].problem = 'zero' in p ? null : p;
  }
  const top = solved[topIndex];
  const scale = top.scale;
  if (scale > 0 && !pre?.rechecked) {
    for (const s of solved) {
      if (s.problem && !isFeasible(s.problem.evaluate(scale))) throw new NumericalError(`re-check failed for ${name(s.label)} at scale ${scale}`);
    }
  }
  if (pre && !pre.rechecked) throw new NumericalError('precomputed units were not re-checked at the maximum');
  return { units: solved, top, scale, check: top.problem && scale > 0 ? top.problem.evaluate(scale) : null };
}

/** Whether one built unit holds at the common scale (what a worker does for its share of the units). */
export function recheckBuilt(p: ScaleProblem | NoNoise, scale: number): boolean {
  return 'zero' in p || isFeasible(p.evaluate(scale));
}

/** Solves one built unit alone (what a worker does for its share of the units). */
export function solveBuilt(p: ScaleProblem | NoNoise): { scale: number; zeroReason?: string } {
  return 'zero' in p ? { scale: 0, zeroReason: p.zero } : { scale: smallestFeasibleScale(p).scale };
}

/** `best`: the first result with the smallest scale (each candidate is certified on its own). */
export function bestOf<R extends { scale: number }>(results: R[]): R {
  return results.reduce((a, b) => (b.scale < a.scale ? b : a));
}
