import type { Progress } from '../calibrate/driver.js';
import { checkShape, OBJECT } from '../shapes.js';
import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import { calibrateMIFinite, type MiCalibrationResult, type MiSettings } from './calibrateMI.js';
import { calibrateMIPoints } from './points.js';
import { oneCoordinate } from '../calibrate/points.js';
import { perVariable } from '../distribution/scenario.js';

/**
 * Calibrates noise for ε-mutual-information Pufferfish (docs/math.md §7): the smallest scale
 * with I(Y; S) ≤ ε under every prior, for finite laws on ℝ and on ℝ^d (per-coordinate
 * variance bound, docs/math.md §12). Secrets of several variables (a chain's X_i) are bounded
 * variable by variable (`perVariable`): I(Y; X_i) ≤ ε for every i.
 * @example calibrateMI(builtinScenario('heart'), { mechanism: 'gaussian', method: 'best', epsilon: 0.05 }).scale
 */
export function calibrateMI(
  scenario: AnyScenario,
  st: MiSettings & { coordinateScales?: readonly number[] },
  opts: { onProgress?: Progress } = {},
): MiCalibrationResult {
  checkShape(OBJECT, st, 'settings');
  return byLaw(
    perVariable(scenario),
    { finite: (s) => calibrateMIFinite(s, oneCoordinate(st), opts), points: (s) => calibrateMIPoints(s, st, opts) },
    'calibration for the mi guarantee',
    'guarantee',
  );
}
