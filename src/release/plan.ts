import { numberText } from '../numerics/decimal.js';
import { checkSetting } from '../settings.js';
import { calibrate, type CalibrateOptions, type CalibrationResult } from '../calibrate/calibrate.js';
import { calibrateEpsDelta, DEFAULT_DELTA_ALPHAS, ordersProgress, type EpsDeltaResult } from '../calibrate/epsDelta.js';
import type { PointSettings } from '../calibrate/kind.js';
import type { CalibrationSettings, Mechanism } from '../calibrate/rules.js';
import type { AnyScenario } from '../distribution/lawKind.js';
import type { Scenario } from '../distribution/scenario.js';
import type { PointScenario } from '../distribution/points.js';
import type { GaussianScenario } from '../distribution/mixture.js';
import { pointMass } from '../distribution/discrete.js';
import { logMassIn } from '../divergence/exactRenyi.js';
import { InputError } from '../errors.js';
import { checkLawsFor, mechanismDef } from '../mechanisms/registry.js';
import type { RandomSource } from '../sampling/random.js';
import { drawRelease } from '../sampling/samplers.js';
import { calibrateTruncated, NEGLIGIBLE_MASS, checkTruncation } from './truncated.js';
import { mechanismNoise } from '../calibrate/mechanismNoise.js';
import { checkConfidence, DEFAULT_CONFIDENCE, symmetricInterval, truncatedInterval } from './interval.js';
import { coordinateNoise, samplerFor } from './noise.js';

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

/** Truncated draws are refused when they would need more than this many tries on average. */
const MAX_EXPECTED_DRAWS = 1e5;

/** What a release of a number reports of how it was calibrated. */
export interface ReleaseBasis {
  mechanism: Mechanism;
  /** The method that set the scale (for `best`, the winner). */
  method: string;
  alpha: number;
  epsilon: number;
  parameter: 'b' | 'sigma' | 'theta';
  scale: number;
  truncate: [number, number] | null;
  calibration: CalibrationResult | null;
  /** With an (ε, δ) target: the target; `alpha` and `epsilon` are then the Rényi order and budget calibrated for. */
  target?: { epsilon: number; delta: number };
}

/**
 * A release calibrated once, of any kind of law (a number being a vector of length 1): the scale
 * and the calibration behind it, the noise on each coordinate, and the guarantee in words.
 */
export interface ReleasePlan extends ReleaseBasis {
  /** Coordinate i's noise is at coordinateScales[i]·scale (rounded up). */
  coordinateScales: number[];
  /** The guarantee of `what` ("each release", "the 3 releases together"). */
  guarantee(what: string): string;
  /** Per coordinate: the error bar's half-width, or null where the interval is exact (truncated noise). */
  halfWidths: (number | null)[];
  confidence: number;
  /** One release of `x` (the value itself when no noise is needed). */
  draw(x: readonly number[], random: RandomSource): number[];
  intervals(y: readonly number[]): [number, number][];
}

/** Refuses a zero-noise release unless it was asked for, saying why the scale is 0. */
export function consentToNoNoise(plan: Pick<ReleasePlan, 'scale' | 'calibration'>, opts: Pick<ReleaseOptions, 'allowNoNoise'>): void {
  if (plan.scale > 0 || opts.allowNoNoise) return;
  const why = plan.calibration?.explanation ?? 'no pair needs noise on this interval';
  throw new InputError(
    `the calibrated scale is 0, so the release would be the raw value (${why}) — this holds only if the adversary's belief is exactly in the prior class; pass --allow-no-noise to release it anyway, or widen the class: --contamination λ --domain LO,HI (every prior within λ of it), or --prior bootstrap:N or dirichlet:N`,
    'allow-no-noise',
  );
}

/**
 * The calibration a release draws at, on any kind of law: none at a given scale (null: the caller
 * vouches, a ledger having checked the joint level; `planRelease` checked the scale), for an (ε, δ) target the smallest scale over the
 * Rényi orders (`calibrateEpsDelta`, its progress counting every order's units, those passed over
 * included, so the bar ends full), else the Rényi target's (`calibrate`).
 */
