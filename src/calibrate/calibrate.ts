import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import { checkKeys, checkShape, OBJECT } from '../shapes.js';
import { MIXTURE, MIXTURE_NOISE } from './mixture.js';
import { MECHANISMS, type Mechanism, type SingleMethod } from './rules.js';
import { certainlyTooSmall, FINITE, type Certification } from './finite.js';
import { asScalar, certainlyTooSmallPoints, oneCoordinate, POINTS, scalarSettings } from './points.js';
import { solveUnits } from './driver.js';
import {
  bestResult,
  calibrateWithSource,
  hasSource,
  lawsOnly,
  sourceScale,
  type SourceMethodName,
  MONOTONE_METHODS,
  orderMonotone,
  solvedResult,
  type CalibrateOptions,
  type CalibrationResult,
} from './result.js';
import type { CalibrationKind, PairLabel, PointSettings } from './kind.js';
import { dimensionOf } from '../distribution/points.js';
import { lawsError, massErrorCharge, type Scenario } from '../distribution/scenario.js';
import { InputError } from '../errors.js';
import { isFeasible } from '../numerics/smallestScale.js';
import { mechanismDef } from '../mechanisms/registry.js';

export { MECHANISMS, METHODS, METHOD_LABEL, applicableMethods, calibrationRule, checkSettings } from './rules.js';
export type { CalibrationSettings, Mechanism, Method, SingleMethod } from './rules.js';
export { hasSource, lawSettings, lawsOnly, type CalibrateOptions, type CalibrationResult, type PairScale } from './result.js';
export { bestMethods, calibrationUnits, heavyCalibration, largestOnly, pairUnits, type Certification } from './finite.js';

/**
 * Runs `op` with the scenario's kind of law, as the calibration sees it: a vector of one coordinate
 * is a law on ℝ (its values unchanged), which has the exact accountant. A law source's vectors are
 * not read for their dimension here: its own methods may answer where its laws cannot be computed.
 */
function byKind<R>(
  scenario: AnyScenario,
  settings: PointSettings,
  op: <S, L extends PairLabel>(kind: CalibrationKind<S, L>, scenario: S, settings: PointSettings) => R,
): R {
  return byLaw(
    scenario,
    {
      finite: (s) => op(FINITE, s, settings),
      points: (s) => (!hasSource(s) && dimensionOf(s) === 1 ? op(FINITE, asScalar(s), scalarSettings(s, settings)) : op(POINTS, s, settings)),
      mixture: (s) => op(MIXTURE, s, oneCoordinate(settings)),
    },
    'calibration',
  );
}

