import type { PointSettings } from '../calibrate/kind.js';
import { calibrate, type CalibrateOptions, type CalibrationResult } from '../calibrate/calibrate.js';
import { ARRAY, checkShape, NUMBER, OBJECT } from '../shapes.js';
import { oneCoordinate } from '../calibrate/kind.js';
import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import { coordinateWeights, type PointScenario } from '../distribution/points.js';
import { InputError } from '../errors.js';
import { checkSetting } from '../settings.js';
import { nextUp } from '../numerics/float.js';
import { mechanismDef } from '../mechanisms/registry.js';
import { cryptoSource, type RandomSource } from '../sampling/random.js';
import { atomRange, consentToNoNoise, planRelease, supportOf, type ReleaseBasis, type ReleaseOptions, type ReleasePlan } from './plan.js';

export type { ReleaseBasis, ReleaseOptions } from './plan.js';
export { samplerFor } from './noise.js';

/** Released values with their error bars, the scale and method used, and the guarantee in words. */
export interface ReleaseResult extends ReleaseBasis {
  values: number[];
  guarantee: string;
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

/** A release of a vector-valued query: one vector per draw, an error bar per coordinate. */
export interface PointReleaseResult {
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
}

/**
 * What differs between a release of a number (laws on ℝ: finite, fitted Gaussians) and of a
 * vector (laws on ℝ^d): how the value is read and the settings checked, the weights a given scale
 * is drawn at, the range of the laws' atoms (for the notes). Everything else is one release.
 */
export interface ReleaseShape {
  vector: boolean;
  d: number;
  settings: PointSettings;
  /** The coordinate weights a given scale is drawn at. */
  givenWeights(): number[];
  /** The smallest and largest atom of every secret's law (ℝ where the laws have a density or live on ℝ^d). */
  range(): [number, number];
}

/**
 * What a kind of law supplies to the one release (`releaseKind`): its shape and its calibration
 * (the built-in kinds', `calibrate`; a new kind's, `calibrateKind` over its hooks).
 */
export interface ReleaseKind<S> {
  /** The release's shape on this scenario (`column`: a table column's rows are released). */
  shape(scenario: S, settings: PointSettings, operation: string, column: boolean): ReleaseShape;
  /** The calibration a release draws at. */
  calibrate(scenario: S, settings: PointSettings, opts: CalibrateOptions): CalibrationResult;
}

/** The built-in kinds: the shape read from the kind of law once, the one `calibrate`. */
const BUILT_IN: ReleaseKind<AnyScenario> = {
  shape: (scenario, settings, operation, column) => {
    const scalar = (): ReleaseShape => ({ vector: false, d: 1, settings: oneCoordinate(settings), givenWeights: () => [1], range: () => atomRange(scenario) });
    return byLaw<ReleaseShape>(
      scenario,
      {
        finite: scalar,
        // A column's rows are a table's own values, which fitted Gaussian priors do not describe.
        ...(column ? {} : { mixture: scalar }),
        points: (s) => ({
          vector: true,
          d: Object.values(s.priors[0].conditionals)[0].d,
          settings,
          givenWeights: () => coordinateWeights(s as PointScenario, settings.coordinateScales),
          range: () => [-Infinity, Infinity],
        }),
      },
      operation,
      'scenario',
      column ? { mixture: { reason: "writes a table's own values; fitted Gaussian priors are for --value releases", field: 'fit' } } : {},
    );
  },
  calibrate,
};

/** Truncated releases are for one number: the truncated law of a vector is not accounted. */
const noVectorTruncation = () => new InputError('is not available for vector queries yet', 'truncate');

/** Integer noise (geometric) releases integers: a value off the integers would be released off them too. */
const onLattice = (mechanism: PointSettings['mechanism']) => mechanismDef(mechanism).composes === 'lattice';

/** The value as a vector of the query's length (a number on ℝ is a list of one). */
function valueVector(value: number | readonly number[], shape: ReleaseShape): number[] {
  const x = typeof value === 'number' ? [value] : [...value];
  if (x.length !== shape.d) throw new InputError(`has ${x.length} coordinates; the query has ${shape.d}`, 'value');
  x.forEach((xi, i) => {
    if (!Number.isFinite(xi))
      throw new InputError(shape.vector ? `coordinate ${i + 1} is not a finite number` : `must be a finite number, got ${String(xi)}`, 'value');
  });
  return x;
}

/**
 * Privatizes `value` (a number, or on ℝ^d a vector): calibrates the mechanism on the scenario
 * (truncated: on the truncated outputs) and draws `count` independent releases with the exact
 * samplers, each with its error bar (per coordinate on ℝ^d). `count` > 1 is calibrated for all
 * releases together unless `perRelease`, and the guarantee says which: Pufferfish guarantees do
 * not compose.
 * @example release(builtinScenario('heart'), { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1 }, 1.4).values
 */
export function release(scenario: AnyScenario, settings: PointSettings, value: number, opts?: ReleaseOptions): ReleaseResult;
export function release(
  scenario: AnyScenario,
  settings: PointSettings,
  value: number | readonly number[],
  opts?: ReleaseOptions,
): ReleaseResult | PointReleaseResult;
export function release(
  scenario: AnyScenario,
  settings: PointSettings,
  value: number | readonly number[],
  opts: ReleaseOptions = {},
): ReleaseResult | PointReleaseResult {
  return releaseKind(BUILT_IN, scenario, settings, value, opts);
}

/**
 * The one release, over a kind's hooks (`release` is it on the built-in kinds): the value read in
 * the kind's shape, the releases calibrated once (together unless `perRelease`), drawn with the
 * exact samplers and the CSPRNG, each with its error bar and the guarantee in words. The example
 * releases a number at the scale a new kind's calibration gives (here one of the built-in scenario's).
 * @example
 * const heart = builtinScenario('heart');
 * const kind = {
 *   shape: (_s, settings) => ({ vector: false, d: 1, settings, givenWeights: () => [1], range: () => [0, 6.2] }),
 *   calibrate: (s, settings, opts) => calibrate(s, settings, opts),
 * };
 * releaseKind(kind, heart, { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }, 1.4).values.length // 1
 */
export function releaseKind<S extends { name: string }>(
  kind: ReleaseKind<S>,
  scenario: S,
  settings: PointSettings,
  value: number | readonly number[],
  opts: ReleaseOptions = {},
): ReleaseResult | PointReleaseResult {
  checkShape(OBJECT, settings, 'settings');
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) checkShape(NUMBER, value, 'value');
  const shape = kind.shape(scenario, settings, 'a release', false);
  if (shape.vector && opts.truncate) throw noVectorTruncation();
  const x = valueVector(value, shape);
  const count = opts.count ?? 1;
  checkSetting('count', count);
  // N releases of one value are calibrated together unless asked otherwise (docs/math.md §9).
  const joint = count > 1 && !opts.perRelease;
  if (joint && opts.truncate)
    throw new InputError(
      `${count} truncated releases cannot be accounted together here (each truncated law needs its own integral); release one at a time, or ask for per-release calibration (--per-release) knowing the guarantee then holds for each release alone`,
      'count',
    );
  if (settings.releases !== undefined && settings.releases !== (joint ? count : 1))
    throw new InputError(`releases (${settings.releases}) and count (${count}) disagree: count releases are accounted together`, 'releases');
  // The (ε, δ) search and truncated laws read the built-in kinds' laws: a new kind releases at a Rényi target.
  if (kind !== (BUILT_IN as unknown) && (opts.delta !== undefined || opts.truncate))
    throw new InputError('(ε, δ) targets and truncated releases are available for the built-in kinds of law', opts.delta !== undefined ? 'delta' : 'truncate');
  const plan = planRelease(
    scenario as unknown as AnyScenario,
    joint ? { ...shape.settings, releases: count } : shape.settings,
    opts,
    shape.d,
    shape.givenWeights,
    (st, o) => kind.calibrate(scenario, st, o),
  );
  // After the calibration, which refuses the family on these laws (vectors, non-integer laws) first.
  x.forEach((xi, i) => {
    if (onLattice(settings.mechanism) && !Number.isSafeInteger(xi))
      throw new InputError(
        `${shape.vector ? `coordinate ${i + 1} ` : ''}must be a whole number below 2⁵³ for ${settings.mechanism} noise (its releases are integers), got ${xi}`,
        'value',
      );
  });
  consentToNoNoise(plan, opts);
  const random = opts.random ?? cryptoSource;
  const draws = Array.from({ length: count }, () => plan.draw(x, random));
  const guarantee =
    plan.guarantee(joint ? `the ${count} releases together` : 'each release') +
    (count > 1 && plan.scale > 0 && !joint
      ? ` This holds for each of the ${count} releases alone, not for them together: Pufferfish guarantees do not compose, and their joint leakage can exceed ${count}·ε.`
      : '');
  return shape.vector ? vectorResult(plan, guarantee, draws) : scalarResult(shape.range(), plan, guarantee, x[0], draws);
}

