import { numberText } from '../numerics/decimal.js';
import { checkSetting } from '../settings.js';
import { InputError } from '../errors.js';
import { nextUp } from '../numerics/float.js';
import { cryptoSource } from '../sampling/random.js';
import { consentToNoNoise, releaseCalibration, samplerFor, type ReleaseOptions } from './finite.js';
import { checkConfidence, DEFAULT_CONFIDENCE, symmetricInterval } from '../release/interval.js';
import { mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { drawRelease } from '../sampling/samplers.js';
import type { PointSettings } from '../calibrate/points.js';
import { coordinateWeights, type PointScenario } from '../distribution/points.js';

/** A vector release at a given common scale: no calibration, the weights checked as for one. */
function givenScale(scenario: PointScenario, settings: PointSettings, scale: number) {
  const w = coordinateWeights(scenario, settings.coordinateScales);
  const def = mechanismDef(settings.mechanism);
  return {
    mechanism: settings.mechanism,
    method: 'given scale',
    winner: undefined as string | undefined,
    alpha: settings.alpha,
    epsilon: settings.epsilon,
    parameter: def.parameter,
    scale,
    coordinateScales: w,
    explanation: `${def.title} noise at the given common ${def.symbol} = ${scale}: not calibrated here; its guarantee is the joint level the ledger checked.`,
  };
}

/** One calibration for vector releases, and how to draw a release of any vector value. */
function planVector(scenario: PointScenario, settings: PointSettings, opts: Omit<ReleaseOptions, 'truncate'>) {
  const { delta, onProgress } = opts;
  const confidence = checkConfidence(opts.confidence ?? DEFAULT_CONFIDENCE);
  // An (ε, δ) target: the smallest scale over the Rényi orders (calibrateEpsDelta), as for scalar releases.
  const c = releaseCalibration(scenario, settings, { ...opts, onProgress }) ?? givenScale(scenario, settings, opts.scale as number);
  const label =
    opts.scale !== undefined
      ? 'noise at a given scale, checked by the ledger, not calibrated here:'
      : delta === undefined
        ? `(α=${numberText(c.alpha)}, ε=${c.epsilon})-Rényi Pufferfish privacy`
        : `(ε=${settings.epsilon}, δ=${delta})-Pufferfish privacy`;
  if ('check' in c) consentToNoNoise({ scale: c.scale, calibration: c, truncate: null }, opts);
  const d = Object.values(scenario.priors[0].conditionals)[0].d;
  const w = c.coordinateScales ?? Array(d).fill(1);
  // Coordinate i's noise scale wᵢ·s, rounded up so it never falls below the certified one.
  const scales = w.map((wi) => (wi === 1 ? c.scale : nextUp(wi * c.scale)));
  const samplers = c.scale === 0 ? null : scales.map((si) => samplerFor(settings, si));
  // Each coordinate's error bar at its own noise scale: marginal, not simultaneous, coverage.
  const halfWidths = scales.map((si) => (c.scale === 0 ? 0 : mechanismDef(settings.mechanism).halfWidth(si, confidence, noiseOptions(settings))));
  const random = opts.random ?? cryptoSource;
  return {
    c,
    d,
    w,
    label,
    confidence,
    halfWidths,
    intervals: (y: readonly number[]) => y.map((yi, i) => symmetricInterval(yi, halfWidths[i])),
    target: delta === undefined ? undefined : { epsilon: settings.epsilon, delta },
    draw: (value: readonly number[]) => value.map((x, i) => (samplers ? drawRelease(x, samplers[i], { random }) : x)),
  };
}

/**
 * Privatizes the rows of a vector query (a table's several columns): one calibration, independent
 * noise per row and coordinate; a row missing any coordinate stays missing (counted).
 */
export function releasePointsColumn(
  scenario: PointScenario,
  settings: PointSettings,
  rows: readonly (readonly (number | null)[])[],
  opts: Omit<ReleaseOptions, 'truncate' | 'count'> = {},
) {
  const complete = rows.map((r) => (r.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (r as number[]) : null));
  if (!complete.some((r) => r !== null)) throw new InputError('has no rows with every query column present', 'column');
  const { c, w, label, target, draw, confidence, halfWidths } = planVector(scenario, settings, opts);
  return {
    values: complete.map((r) => (r === null ? null : draw(r))),
    confidence,
    halfWidths,
    missing: complete.filter((r) => r === null).length,
    scale: c.scale,
    parameter: c.parameter,
    method: c.winner ?? c.method,
    mechanism: c.mechanism,
    coordinateScales: [...w],
    ...(target ? { target } : {}),
    guarantee: `${label} of each row's released vector for every prior and secret pair of '${scenario.name}'. ${c.explanation} Applied to each row independently: each row's secret is protected under priors where rows are independent.`,
  };
}

/**
 * Privatizes a vector `value`: calibrates on the vector scenario (docs/math.md §12) and draws
 * `count` releases, each with independent noise on every coordinate (coordinate i at wᵢ·scale,
 * rounded up). `count` > 1 is calibrated for all releases together unless `perRelease`.
 * @example releasePoints({ name: 'v', priors: [{ name: 'p', conditionals: { a: pointLaw([[0, 0], [1, 1]], { counts: [3, 1] }), b: pointLaw([[0, 0], [1, 2]], { counts: [1, 3] }) } }] }, { mechanism: 'gaussian', method: 'best', alpha: 2, epsilon: 1 }, [12, 40]).values
 */
export function releasePoints(
  scenario: PointScenario,
  settings: PointSettings,
  value: readonly number[],
  opts: Omit<ReleaseOptions, 'truncate'> = {},
): {
  values: number[][];
  scale: number;
  parameter: string;
  method: string;
  mechanism: string;
  alpha: number;
  epsilon: number;
  guarantee: string;
  coordinateScales: number[];
  /** The probability, over the noise, that each coordinate's interval holds its true value (marginally). */
  confidence: number;
  /** Coordinate i's error bar is value ± halfWidths[i] (rounded up). */
  halfWidths: number[];
  /** Per release, per coordinate: [lo, hi]. */
  intervals: [number, number][][];
  /** With an (ε, δ) target: the target; `alpha` and `epsilon` are the Rényi order and budget calibrated for. */
  target?: { epsilon: number; delta: number };
} {
  const count = opts.count ?? 1;
  checkSetting('count', count);
  const d = Object.values(scenario.priors[0].conditionals)[0].d;
  if (value.length !== d) throw new InputError(`has ${value.length} coordinates; the query has ${d}`, 'value');
  value.forEach((x, i) => {
    if (!Number.isFinite(x)) throw new InputError(`coordinate ${i + 1} is not a finite number`, 'value');
  });
  const joint = count > 1 && !opts.perRelease;
  const { c, w, label, target, draw, confidence, halfWidths, intervals } = planVector(scenario, joint ? { ...settings, releases: count } : settings, opts);
  const values = Array.from({ length: count }, () => draw(value));
  const where = `for every prior and secret pair of '${scenario.name}'`;
  const guarantee =
    (c.scale === 0
      ? `${label} ${where} with no noise: ${c.explanation}`
      : `${label} of ${joint ? `the ${count} releases together` : 'each release'} ${where}. ${c.explanation}`) +
    (count > 1 && !joint && c.scale > 0
      ? ` This holds for each of the ${count} releases alone, not for them together: Pufferfish guarantees do not compose.`
      : '');
  return {
    values,
    scale: c.scale,
    parameter: c.parameter,
    method: c.winner ?? c.method,
    mechanism: c.mechanism,
    alpha: c.alpha,
    epsilon: c.epsilon,
    guarantee,
    coordinateScales: [...w],
    ...(target ? { target } : {}),
    confidence,
    halfWidths,
    intervals: values.map(intervals),
  };
}
