// A calibration worker (`calibrate/pool.ts`): solves a chunk of one calibration's units for every
// method asked, keeps their conditions, and re-checks them at the maxima when asked on the same
// worker; or runs whole calibrations. Same code as the main thread, so the numbers are identical.
import type { Discrete } from '../distribution/discrete.js';
import type { NoNoise } from '../mechanisms/mechanism.js';
import type { ScaleProblem } from '../numerics/smallestScale.js';
import { calibrate, pairUnits, type CalibrationResult } from './calibrate.js';
import { build, recheckBuilt, solveBuilt } from './driver.js';
import type { SingleMethod } from './rules.js';
import { pairCoupling } from '../coupling/pairs.js';
import { errorToWire, fromWire, type WireError, type WireSettings } from './wire.js';
import { pairAccount, type DirectionAccount, type PointRelease } from '../account/points.js';
import type { PointLaw } from '../distribution/points.js';
import type { AnyScenario } from '../distribution/lawKind.js';

/** One (prior, pair) as plain data: its coupling is built on the worker, when a method needs it. */
export interface WirePair {
  prior: string;
  pair: [string, string];
  p: Discrete;
  q: Discrete;
}

export type Task =
  | { kind: 'solve'; chunk: string; pairs: WirePair[]; ordered: boolean; tieTolerance: number; settings: WireSettings; methods: SingleMethod[] }
  | { kind: 'recheck'; chunk: string; scales: number[] }
  | { kind: 'whole'; scenario: AnyScenario; settings: WireSettings }
  | { kind: 'vector-account'; P: PointLaw; Q: PointLaw; releases: PointRelease[]; w: number[]; alphas: number[]; ordered: boolean };

export type TaskResult =
  | { ok: true; solved?: { scale: number; zeroReason?: string }[][]; feasible?: boolean[][]; result?: CalibrationResult; vector?: DirectionAccount[][] }
  | { ok: false; error: WireError };

type Built = ScaleProblem | NoNoise;

/**
 * Conditions of the chunks solved here and not yet re-checked, by chunk id: the re-check runs on
 * the same worker (the pool pins it), so no condition is built twice. Bounded, so chunks of a
 * calibration abandoned after an error (never re-checked) cannot pile up in a long-lived worker.
 */
const kept = new Map<string, Built[][]>();
const KEPT_CHUNKS = 4096;

function solve(t: Extract<Task, { kind: 'solve' }>): TaskResult {
  const pcs = t.pairs.map((w) => pairCoupling(w.prior, w.pair, w.p, w.q, t.tieTolerance));
  const built = t.methods.map((method) => pairUnits(pcs, { ...fromWire(t.settings), method }, t.ordered).map(build));
  const solved = built.map((ps) => ps.map(solveBuilt));
  if (kept.size >= KEPT_CHUNKS) kept.delete(kept.keys().next().value as string);
  kept.set(t.chunk, built);
  return { ok: true, solved };
}

function recheck(t: Extract<Task, { kind: 'recheck' }>): TaskResult {
  const built = kept.get(t.chunk);
  if (!built) throw new Error(`chunk ${t.chunk} was not solved on this worker`);
  kept.delete(t.chunk);
  return { ok: true, feasible: built.map((ps, m) => ps.map((p) => t.scales[m] === 0 || recheckBuilt(p, t.scales[m]))) };
}

export default function run(t: Task): TaskResult {
  try {
    switch (t.kind) {
      case 'solve':
        return solve(t);
      case 'recheck':
        return recheck(t);
      case 'whole':
        return { ok: true, result: calibrate(t.scenario, fromWire(t.settings)) };
      case 'vector-account':
        return { ok: true, vector: pairAccount(t.P, t.Q, t.releases, t.w, t.alphas, t.ordered) };
      default: {
        const unknown: never = t;
        throw new Error(`unknown task ${JSON.stringify(unknown)}`);
      }
    }
  } catch (e) {
    return { ok: false, error: errorToWire(e) };
  }
}