/** Every field a calibration's settings may hold. */
const SETTINGS_KEYS = [
  'mechanism',
  'method',
  'alpha',
  'epsilon',
  'cost',
  'eta',
  'releases',
  'contamination',
  'coordinateScales',
] as const satisfies readonly (keyof PointSettings)[];

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
  checkKeys(settings, SETTINGS_KEYS, 'settings');
  checkShape(OBJECT, opts, 'options');
  return byKind(scenario, settings, (kind, s, st) => calibrateKind(kind, s, st, opts));
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
 * them), so the audit of a calibrated scale does not fail by a rounding the calibration did not make
 * (a unit the driver accepted through its own re-check rather than a method's condition is not
 * certified here; the audit's exact rows still decide).
 * @example certifiedAt(builtinScenario('heart'), { mechanism: 'laplace', alpha: 2, epsilon: 1 }, 1).certified // true
 */
export function certifiedAt(scenario: AnyScenario, settings: Omit<PointSettings, 'method'>, scale: number): Certification {
  return byKind(scenario, { ...settings, method: 'best' }, (kind, s, st) => certifiedKind(kind, s, st, scale));
}

/**
 * `certifiedAt` over a kind's hooks: each unit is certified by the first of `best`'s methods whose
 * condition holds at `scale` (a pair's guarantee needs one valid bound), or by its data alone
 * (`zero`); what certifies α = ∞ certifies every finite order (D_α ≤ D_∞, docs/math.md §4), as
 * `calibrate` takes it.
 */
function certifiedKind<S, L extends PairLabel>(kind: CalibrationKind<S, L>, scenario: S, settings: PointSettings, scale: number): Certification {
  const own = certifiedAtOrder(kind, scenario, settings, scale);
  if (own.certified || settings.alpha === Infinity || mechanismDef(settings.mechanism).alphaRange(Infinity)) return own;
  try {
    const inf = certifiedAtOrder(kind, scenario, { ...settings, alpha: Infinity }, scale);
    return inf.certified ? inf : own;
  } catch (e) {
    if (e instanceof InputError) return own;
    throw e;
  }
}

function certifiedAtOrder<S, L extends PairLabel>(kind: CalibrationKind<S, L>, scenario: S, settings: PointSettings, scale: number): Certification {
  const source = scenario as Scenario<unknown>;
  if (hasSource(source)) {
    // A source method's scale certifies every larger one (its bound falls as the scale grows).
    const by = (source.sourceMethods ?? []).find((m) => {
      const r = sourceScale(m, settings);
      return 'scale' in r && r.scale <= scale;
    });
    if (by) return { certified: true, units: [{ label: { prior: source.name, pair: ['*', '*'] }, by: by.name as SourceMethodName }] };
    if (source.lawsNotApplicable) return { certified: false, units: [] };
    const charge = massErrorCharge(lawsError(source), settings.alpha);
    if (!(settings.epsilon > charge)) return { certified: false, units: [] };
    return certifiedAtOrder(kind, lawsOnly(source) as S, { ...settings, epsilon: settings.epsilon - charge }, scale);
  }
  const checked = kind.check(scenario, settings);
  let out: Certification['units'] | null = null;
  for (const method of kind.bestMethods(scenario, checked).methods) {
    const us = kind.units(scenario, { ...checked, method });
    out ??= us.map((u) => ({ label: { prior: u.label.prior, pair: u.label.pair }, by: null }));
    const units: Certification['units'] = out;
    us.forEach((u, k) => {
      if (units[k].by) return;
      const p = typeof u.problem === 'function' ? u.problem() : u.problem;
      if ('zero' in p) units[k].by = 'zero';
      else if (scale > 0 && isFeasible(p.evaluate(scale))) units[k].by = method;
    });
    if (units.every((u) => u.by)) break;
  }
  out ??= [];
  return { certified: out.length > 0 && out.every((u) => u.by !== null), units: out };
}

/**
 * Whether `scale` is certainly below every scale `calibrate` could certify for these settings,
 * by the exact divergence of the (prior, pair) `label` (`certainlyTooSmall`: finite laws on ℝ;
 * `certainlyTooSmallPoints`: two coordinates under Laplace noise; other law sources claim nothing).
 * @example tooSmall(builtinScenario('heart'), { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1 }, 0.01, { prior: 'empirical', pair: ['0', '1'] }) // true
 */
export function tooSmall(scenario: AnyScenario, settings: PointSettings, scale: number, label: { prior: string; pair: readonly string[] }): boolean {
  return byLaw(
    scenario,
    {
      finite: (s) => certainlyTooSmall(s, oneCoordinate(settings), scale, { prior: label.prior, pair: [label.pair[0], label.pair[1]] }),
      points: (s) => certainlyTooSmallPoints(s, settings, scale, label),
      mixture: () => false,
    },
    'calibration',
  );
}

/** The noise a law source is calibrated with when none is named: Gaussian priors' own family, else the registry's first. */
export function defaultMechanism(scenario: AnyScenario): Mechanism {
  return byLaw(scenario, { finite: () => MECHANISMS[0], points: () => MECHANISMS[0], mixture: () => MIXTURE_NOISE }, 'calibration');
}
