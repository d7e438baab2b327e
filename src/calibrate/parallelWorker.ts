// Worker thread of `calibrate/parallel.ts`: solves or re-checks a share of one calibration's units,
// or runs whole calibrations, with the same code as the main thread (so the numbers are identical).
import type { Scenario } from './scenario.js';
import { calibrate, calibrationUnits, type CalibrationResult, type UnitLabel } from './calibrate.js';
import { recheckUnit, solveUnit, type Unit } from './driver.js';
import type { SingleMethod } from './rules.js';
import { errorToWire, fromWire, type WireError, type WireSettings } from './wire.js';

export type Task =
  | { kind: 'solve'; key: string; scenario: Scenario; settings: WireSettings; method: SingleMethod; indices: number[] }
  | { kind: 'recheck'; key: string; scenario: Scenario; settings: WireSettings; method: SingleMethod; indices: number[]; scale: number }
  | { kind: 'whole'; scenario: Scenario; settings: WireSettings };

export type TaskResult =
  | { ok: true; units?: { scale: number; zeroReason?: string }[]; feasible?: boolean[]; result?: CalibrationResult }
  | { ok: false; error: WireError };

// The units of the last few calibrations, so a worker builds each (prior, pair) coupling once.
const cache = new Map<string, Unit<UnitLabel>[]>();

function unitsFor(t: Extract<Task, { key: string }>): Unit<UnitLabel>[] {
  const key = `${t.key}\u0000${t.method}`;
  let units = cache.get(key);
  if (!units) {
    if (cache.size > 16) cache.clear();
    units = calibrationUnits(t.scenario, { ...fromWire(t.settings), method: t.method });
    cache.set(key, units);
  }
  return units;
}

export default function run(t: Task): TaskResult {
  try {
    switch (t.kind) {
      case 'solve': {
        const units = unitsFor(t);
        return { ok: true, units: t.indices.map((i) => solveUnit(units[i])) };
      }
      case 'recheck': {
        const units = unitsFor(t);
        return { ok: true, feasible: t.indices.map((i) => recheckUnit(units[i], t.scale)) };
      }
      case 'whole':
        return { ok: true, result: calibrate(t.scenario, fromWire(t.settings)) };
      default: {
        const unknown: never = t;
        throw new Error(`unknown task ${JSON.stringify(unknown)}`);
      }
    }
  } catch (e) {
    return { ok: false, error: errorToWire(e) };
  }
}