function vectorResult(plan: ReleasePlan, guarantee: string, draws: number[][]): PointReleaseResult {
  const { scale, parameter, method, mechanism, alpha, epsilon } = plan;
  return {
    values: draws,
    ...{ scale, parameter, method, mechanism, alpha, epsilon },
    guarantee,
    coordinateScales: plan.coordinateScales,
    ...(plan.target ? { target: plan.target } : {}),
    confidence: plan.confidence,
    halfWidths: plan.halfWidths as number[],
    intervals: draws.map(plan.intervals),
  };
}

/** A release's plan as a number's release reports it (this key order is the JSON's). */
function scalarFields(plan: ReleasePlan) {
  const { mechanism, alpha, epsilon, parameter, method, scale, truncate, calibration } = plan;
  return { mechanism, alpha, epsilon, parameter, method, scale, truncate, calibration, ...(plan.target ? { target: plan.target } : {}) };
}

function scalarResult(range: [number, number], plan: ReleasePlan, guarantee: string, value: number, draws: number[][]): ReleaseResult {
  const values = draws.map((v) => v[0]);
  const halfWidth = plan.halfWidths[0];
  const note = releaseNote(range, value, halfWidth, plan.truncate);
  const drawNote = rangeNote(range, plan.truncate ? [] : values);
  return {
    ...scalarFields(plan),
    guarantee,
    values,
    confidence: plan.confidence,
    halfWidth,
    intervals: draws.map((v) => plan.intervals(v)[0]),
    ...(note ? { note } : {}),
    ...(drawNote ? { drawNote } : {}),
  };
}

