import { bestOf, solveUnits, type Progress } from '../calibrate/driver.js';
import { checkShape, OBJECT } from '../shapes.js';
import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import { MI_FINITE, miResult, type MiCalibrationResult, type MiKind, type MiKindSettings, type MiSingleMethod } from './calibrateMI.js';
import { MI_POINTS } from './points.js';
import { asScalar, oneCoordinate } from '../calibrate/points.js';
import { checkMiApplicable, perVariable, type Scenario } from '../distribution/scenario.js';
import { coordinateWeights, dimensionOf } from '../distribution/points.js';

/**
 * Calibrates noise for ε-mutual-information Pufferfish (docs/math.md §7): the smallest scale
 * with I(Y; S) ≤ ε under every prior, for finite laws on ℝ and on ℝ^d (per-coordinate
 * variance bound, docs/math.md §12). Secrets of several variables (a chain's X_i) are bounded
 * variable by variable (`perVariable`): I(Y; X_i) ≤ ε for every i. A vector of one coordinate at
 * weight 1 is a law on ℝ (its values unchanged), which has the exact MI.
 * @example calibrateMI(builtinScenario('heart'), { mechanism: 'gaussian', method: 'best', epsilon: 0.05 }).scale
 */
export function calibrateMI(scenario: AnyScenario, st: MiKindSettings, opts: { onProgress?: Progress } = {}): MiCalibrationResult {
  checkShape(OBJECT, st, 'settings');
  return byLaw(
    perVariable(scenario),
    {
      finite: (s) => calibrateMIKind(MI_FINITE, s, oneCoordinate(st), opts),
      points: (s) => {
        checkMiApplicable(s);
        const w = coordinateWeights(s, st.coordinateScales);
        return dimensionOf(s) === 1 && w[0] === 1 ? calibrateMIKind(MI_FINITE, asScalar(s), st, opts) : calibrateMIKind(MI_POINTS, s, st, opts);
      },
    },
    'calibration for the mi guarantee',
    'guarantee',
  );
}

/**
 * The one ε-MI calibration over a kind's hooks (`MiKind`): each prior a unit of the calibration
 * driver (`solveUnits`), the largest scale re-checked on every prior; `best` the smallest of the
 * kind's methods, naming the winner.
 * @example calibrateMIKind(MI_FINITE, builtinScenario('heart'), { mechanism: 'gaussian', method: 'mi-variance', epsilon: 0.05 }).scale
 */
export function calibrateMIKind<S extends Scenario<C>, C>(
  kind: MiKind<S, C>,
  scenario: S,
  st: MiKindSettings,
  opts: { onProgress?: Progress } = {},
): MiCalibrationResult {
  kind.check(scenario, st);
  if (st.method === 'best') {
    const { methods, note } = kind.best(scenario);
    const rs = methods.map((method, k) => ({
      method,
      r: calibrateMIKind(
        kind,
        scenario,
        { ...st, method },
        {
          onProgress: opts.onProgress && ((done, total) => opts.onProgress!(k * total + done, methods.length * total)),
        },
      ),
    }));
    const win = bestOf(rs.map(({ method, r }) => ({ method, scale: r.scale, r })));
    return {
      ...win.r,
      method: 'best',
      winner: win.method,
      candidates: rs.map(({ method, r }) => ({ method, scale: r.scale })),
      explanation: `best of ${methods.join(', ')}${note}: ${win.method} wins. ${win.r.explanation}`,
    };
  }
  const single = { ...st, method: st.method as MiSingleMethod };
  const sol = solveUnits(kind.units(scenario, single), (p) => `prior '${p.name}'`, undefined, opts.onProgress);
  const t = kind.text(scenario, single);
  return { ...miResult(scenario, single, t.rule, sol, t.prefix), ...t.tail };
}
