import { numberText } from '../numerics/decimal.js';
import { nextUp } from '../numerics/float.js';
import { checkSetting } from '../settings.js';
import { calibrate, type CalibrationResult } from '../calibrate/calibrate.js';
import { calibrateEpsDelta, DEFAULT_DELTA_ALPHAS, type EpsDeltaResult } from '../calibrate/epsDelta.js';
import type { PointSettings } from '../calibrate/points.js';
import type { AnyScenario } from '../distribution/lawKind.js';
import type { CalibrationSettings } from '../calibrate/rules.js';
import type { Scenario } from '../distribution/scenario.js';
import { pointMass } from '../distribution/discrete.js';
import { logMassIn } from '../divergence/exactRenyi.js';
import { InputError } from '../errors.js';
import { mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { cryptoSource, type RandomSource } from '../sampling/random.js';
import { drawRelease, type ExactNoise } from '../sampling/samplers.js';
import { calibrateTruncated, NEGLIGIBLE_MASS, checkTruncation } from './truncated.js';
import { mechanismNoise } from '../calibrate/mechanismNoise.js';
import { checkConfidence, DEFAULT_CONFIDENCE, symmetricInterval, truncatedInterval } from './interval.js';
import type { GaussianScenario } from '../distribution/mixture.js';

/**
 * The exact sampler for a calibrated mechanism. Where the sampler's parameter is derived
 * (exponential: b = 1/η(θ) or rate η(θ)), it is rounded towards *more* noise.
 */
export function samplerFor(s: Pick<CalibrationSettings, 'mechanism' | 'cost' | 'eta'>, scale: number): ExactNoise {
  return mechanismDef(s.mechanism).sampler(scale, noiseOptions(s));
}

/** How to release: the number of draws, truncation, randomness, an (ε, δ) target, error-bar confidence or a given scale. */
export interface ReleaseOptions {
  count?: number;
  truncate?: [number, number];
  /** Randomness; the platform CSPRNG unless a test injects its own. */
  random?: RandomSource;
  /**
   * `count` > 1: calibrate for each release alone instead of for all of them together (the
   * default). Each release then carries the guarantee alone; together they do not (Pufferfish
   * guarantees do not compose), and the result says so.
   */
  perRelease?: boolean;
  /**
   * Release the raw value when the calibrated scale is 0 (the data already meets ε under the
   * prior class). Off by default: "no noise" holds only if the adversary's belief is exactly in
   * the class, so it must be asked for.
   */
  allowNoNoise?: boolean;
  /** Calibration progress: units done and their total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * An (ε, δ) target instead of a Rényi one: `settings.epsilon` is ε, and the scale is the smallest
   * over the Rényi orders `alphas` (default: the built-in grid), each calibrated for the Rényi budget
   * the sharper conversion leaves (docs/math.md §3; `calibrateEpsDelta`). `settings.alpha` is ignored.
   */
  delta?: number;
  alphas?: readonly number[];
  /** The share of the noise each error bar covers (default 0.95). */
  confidence?: number;
  /**
   * Release at this scale instead of calibrating: the guarantee is then whatever the caller
   * checked for it (a ledger's joint budget); the result says the scale was given.
   */
  scale?: number;
}

/** Refuses a zero-noise release unless it was asked for, saying why the scale is 0. */
export function consentToNoNoise(
  plan: { scale: number; calibration: CalibrationResult | null; truncate: [number, number] | null },
  opts: ReleaseOptions,
): void {
  if (plan.scale > 0 || opts.allowNoNoise) return;
  const why = plan.calibration?.explanation ?? 'no pair needs noise on this interval';
  throw new InputError(
    `the calibrated scale is 0, so the release would be the raw value (${why}) — this holds only if the adversary's belief is exactly in the prior class; pass --allow-no-noise to release it anyway, or widen the class: --contamination λ --domain LO,HI (every prior within λ of it), or --prior bootstrap:N or dirichlet:N`,
    'allow-no-noise',
  );
}

/** Released values with their error bars, the scale and method used, and the guarantee in words. */
export interface ReleaseResult {
  values: number[];
  mechanism: CalibrationSettings['mechanism'];
  /** The method that set the scale (for `best`, the winner). */
  method: string;
  alpha: number;
  epsilon: number;
  parameter: 'b' | 'sigma' | 'theta';
  scale: number;
  truncate: [number, number] | null;
  guarantee: string;
  calibration: CalibrationResult | null;
  /** With an (ε, δ) target: the target; `alpha` and `epsilon` are then the Rényi order and budget calibrated for. */
  target?: { epsilon: number; delta: number };
  /** The probability, over the noise, that each interval holds the true value. */
  confidence: number;
  /** Untruncated noise: each interval is value ± halfWidth (rounded up); truncated: null, the intervals are exact. */
  halfWidth: number | null;
  /** One interval per released value, index for index. */
  intervals: [number, number][];
  /** What the curator should know about this value's release (outside the laws, doubles coarser than the noise). */
  note?: string;
  /** What the draws themselves call for (some lie outside the data's range); depends on the draws. */
  drawNote?: string;
}

/** Truncated draws are refused when they would need more than this many tries on average. */
export const MAX_EXPECTED_DRAWS = 1e5;

interface ReleasePlan extends Omit<ReleaseResult, 'values' | 'confidence' | 'halfWidth' | 'intervals'> {
  /** One release of `value` (the value itself when no noise is needed). */
  draw(value: number, random: RandomSource): number;
}

/**
 * The error bars of a plan at `confidence`: y ± h for untruncated noise (h the family's
 * half-width, rounded up; 0 without noise), the exact interval of the truncated law otherwise,
 * within `support`, the range the true value can take (the laws' atoms).
 */
export function errorBars(
  plan: Pick<ReleaseResult, 'scale' | 'truncate'>,
  settings: Pick<CalibrationSettings, 'mechanism' | 'cost' | 'eta'>,
  confidence = DEFAULT_CONFIDENCE,
  support: [number, number] = [-Infinity, Infinity],
): { confidence: number; halfWidth: number | null; interval(y: number): [number, number] } {
  checkConfidence(confidence);
  if (plan.truncate && plan.scale > 0) {
    const noise = mechanismNoise(settings, plan.scale);
    const t = plan.truncate;
    return { confidence, halfWidth: null, interval: (y) => truncatedInterval(y, noise, t, confidence, support) };
  }
  const h = plan.scale === 0 ? 0 : mechanismDef(settings.mechanism).halfWidth(plan.scale, confidence, noiseOptions(settings));
  return { confidence, halfWidth: h, interval: (y) => symmetricInterval(y, h) };
}

/**
 * Calibrates once (truncated: on the truncated outputs) and returns how to draw a release of
 * any value. A truncated draw first refuses a value whose interval probability is negligible,
 * so no draw loops.
 */
function planRelease(
  scenario: Scenario | GaussianScenario,
  settings: CalibrationSettings,
  truncate?: [number, number],
  onProgress?: (done: number, total: number) => void,
  target?: Pick<ReleaseOptions, 'delta' | 'alphas' | 'scale'>,
): ReleasePlan {
  if (target?.scale !== undefined) {
    checkSetting('scale', target.scale);
    if (truncate) throw new InputError('a truncated release is calibrated on its truncated outputs; it takes no given scale', 'scale');
  }
  if (target?.delta !== undefined && truncate)
    throw new InputError('truncated releases take a Rényi target (α, ε); (ε, δ) targets are not calibrated on truncated outputs yet', 'delta');
  if (target?.scale !== undefined) return planGiven(scenario, settings, target.scale);
  if (target?.delta !== undefined)
    return planEpsDelta(scenario, settings, target.delta, releaseCalibration(scenario, settings, { ...target, onProgress }) as EpsDeltaResult);
  const parameter = mechanismDef(settings.mechanism).parameter;
  const where = `for every prior and secret pair of '${scenario.name}'`;
  const base = { mechanism: settings.mechanism, alpha: settings.alpha, epsilon: settings.epsilon, parameter } as const;
  if (truncate) {
    const [lo, hi] = truncate;
    checkTruncation(lo, hi);
    if ((settings.releases ?? 1) > 1) throw new InputError('truncated releases are calibrated one at a time', 'releases');
    if (settings.contamination) throw new InputError('truncated releases are not calibrated for a contamination class yet', 'contamination');
    const t = calibrateTruncated(scenario, settings, truncate);
    const noise = t.scale === 0 ? null : samplerFor(settings, t.scale);
    return {
      ...base,
      method: 'exact (truncated)',
      scale: t.scale,
      truncate,
      calibration: null,
      guarantee: `(α=${numberText(settings.alpha)}, ε=${settings.epsilon})-Rényi Pufferfish privacy of each release, truncated to [${numberText(lo)}, ${numberText(hi)}], ${where}. ${t.explanation}`,
      draw(value, random) {
        if (!noise) {
          // Scale 0 (no pair needs noise): the limit law is the value itself, which must lie in the interval.
          if (value >= lo && value <= hi) return value;
          throw new InputError(`value ${value} is outside [${lo}, ${hi}] and no noise is calibrated to move it there`, 'truncate');
        }
        const logMass = logMassIn(pointMass(value), mechanismNoise(settings, t.scale), truncate).value;
        const mass = Math.exp(logMass);
        if (mass < NEGLIGIBLE_MASS)
          throw new InputError(
            `value ${value} lands in [${lo}, ${hi}] with probability e^${logMass.toFixed(1)} at this scale: negligible (below ${NEGLIGIBLE_MASS})`,
            'truncate',
          );
        // Rejection sampling costs 1/mass draws on average: refuse, with the estimate, rather than run for hours.
        if (1 / mass > MAX_EXPECTED_DRAWS)
          throw new InputError(
            `value ${value} lands in [${lo}, ${hi}] with probability ${mass.toPrecision(2)} at this scale: about ${(1 / mass).toPrecision(2)} draws per release on average (limit ${MAX_EXPECTED_DRAWS}); widen the interval`,
            'truncate',
          );
        return drawRelease(value, noise, { random, truncate, maxDraws: Math.ceil(1000 / mass) });
      },
    };
  }
  const c = releaseCalibration(scenario, settings, { onProgress }) as CalibrationResult;
  const noise = c.scale === 0 ? null : samplerFor(settings, c.scale);
  return {
    ...base,
    method: c.winner ?? c.method,
    scale: c.scale,
    truncate: null,
    calibration: c,
    guarantee:
      c.scale === 0
        ? `(α=${numberText(settings.alpha)}, ε=${settings.epsilon})-Rényi Pufferfish privacy ${where} with no noise: ${c.explanation}`
        : `(α=${numberText(settings.alpha)}, ε=${settings.epsilon})-Rényi Pufferfish privacy of ${(settings.releases ?? 1) > 1 ? `the ${settings.releases} releases together` : 'each release'} ${where}. ${c.explanation}`,
    draw: (value, random) => (noise ? drawRelease(value, noise, { random }) : value),
  };
}

/** `planRelease` at a given scale: no calibration; the caller vouches for the guarantee. */
function planGiven(scenario: Scenario | GaussianScenario, settings: CalibrationSettings, scale: number): ReleasePlan {
  const noise = samplerFor(settings, scale);
  const def = mechanismDef(settings.mechanism);
  return {
    mechanism: settings.mechanism,
    alpha: settings.alpha,
    epsilon: settings.epsilon,
    parameter: def.parameter,
    method: 'given scale',
    scale,
    truncate: null,
    calibration: null,
    guarantee: `${def.title} noise at the given ${def.symbol} = ${scale} for '${scenario.name}': not calibrated here; its guarantee is the joint level the ledger checked`,
    draw: (value, random) => drawRelease(value, noise, { random }),
  };
}

/**
 * The calibration a release draws at, on any kind of law: none at a given scale (null: the caller
 * vouches, a ledger having checked the joint level), for an (ε, δ) target the smallest scale over the
 * Rényi orders (`calibrateEpsDelta`, its progress counting every order's units, those passed over
 * included, so the bar ends full), else the Rényi target's (`calibrate`).
 */
export function releaseCalibration(
  scenario: AnyScenario,
  settings: PointSettings,
  opts: Pick<ReleaseOptions, 'scale' | 'delta' | 'alphas' | 'onProgress'>,
): CalibrationResult | EpsDeltaResult | null {
  const { onProgress } = opts;
  if (opts.scale !== undefined) {
    checkSetting('scale', opts.scale);
    return null;
  }
  if (opts.delta === undefined) return calibrate(scenario, settings, { onProgress });
  const alphas = opts.alphas ?? DEFAULT_DELTA_ALPHAS;
  let units = 0;
  const at = (st: CalibrationSettings, tried: number) => {
    const progress =
      onProgress &&
      ((done: number, total: number) => {
        units = total;
        onProgress(tried * total + done, alphas.length * total);
      });
    // The trial settings carry the rest of `settings` (a vector's coordinate weights too).
    return calibrate(scenario, st, { onProgress: progress });
  };
  const { alpha: _ignored, ...rest } = settings;
  const c = calibrateEpsDelta(scenario, rest, settings.epsilon, opts.delta, alphas, at);
  if (units) onProgress?.(alphas.length * units, alphas.length * units);
  return c;
}

/** `planRelease` for an (ε, δ) target met by `c`, then the same draws. */
function planEpsDelta(scenario: Scenario | GaussianScenario, settings: CalibrationSettings, delta: number, c: EpsDeltaResult): ReleasePlan {
  const noise = c.scale === 0 ? null : samplerFor(settings, c.scale);
  const where = `for every prior and secret pair of '${scenario.name}'`;
  const what = (settings.releases ?? 1) > 1 ? `the ${settings.releases} releases together` : 'each release';
  return {
    mechanism: settings.mechanism,
    alpha: c.alpha,
    epsilon: c.renyiEpsilon,
    parameter: mechanismDef(settings.mechanism).parameter,
    method: c.winner ?? c.method,
    scale: c.scale,
    truncate: null,
    calibration: c,
    target: c.target,
    guarantee: `(ε=${settings.epsilon}, δ=${delta})-Pufferfish privacy of ${what} ${where}${c.scale === 0 ? ' with no noise' : ''}. ${c.explanation}`,
    draw: (value, random) => (noise ? drawRelease(value, noise, { random }) : value),
  };
}

/**
 * Privatizes `value`: calibrates the mechanism on the scenario (truncated: on the truncated
 * outputs) and draws `count` independent releases with the exact samplers. Each release alone
 * carries the stated guarantee; together they do **not**: Pufferfish guarantees do not compose
 * (two releases of one value can leak far more than twice the budget), so `guarantee` says so
 * whenever `count` > 1.
 * @example releaseFinite(builtinScenario('heart'), { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1 }, 1.4).values
 */
export function releaseFinite(scenario: Scenario | GaussianScenario, settings: CalibrationSettings, value: number, opts: ReleaseOptions = {}): ReleaseResult {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new InputError(`must be a finite number, got ${String(value)}`, 'value');
  if (mechanismDef(settings.mechanism).composes === 'lattice' && !Number.isSafeInteger(value))
    throw new InputError(`must be a whole number below 2⁵³ for ${settings.mechanism} noise (its releases are integers), got ${value}`, 'value');
  const count = opts.count ?? 1;
  checkSetting('count', count);
  const random = opts.random ?? cryptoSource;
  // N releases of one value are calibrated together unless asked otherwise (docs/math.md §9).
  const joint = count > 1 && !opts.perRelease;
  if (joint && opts.truncate)
    throw new InputError(
      `${count} truncated releases cannot be accounted together here (each truncated law needs its own integral); release one at a time, or ask for per-release calibration (--per-release) knowing the guarantee then holds for each release alone`,
      'count',
    );
  if (settings.releases !== undefined && settings.releases !== (joint ? count : 1))
    throw new InputError(`releases (${settings.releases}) and count (${count}) disagree: count releases are accounted together`, 'releases');
  checkConfidence(opts.confidence ?? DEFAULT_CONFIDENCE);
  const { draw, ...plan } = planRelease(scenario, joint ? { ...settings, releases: count } : settings, opts.truncate, opts.onProgress, opts);
  consentToNoNoise(plan, opts);
  const guarantee =
    count > 1 && plan.scale > 0 && !joint
      ? `${plan.guarantee} This holds for each of the ${count} releases alone, not for them together: Pufferfish guarantees do not compose, and their joint leakage can exceed ${count}·ε.`
      : plan.guarantee;
  const values = Array.from({ length: count }, () => draw(value, random));
  const bars = errorBars(plan, settings, opts.confidence, supportOf(scenario, plan.truncate));
  const note = releaseNote(scenario, value, bars.halfWidth, plan.truncate);
  const drawNote = rangeNote(scenario, plan.truncate ? [] : values);
  return {
    ...plan,
    guarantee,
    values,
    confidence: bars.confidence,
    halfWidth: bars.halfWidth,
    intervals: values.map(bars.interval),
    ...(note ? { note } : {}),
    ...(drawNote ? { drawNote } : {}),
  };
}

/**
 * The values a truncated release's true value may take, as its interval assumes: the laws' atoms
 * and the truncation interval (both public settings; never widened by the value itself, whose
 * interval would then reveal it).
 */
function supportOf(scenario: Scenario | GaussianScenario, truncate: [number, number] | null | undefined): [number, number] {
  const [lo, hi] = atomRange(scenario);
  return truncate ? [Math.min(lo, truncate[0]), Math.max(hi, truncate[1])] : [lo, hi];
}

/** The range of every secret's finite law (its smallest and largest atom); ℝ for laws with a density (fitted Gaussians). */
function atomRange(scenario: Scenario | GaussianScenario): [number, number] {
  let lo = Infinity,
    hi = -Infinity;
  for (const p of scenario.priors)
    for (const c of Object.values(p.conditionals))
      if ('values' in c && c.values.length) {
        lo = Math.min(lo, c.values[0]);
        hi = Math.max(hi, c.values[c.values.length - 1]);
      } else return [-Infinity, Infinity];
  return lo <= hi ? [lo, hi] : [-Infinity, Infinity];
}

/**
 * Released values outside the range the data takes (a negative count): the noise at work, safe to
 * publish, but readers ask; says how to keep releases in range. (Depends on the draws.)
 */
function rangeNote(scenario: Scenario | GaussianScenario, released: readonly number[]): string | undefined {
  const [lo, hi] = atomRange(scenario);
  const out = Number.isFinite(lo) ? released.filter((y) => y < lo || y > hi).length : 0;
  if (out === 0) return undefined;
  return `${out} released value(s) lie outside the range the data takes ([${lo}, ${hi}]): that is the noise, and publishing them keeps the guarantee; to keep releases in range, clip them (post-processing: the guarantee holds) or release with --truncate ${lo},${hi} (calibrated for the truncated law)`;
}

/**
 * What a curator should know about releasing `value`: it lies outside every secret's finite law
 * (the guarantee is about values the laws can produce), or the doubles there are further apart
 * than the noise's error bar (the released double may then be the value itself; the guarantee
 * still holds, rounding being post-processing of the exact output).
 * @example releaseNote(builtinScenario('heart'), -3, 0.8) // "the value -3 lies outside every secret's law (atoms in [0, 6.2]): …"
 */
function releaseNote(scenario: Scenario | GaussianScenario, value: number, halfWidth: number | null, truncate?: [number, number] | null): string | undefined {
  const notes: string[] = [];
  const [lo, hi] = atomRange(scenario);
  if (Number.isFinite(lo) && (value < lo || value > hi))
    notes.push(
      `the value ${value} lies outside every secret's law (atoms in [${lo}, ${hi}]): the guarantee is about values the laws can produce; check that they describe this data`,
    );
  const [s0, s1] = supportOf(scenario, truncate);
  if (truncate && (value < s0 || value > s1))
    notes.push(
      `the truncated release's intervals assume the true value lies in [${s0}, ${s1}] (the laws' atoms and the truncation interval); they do not cover ${value}`,
    );

  const spacing = nextUp(Math.abs(value)) - Math.abs(value);
  if (halfWidth !== null && halfWidth > 0 && spacing > halfWidth)
    notes.push(
      `doubles near ${value} are ${spacing} apart, wider than the noise's error bar ±${halfWidth}: the released double may be the value itself (the guarantee holds: rounding is post-processing of the exact output)`,
    );
  return notes.length ? notes.join('; ') : undefined;
}

/**
 * One row's draw, its refusals worded without the row's value: a column's values are data, and
 * an error message is output too.
 */
function drawRow(draw: ReleasePlan['draw'], value: number, random: RandomSource): number {
  try {
    return draw(value, random);
  } catch (e) {
    if (e instanceof InputError && e.path === 'truncate')
      throw new InputError(
        "some row's value lies where the truncated release cannot reach it at this scale (it lands in the interval with negligible probability, or no noise is calibrated to move it there); its value is not shown, being data: widen the interval to cover the column",
        'truncate',
      );
    throw e;
  }
}

/**
 * Privatizes a whole column the way the paper's experiments frame it: every row's value gets
 * independent noise calibrated once on the secret-conditional laws of that column. The
 * guarantee covers each row's secret under priors in which rows are independent. Missing
 * (non-finite) entries stay null and are counted. `interval(y)` is a released row's error bar.
 * @example releaseColumnFinite(builtinScenario('heart'), { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }, [1.4, null, 2.3]).missing // 1
 */
export function releaseColumnFinite(
  scenario: Scenario,
  settings: CalibrationSettings,
  column: readonly (number | null)[],
  opts: Omit<ReleaseOptions, 'count'> = {},
) {
  const random = opts.random ?? cryptoSource;
  const rows = column.map((v) => (typeof v === 'number' && Number.isFinite(v) ? v : null));
  if (!rows.some((v) => v !== null)) throw new InputError('has no finite values to release', 'column');
  checkConfidence(opts.confidence ?? DEFAULT_CONFIDENCE);
  const { draw, ...plan } = planRelease(scenario, settings, opts.truncate, opts.onProgress, opts);
  consentToNoNoise(plan, opts);
  const values = rows.map((v) => (v === null ? null : drawRow(draw, v, random)));
  const bars = errorBars(plan, settings, opts.confidence, supportOf(scenario, plan.truncate));
  return {
    ...plan,
    values,
    missing: rows.filter((v) => v === null).length,
    confidence: bars.confidence,
    halfWidth: bars.halfWidth,
    /** A released row's error bar (truncated releases: its exact interval, computed on demand). */
    interval: bars.interval,
    guarantee: `${plan.guarantee} Applied to each row independently: each row's secret is protected under priors where rows are independent.`,
  };
}
