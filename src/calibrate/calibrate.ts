import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import { checkShape, OBJECT } from '../shapes.js';
import { MIXTURE, PRIOR_NOISE } from '../gaussianPriors/calibrate.js';
import { MECHANISMS, type Mechanism, type SingleMethod } from './rules.js';
import { certainlyTooSmall, certifiedFinite, FINITE, type Certification } from './finite.js';
import { asScalar, oneCoordinate, POINTS, scalarSettings } from './points.js';
import { solveUnits } from './driver.js';
import {
  bestResult,
  calibrateWithSource,
  hasSource,
  lawsOnly,
  MONOTONE_METHODS,
  orderMonotone,
  solvedResult,
  type CalibrateOptions,
  type CalibrationResult,
} from './result.js';
import type { CalibrationKind, PairLabel, PointSettings } from './kind.js';
import { dimensionOf } from '../distribution/points.js';
import type { Scenario } from '../distribution/scenario.js';

export { MECHANISMS, METHODS, METHOD_LABEL, applicableMethods, calibrationRule, checkSettings } from './rules.js';
export type { CalibrationSettings, Mechanism, Method, SingleMethod } from './rules.js';
export { hasSource, lawSettings, lawsOnly, type CalibrateOptions, type CalibrationResult, type PairScale } from './result.js';
export { bestMethods, calibrationUnits, heavyCalibration, largestOnly, pairUnits, type Certification } from './finite.js';

/**
 * The kind of a scenario's laws, as the calibration sees it: a vector of one coordinate is a law
 * on ℝ (its values unchanged), which has the exact accountant. A law source's vectors are not read
 * for their dimension here: its own methods may answer where its laws cannot be computed.
 */
function calibrateByKind(scenario: AnyScenario, settings: PointSettings, opts: CalibrateOptions): CalibrationResult {
  return byLaw(
    scenario,
    {
      finite: (s) => calibrateKind(FINITE, s, settings, opts),
      points: (s) =>
        !hasSource(s) && dimensionOf(s) === 1
          ? calibrateKind(FINITE, asScalar(s), scalarSettings(s, settings), opts)
          : calibrateKind(POINTS, s, settings, opts),
      mixture: (s) => calibrateKind(MIXTURE, s, oneCoordinate(settings), opts),
    },
    'calibration',
  );
}

/**
 * Calibrates one mechanism on any law source: the smallest certified scale for every prior and
 * pair, maximised over them (the guarantee must hold for every prior in the class and every
 * declared pair), each pair's condition re-checked at the final scale. Finite laws on ℝ couple
 * comonotonically and have the exact accountant; laws on ℝ^d couple by optimal transport
 * (docs/math.md §12); Gaussian priors use closed forms (docs/math.md §11). Method `best` runs
 * every method that applies and returns the smallest, naming the winner. Written once over the
 * kinds' hooks (`CalibrationKind`).
 * @example calibrate(builtinScenario('adult'), { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }).scale
 */
export function calibrate(scenario: AnyScenario, settings: PointSettings, opts: CalibrateOptions = {}): CalibrationResult {
  checkShape(OBJECT, settings, 'settings');
  checkShape(OBJECT, opts, 'options');
  return calibrateByKind(scenario, settings, opts);
}

/**
 * The one calibration, over a kind's hooks: any kind of law — the built-in ones through `calibrate`,
 * a new one by its `CalibrationKind` alone — gets its settings checked, `best`, the units solved
 * together and re-checked, D_α ≤ D_∞ across orders, and a law source's methods and mass error. The
 * example is a new kind: uniform laws of one width at offsets a, whose W∞ is |a − a′|, so that
 * b = W∞/ε certifies ε-Pufferfish (Remark 1) and every order.
 * @example
 * const uniforms = {
 *   check: (_s, settings) => settings,
 *   bestMethods: () => ({ methods: ['wasserstein-inf'], note: '' }),
 *   units: (s, st) => s.pairs.map(([a, b]) => {
 *     const w = Math.abs(a - b);
 *     const evaluate = (x) => ({ value: w / x, error: 0, target: st.epsilon, sense: 'le' });
 *     return { label: { prior: 'offsets', pair: [String(a), String(b)] }, problem: { evaluate, lower: w / (2 * st.epsilon), upper: (2 * w) / st.epsilon } };
 *   }),
 *   text: (_s, st, sol) => ({ settings: st, parameter: 'b', variance: 2 * sol.scale ** 2, rule: 'W∞ of equal-width uniforms', meets: 'with W∞/b ≤ ε', symbol: 'b' }),
 * };
 * calibrateKind(uniforms, { pairs: [[0, 1.5], [0, 0.5]] }, { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 0.5 }).scale // 3
 */
export function calibrateKind<S, L extends PairLabel>(
  kind: CalibrationKind<S, L>,
  scenario: S,
  settings: PointSettings,
  opts: CalibrateOptions = {},
): CalibrationResult {
  return checkedKind(kind, scenario, kind.check(scenario, settings), opts);
}

/** `calibrateKind` on settings the kind has checked (`best` runs each method through it). */
function checkedKind<S, L extends PairLabel>(kind: CalibrationKind<S, L>, scenario: S, settings: PointSettings, opts: CalibrateOptions): CalibrationResult {
  // The tool's own answers (best, exact) never need more noise at α than at ∞; a paper's rule
  // (Theorem 1, Pierquin, W∞, coupled) is its own condition at α, as published.
  if (!MONOTONE_METHODS.has(settings.method)) return atOrder(kind, scenario, settings, opts);
  return orderMonotone(
    settings,
    opts,
    () => atOrder(kind, scenario, settings, opts),
    () => atOrder(kind, scenario, { ...settings, alpha: Infinity }, {}),
    (r) => kind.infinityLarger?.(scenario, settings, r) ?? false,
  );
}

function atOrder<S, L extends PairLabel>(kind: CalibrationKind<S, L>, scenario: S, settings: PointSettings, opts: CalibrateOptions): CalibrationResult {
  // A law source's own methods and mass error; its laws at the order itself (orderMonotone covers the rest).
  const source = scenario as Scenario<unknown>;
  if (hasSource(source)) return calibrateWithSource(source, settings, (s) => opts.laws ?? atOrder(kind, lawsOnly(source) as S, s, opts));
  if (settings.method === 'best') {
    const { methods, note } = kind.bestMethods(scenario, settings);
    // Progress over all methods' units together.
    const results = methods.map((method, k) =>
      checkedKind(
        kind,
        scenario,
        { ...settings, method },
        { ...opts, onProgress: opts.onProgress && ((done, total) => opts.onProgress!(k * total + done, methods.length * total)) },
      ),
    );
    return bestResult(results, note);
  }
  const single = { ...settings, method: settings.method as SingleMethod };
  const sol = solveUnits(
    kind.units(scenario, single),
    (l) => `prior '${l.prior}', pair ${l.pair.join(' vs ')}`,
    undefined,
    opts.onProgress,
    opts.precomputed?.[single.method],
    kind.largestOnly?.(scenario) ?? false,
  );
  return solvedResult(sol, kind.text(scenario, single, sol));
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
        const c = calibrate(s, { ...settings, method: 'best' });
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