function releaseCalibration(
  scenario: AnyScenario,
  settings: PointSettings,
  opts: Pick<ReleaseOptions, 'scale' | 'delta' | 'alphas' | 'onProgress'>,
  calibrateWith: CalibrateWith,
): CalibrationResult | EpsDeltaResult | null {
  const { onProgress } = opts;
  if (opts.scale !== undefined) return null;
  if (opts.delta === undefined) return calibrateWith(settings, { onProgress });
  const alphas = opts.alphas ?? DEFAULT_DELTA_ALPHAS;
  const progress = ordersProgress(onProgress, alphas.length);
  const { alpha: _ignored, ...rest } = settings;
  // The trial settings carry the rest of `settings` (a vector's coordinate weights too).
  const c = calibrateEpsDelta(scenario, { ...rest, epsilon: settings.epsilon, delta: opts.delta, alphas }, (st, tried) =>
    calibrateWith(st, { onProgress: progress.at(tried) }),
  );
  progress.finish();
  return c;
}

/** A kind's calibration at some settings (the built-in kinds': `calibrate` on the scenario). */
export type CalibrateWith = (settings: PointSettings, opts: CalibrateOptions) => CalibrationResult;

/**
 * Calibrates once for releases of a law on ℝ^d (truncated: on the truncated outputs, d = 1) and
 * says how to draw them. `givenWeights` are the coordinate weights a given scale is drawn at;
 * `calibrateWith` the kind's calibration (default `calibrate` on the scenario).
 */
export function planRelease(
  scenario: AnyScenario,
  settings: PointSettings,
  opts: ReleaseOptions,
  d: number,
  givenWeights: () => number[],
  calibrateWith: CalibrateWith = (st, o) => calibrate(scenario, st, o),
): ReleasePlan {
  const confidence = checkConfidence(opts.confidence ?? DEFAULT_CONFIDENCE);
  if (opts.scale !== undefined) {
    checkSetting('scale', opts.scale);
    if (opts.truncate) throw new InputError('a truncated release is calibrated on its truncated outputs; it takes no given scale', 'scale');
  }
  if (opts.delta !== undefined && opts.truncate)
    throw new InputError('truncated releases take a Rényi target (α, ε); (ε, δ) targets are not calibrated on truncated outputs yet', 'delta');
  if (opts.truncate) return planTruncated(scenario as Scenario | GaussianScenario, settings, opts.truncate, confidence);
  const c = releaseCalibration(scenario, settings, opts, calibrateWith);
  const def = mechanismDef(settings.mechanism);
  // At a given scale nothing calibrated checked the laws: a family on the integers needs integer laws (else two lattices).
  if (!c && def.composes === 'lattice' && !(scenario as Scenario).lawsNotApplicable) checkLawsFor(settings.mechanism, scenario as Scenario | PointScenario);
  const scale = c?.scale ?? (opts.scale as number);
  const weights = c ? (c.coordinateScales ?? Array<number>(d).fill(1)) : givenWeights();
  const noise = coordinateNoise(settings, scale, weights, confidence);
  return {
    mechanism: settings.mechanism,
    method: c ? (c.winner ?? c.method) : 'given scale',
    alpha: c?.alpha ?? settings.alpha,
    epsilon: c?.epsilon ?? settings.epsilon,
    parameter: def.parameter,
    scale,
    truncate: null,
    calibration: c,
    ...(c && 'target' in c ? { target: c.target } : {}),
    coordinateScales: [...weights],
    guarantee: (what) => (c ? calibratedGuarantee(scenario.name, settings, c, what, opts.delta) : givenGuarantee(scenario.name, settings, scale, weights)),
    halfWidths: noise.halfWidths,
    confidence,
    draw: noise.draw,
    intervals: noise.intervals,
  };
}

const whereOf = (name: string) => `for every prior and secret pair of '${name}'`;