/**
 * Released values outside the range the data takes (a negative count): the noise at work, safe to
 * publish, but readers ask; says how to keep releases in range. (Depends on the draws.)
 */
function rangeNote([lo, hi]: [number, number], released: readonly number[]): string | undefined {
  const out = Number.isFinite(lo) ? released.filter((y) => y < lo || y > hi).length : 0;
  if (out === 0) return undefined;
  return `${out} released value(s) lie outside the range the data takes ([${lo}, ${hi}]): that is the noise, and publishing them keeps the guarantee; to keep releases in range, clip them (post-processing: the guarantee holds) or release with --truncate ${lo},${hi} (calibrated for the truncated law)`;
}

/**
 * What a curator should know about releasing `value`: it lies outside every secret's finite law
 * (the guarantee is about values the laws can produce), or the doubles there are further apart
 * than the noise's error bar (the released double may then be the value itself; the guarantee
 * still holds, rounding being post-processing of the exact output).
 */
function releaseNote(range: [number, number], value: number, halfWidth: number | null, truncate: [number, number] | null): string | undefined {
  const notes: string[] = [];
  const [lo, hi] = range;
  if (Number.isFinite(lo) && (value < lo || value > hi))
    notes.push(
      `the value ${value} lies outside every secret's law (atoms in [${lo}, ${hi}]): the guarantee is about values the laws can produce; check that they describe this data`,
    );
  const [s0, s1] = supportOf(range, truncate);
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
function drawRow(plan: ReleasePlan, x: readonly number[], random: RandomSource): number[] {
  try {
    return plan.draw(x, random);
  } catch (e) {
    if (e instanceof InputError && e.path === 'truncate')
      throw new InputError(
        "some row's value lies where the truncated release cannot reach it at this scale (it lands in the interval with negligible probability, or no noise is calibrated to move it there); its value is not shown, being data: widen the interval to cover the column",
        'truncate',
      );
    throw e;
  }
}

/** A row of a column (a number, or on ℝ^d a vector), or null when any entry is missing or not finite. */
function completeRow(row: number | null | readonly (number | null)[], shape: ReleaseShape): number[] | null {
  const x = shape.vector ? (row as readonly (number | null)[]) : [row as number | null];
  return x.every((v) => typeof v === 'number' && Number.isFinite(v)) ? (x as number[]) : null;
}

/** A column's release on ℝ: the release's fields, each row's error bar on demand. */
export type ColumnResult = Omit<ReleaseResult, 'values' | 'intervals' | 'note' | 'drawNote'> & {
  values: (number | null)[];
  missing: number;
  /** A released row's error bar (truncated releases: its exact interval, computed on demand). */
  interval(y: number): [number, number];
};

/** A column's release on ℝ^d: one vector per row, a row missing any coordinate stays missing. */
export type PointColumnResult = Omit<PointReleaseResult, 'values' | 'intervals' | 'alpha' | 'epsilon'> & { values: (number[] | null)[]; missing: number };

/**
 * Privatizes a whole column (on ℝ^d: the rows of several columns) the way the paper's experiments
 * frame it: every row gets independent noise calibrated once on the secret-conditional laws; the
 * guarantee covers each row's secret under priors in which rows are independent. Missing entries
 * stay null and are counted.
 * @example releaseColumn(builtinScenario('heart'), { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }, [1.4, null, 2.3]).missing // 1
 */
export function releaseColumn(
  scenario: AnyScenario,
  settings: PointSettings,
  rows: readonly (number | null)[] | readonly (readonly (number | null)[])[],
  opts: Omit<ReleaseOptions, 'count'> = {},
): ColumnResult | PointColumnResult {
  checkShape(OBJECT, settings, 'settings');
  checkShape(ARRAY, rows, 'column');
  const shape = BUILT_IN.shape(scenario, settings, "a column's release", true);
  if (shape.vector && opts.truncate) throw noVectorTruncation();
  const complete = rows.map((r) => completeRow(r, shape));
  if (!complete.some((r) => r !== null))
    throw new InputError(shape.vector ? 'has no rows with every query column present' : 'has no finite values to release', 'column');
  const plan = planRelease(scenario, shape.settings, opts, shape.d, shape.givenWeights);
  // The rows are data: the refusal names none of them.
  if (onLattice(settings.mechanism) && complete.some((r) => r?.some((v) => !Number.isSafeInteger(v))))
    throw new InputError(`has values that are not whole numbers below 2⁵³; ${settings.mechanism} noise releases integers`, 'column');
  consentToNoNoise(plan, opts);
  const random = opts.random ?? cryptoSource;
  const released = complete.map((r) => (r === null ? null : drawRow(plan, r, random)));
  const missing = complete.filter((r) => r === null).length;
  const n = shape.settings.releases ?? 1;
  const guarantee = `${plan.guarantee(n > 1 ? `the ${n} releases together` : shape.vector ? "each row's released vector" : 'each release')} Applied to each row independently: each row's secret is protected under priors where rows are independent.`;
  if (shape.vector) {
    const { scale, parameter, method, mechanism } = plan;
    return {
      values: released,
      confidence: plan.confidence,
      halfWidths: plan.halfWidths as number[],
      missing,
      ...{ scale, parameter, method, mechanism },
      coordinateScales: plan.coordinateScales,
      ...(plan.target ? { target: plan.target } : {}),
      guarantee,
    };
  }
  return {
    ...scalarFields(plan),
    guarantee,
    values: released.map((v) => (v === null ? null : v[0])),
    missing,
    confidence: plan.confidence,
    halfWidth: plan.halfWidths[0],
    interval: (y) => plan.intervals([y])[0],
  };
}
