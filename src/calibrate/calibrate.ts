import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import { checkContaminationFor, checkLawsFor } from '../mechanisms/registry.js';
import { checkShape, OBJECT } from '../shapes.js';
import { calibrateGaussianPriors, PRIOR_NOISE } from '../gaussianPriors/calibrate.js';
import { MECHANISMS, type Mechanism } from './rules.js';
import { calibrateFinite, certainlyTooSmall, certifiedFinite, type Certification } from './finite.js';
import { calibratePoints, oneCoordinate, type PointSettings } from './points.js';
import type { CalibrateOptions, CalibrationResult } from './result.js';

export { MECHANISMS, METHODS, METHOD_LABEL, applicableMethods, calibrationRule, checkSettings } from './rules.js';
export type { CalibrationSettings, Mechanism, Method, SingleMethod } from './rules.js';
export { hasSource, lawSettings, lawsOnly, type CalibrateOptions, type CalibrationResult, type PairScale } from './result.js';
export { bestMethods, calibrationUnits, heavyCalibration, largestOnly, pairUnits, type Certification } from './finite.js';

/**
 * Calibrates one mechanism on any law source: the smallest certified scale for every prior and
 * pair, maximised over them (the guarantee must hold for every prior in the class and every
 * declared pair), each pair's condition re-checked at the final scale. Finite laws on ℝ couple
 * comonotonically and have the exact accountant; laws on ℝ^d couple by optimal transport
 * (docs/math.md §12); Gaussian priors use closed forms (docs/math.md §11). Method `best` runs
 * every method that applies and returns the smallest, naming the winner.
 * @example calibrate(builtinScenario('adult'), { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }).scale
 */
export function calibrate(scenario: AnyScenario, settings: PointSettings, opts: CalibrateOptions = {}): CalibrationResult {
  checkShape(OBJECT, settings, 'settings');
  checkShape(OBJECT, opts, 'options');
  return byLaw(
    scenario,
    {
      finite: (s) => {
        checkLawsFor(settings.mechanism, s);
        if (settings.contamination) checkContaminationFor(settings.mechanism);
        return calibrateFinite(s, oneCoordinate(settings), opts);
      },
      points: (s) => calibratePoints(s, settings, opts),
      mixture: (s) => calibrateGaussianPriors(s, oneCoordinate(settings), opts),
    },
    'calibration',
  );
}

/**
 * Per (prior, pair): whether `scale` meets the settings by a condition `calibrate` itself could
 * stop on (the same rules, units, evaluations and rounding, method by method as `best` tries
 * them), so the audit of a calibrated scale never fails by a rounding the calibration did not make.
 * @example certifiedAt(builtinScenario('heart'), { mechanism: 'laplace', alpha: 2, epsilon: 1 }, 1).certified // true
 */
export function certifiedAt(scenario: AnyScenario, settings: Omit<PointSettings, 'method'>, scale: number): Certification {
  return byLaw(
    scenario,
    {
      finite: (s) => certifiedFinite(s, oneCoordinate(settings), scale),
      // Every bound on ℝ^d is certified on a fixed coupling and falls as the scale grows: a scale at
      // or above the calibrated one is certified by the same condition.
      points: (s) => {
        const c = calibratePoints(s, { ...settings, method: 'best' });
        const by = (c.winner ?? c.method) as Certification['units'][number]['by'];
        return { certified: c.scale <= scale, units: [{ label: { prior: s.name, pair: ['*', '*'] }, by: c.scale <= scale ? by : null }] };
      },
    },
    'the certificate check',
  );
}

/**
 * Whether `scale` is certainly below every scale `calibrate` could certify for these settings,
 * by the exact divergence of the (prior, pair) `label` (`certainlyTooSmall`: finite laws on ℝ;
 * other law sources claim nothing).
 * @example tooSmall(builtinScenario('heart'), { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1 }, 0.01, { prior: 'empirical', pair: ['0', '1'] }) // true
 */
export function tooSmall(scenario: AnyScenario, settings: PointSettings, scale: number, label: { prior: string; pair: readonly string[] }): boolean {
  return byLaw(
    scenario,
    {
      finite: (s) => certainlyTooSmall(s, oneCoordinate(settings), scale, { prior: label.prior, pair: [label.pair[0], label.pair[1]] }),
      points: () => false,
      mixture: () => false,
    },
    'calibration',
  );
}

/** The noise a law source is calibrated with when none is named: Gaussian priors' own family, else the registry's first. */
export function defaultMechanism(scenario: AnyScenario): Mechanism {
  return byLaw(scenario, { finite: () => MECHANISMS[0], points: () => MECHANISMS[0], mixture: () => PRIOR_NOISE }, 'calibration');
}