/** A calibrated release's guarantee: the Rényi or (ε, δ) target for `what`, or no noise needed, and why. */
function calibratedGuarantee(name: string, settings: PointSettings, c: CalibrationResult, what: string, delta: number | undefined): string {
  const label =
    delta === undefined ? `(α=${numberText(c.alpha)}, ε=${c.epsilon})-Rényi Pufferfish privacy` : `(ε=${settings.epsilon}, δ=${delta})-Pufferfish privacy`;
  return c.scale === 0 ? `${label} ${whereOf(name)} with no noise: ${c.explanation}` : `${label} of ${what} ${whereOf(name)}. ${c.explanation}`;
}

/** A given scale's guarantee is the caller's (a ledger's joint level): the result says so. */
function givenGuarantee(name: string, settings: PointSettings, scale: number, weights: readonly number[]): string {
  const def = mechanismDef(settings.mechanism);
  const per = weights.some((w) => w !== 1) ? ` (coordinate i at wᵢ·${def.symbol}, w = ${weights.join(', ')})` : '';
  return `${def.title} noise at the given ${def.symbol} = ${scale}${per} for '${name}': not calibrated here; its guarantee is the joint level the ledger checked.`;
}

/**
 * A truncated release (one number): calibrated on the truncated outputs, its interval exact. A
 * draw first refuses a value whose interval probability is negligible, so no draw loops.
 */
function planTruncated(scenario: Scenario | GaussianScenario, settings: CalibrationSettings, truncate: [number, number], confidence: number): ReleasePlan {
  const [lo, hi] = truncate;
  checkTruncation(lo, hi);
  if ((settings.releases ?? 1) > 1) throw new InputError('truncated releases are calibrated one at a time', 'releases');
  if (settings.contamination) throw new InputError('truncated releases are not calibrated for a contamination class yet', 'contamination');
  const t = calibrateTruncated(scenario, settings, truncate);
  const support = supportOf(atomRange(scenario), truncate);
  const interval = (y: number): [number, number] =>
    t.scale === 0 ? symmetricInterval(y, 0) : truncatedInterval(y, mechanismNoise(settings, t.scale), truncate, confidence, support);
  const draw = truncatedDraw(settings, t.scale, truncate);
  return {
    mechanism: settings.mechanism,
    method: 'exact (truncated)',
    alpha: settings.alpha,
    epsilon: settings.epsilon,
    parameter: mechanismDef(settings.mechanism).parameter,
    scale: t.scale,
    truncate,
    calibration: null,
    coordinateScales: [1],
    guarantee: () =>
      `(α=${numberText(settings.alpha)}, ε=${settings.epsilon})-Rényi Pufferfish privacy of each release, truncated to [${numberText(lo)}, ${numberText(hi)}], ${whereOf(scenario.name)}. ${t.explanation}`,
    halfWidths: [t.scale === 0 ? 0 : null],
    confidence,
    draw: ([x], random) => [draw(x, random)],
    intervals: ([y]) => [interval(y)],
  };
}

/** One truncated draw by rejection, refused (with the estimate) where it would run for hours. */
function truncatedDraw(settings: CalibrationSettings, scale: number, truncate: [number, number]): (value: number, random: RandomSource) => number {
  const [lo, hi] = truncate;
  const noise = scale === 0 ? null : samplerFor(settings, scale);
  return (value, random) => {
    if (!noise) {
      // Scale 0 (no pair needs noise): the limit law is the value itself, which must lie in the interval.
      if (value >= lo && value <= hi) return value;
      throw new InputError(`value ${value} is outside [${lo}, ${hi}] and no noise is calibrated to move it there`, 'truncate');
    }
    const logMass = logMassIn(pointMass(value), mechanismNoise(settings, scale), truncate).value;
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
  };
}

/**
 * The values a truncated release's true value may take, as its interval assumes: the laws' atoms
 * and the truncation interval (both public settings; never widened by the value itself, whose
 * interval would then reveal it).
 */
export function supportOf(range: readonly [number, number], truncate: [number, number] | null | undefined): [number, number] {
  const [lo, hi] = range;
  return truncate ? [Math.min(lo, truncate[0]), Math.max(hi, truncate[1])] : [lo, hi];
}

/** The range of every secret's law on ℝ (its smallest and largest atom); ℝ for laws with a density (fitted Gaussians) or on ℝ^d. */
export function atomRange(scenario: AnyScenario): [number, number] {
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
