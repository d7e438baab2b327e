import { NumericalError } from '../errors.js';
import type { NoNoise } from '../mechanisms/mechanism.js';
import { isFeasible, smallestFeasibleScale, type Evaluation, type ScaleProblem } from '../numerics/smallestScale.js';
import { nextUp } from '../numerics/float.js';

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
  /**
   * A certified check, cheaper than building the condition, that the unit holds at `scale` (true only
   * when it does): where another unit already needs more noise, this unit's search is skipped.
   */
  holdsAt?: (scale: number) => boolean;
  /** Why the unit needs no noise, found without building its condition (as the condition would say it), else null. */
  noNoise?: () => string | null;
}

/** One unit solved: its scale (0 with the reason no noise is needed), its condition, and whether it was only checked at the common scale. */
export interface SolvedUnit<L> {
  label: L;
  scale: number;
  /** Why this unit needs no noise, when scale = 0 (the one representation of "no noise"). */
  zeroReason?: string;
  problem: ScaleProblem | null;
  /** The unit was shown to hold at `scale` (the largest unit's) and its own smallest scale was not searched. */
  atMost?: true;
}

/** Every unit solved: each one's scale, the unit needing the most noise, the common scale and the binding unit's check there. */
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

/**
 * Solves every unit, takes the maximum, and re-checks every unit there; `name` labels failures.
 * With `largestOnly` only the maximum is searched for (`solveLargest`).
 */
export function solveUnits<L>(
  units: Unit<L>[],
  name: (l: L) => string,
  solve: (p: ScaleProblem) => number = (p) => smallestFeasibleScale(p).scale,
  onProgress?: Progress,
  pre?: Precomputed,
  largestOnly = false,
): Solution<L> {
  if (units.length === 0) throw new NumericalError('nothing to calibrate: no (prior, pair) units');
  if (largestOnly && !pre) return solveLargest(units, name, solve, onProgress);
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
  const scale =
    top.scale > 0 && !pre?.rechecked
      ? liftedScale(top.scale, (at) => solved.find((s) => s.problem && !isFeasible(s.problem.evaluate(at)))?.label ?? null, name)
      : top.scale;
  if (pre && !pre.rechecked) throw new NumericalError('precomputed units were not re-checked at the maximum');
  return { units: solved, top, scale, check: top.problem && scale > 0 ? top.problem.evaluate(scale) : null };
}

/** Times the common scale may be lifted by a few ulps before a unit failing there is an error. */
const LIFTS = 16;

/**
 * The common scale, every unit re-checked there. Each unit's search stops at a feasible end within
 * its tolerance, and a condition evaluated in floating point is not monotone at the last ulps: a
 * unit whose own scale is an ulp below the maximum may round infeasible at it. Then the scale is
 * lifted by a few ulps (never lowered) until every unit holds at it; `failing(at)` names a unit that
 * does not, or null.
 */
function liftedScale<L>(scale: number, failing: (at: number) => L | null, name: (l: L) => string): number {
  for (let k = 0; ; k++) {
    const bad = failing(scale);
    if (bad === null) return scale;
    if (k === LIFTS) throw new NumericalError(`re-check failed for ${name(bad)} at scale ${scale}`);
    scale = nextUp(scale * (1 + 4 * Number.EPSILON));
  }
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

/** Units searched in full before the others are checked against their maximum. */
const PROBES = 4;

/**
 * The units in a fixed order that spreads over them (a stride coprime with n): neighbouring units
 * (a chain's neighbouring times) have similar scales, so the largest is met early.
 */
function spreadOrder(n: number): number[] {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  let step = Math.max(1, Math.round(n * 0.6180339887498949));
  while (gcd(step, n) !== 1) step++;
  return Array.from({ length: n }, (_, k) => (k * step) % n);
}

/**
 * The largest unit's scale without every unit's own: a few units are searched, then each other unit
 * is checked at the largest scale so far (its cheap `holdsAt`, else its condition) and searched only
 * where it fails there. Every unit is finally re-checked at the maximum, as in `solveUnits`; a
 * unit only checked is reported `atMost` that scale. The maximum is the same as searching every unit:
 * a unit that holds at the maximum needs no more noise.
 */
function solveLargest<L>(units: Unit<L>[], name: (l: L) => string, solve: (p: ScaleProblem) => number, onProgress?: Progress): Solution<L> {
  const n = units.length;
  const solved: SolvedUnit<L>[] = new Array(n);
  const built: (ScaleProblem | NoNoise | undefined)[] = new Array(n);
  const problemOf = (i: number) => (built[i] ??= build(units[i]));
  let scale = 0,
    top = -1,
    done = 0;
  const search = (i: number) => {
    const p = problemOf(i);
    solved[i] = 'zero' in p ? { label: units[i].label, scale: 0, zeroReason: p.zero, problem: null } : { label: units[i].label, scale: solve(p), problem: p };
    if (solved[i].scale > scale) {
      scale = solved[i].scale;
      top = i;
    }
  };
  const holds = (i: number, s: number) => {
    const cheap = units[i].holdsAt;
    if (cheap?.(s)) return true;
    const p = problemOf(i);
    return 'zero' in p || isFeasible(p.evaluate(s));
  };
  const checkedAt = new Float64Array(n);
  spreadOrder(n).forEach((i, k) => {
    const zero = units[i].noNoise?.() ?? null;
    if (zero !== null) solved[i] = { label: units[i].label, scale: 0, zeroReason: zero, problem: null };
    else if (k < PROBES || scale === 0 || !holds(i, scale)) search(i);
    else {
      solved[i] = { label: units[i].label, scale, problem: null, atMost: true };
      checkedAt[i] = scale;
    }
    onProgress?.(++done, n);
  });
  // Units checked at a smaller maximum are checked again at the final one (searched where they fail).
  for (let again = true; again; ) {
    again = false;
    for (let i = 0; i < n; i++) {
      if (!solved[i].atMost || checkedAt[i] === scale) continue;
      if (holds(i, scale)) checkedAt[i] = scale;
      else {
        search(i);
        again = true;
      }
    }
  }
  // The binding unit is the first searched one at the maximum, in the units' order (as `solveUnits`).
  top = Math.max(
    0,
    solved.findIndex((s) => !s.atMost && s.scale === scale),
  );
  if (scale > 0)
    scale = liftedScale(
      scale,
      (at) =>
        solved.find((s, i) => (s.atMost ? !(checkedAt[i] === at || holds(i, at)) : s.problem !== null && !isFeasible(s.problem.evaluate(at))))?.label ?? null,
      name,
    );
  for (const s of solved) if (s.atMost) s.scale = scale;
  const first = solved[top];
  return { units: solved, top: first, scale, check: first.problem && scale > 0 ? first.problem.evaluate(scale) : null };
}
