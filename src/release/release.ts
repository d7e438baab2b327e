import type { PointSettings } from '../calibrate/points.js';
import { ARRAY, checkShape, NUMBER, OBJECT } from '../shapes.js';
import { oneCoordinate } from '../calibrate/points.js';
import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import { InputError } from '../errors.js';
import { releaseColumnFinite, releaseFinite, type ReleaseOptions, type ReleaseResult } from './finite.js';
import { releasePoints, releasePointsColumn } from './points.js';

/** Truncated releases are for one number: the truncated law of a vector is not accounted. */
const noVectorTruncation = () => new InputError('is not available for vector queries yet', 'truncate');

export * from './finite.js';

/** A release of a vector-valued query: one vector per draw, an error bar per coordinate. */
export type PointReleaseResult = ReturnType<typeof releasePoints>;

/** A value on ℝ is one number; given as a list, a list of one. */
function oneNumber(value: number | readonly number[]): number {
  if (typeof value === 'number') return value;
  if (value.length !== 1) throw new InputError(`has ${value.length} coordinates; the query has 1`, 'value');
  return value[0];
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
  checkShape(OBJECT, settings, 'settings');
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) checkShape(NUMBER, value, 'value');
  const finite = (s: Parameters<typeof releaseFinite>[0]) => releaseFinite(s, oneCoordinate(settings), oneNumber(value), opts);
  return byLaw<ReleaseResult | PointReleaseResult>(
    scenario,
    {
      finite,
      mixture: finite,
      points: (s) => {
        if (opts.truncate) throw noVectorTruncation();
        return releasePoints(s, settings, typeof value === 'number' ? [value] : value, opts);
      },
    },
    'a release',
  );
}

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
): ReturnType<typeof releaseColumnFinite> | ReturnType<typeof releasePointsColumn> {
  checkShape(OBJECT, settings, 'settings');
  checkShape(ARRAY, rows, 'column');
  return byLaw<ReturnType<typeof releaseColumnFinite> | ReturnType<typeof releasePointsColumn>>(
    scenario,
    {
      finite: (s) => releaseColumnFinite(s, oneCoordinate(settings), rows as readonly (number | null)[], opts),
      points: (s) => {
        if (opts.truncate) throw noVectorTruncation();
        return releasePointsColumn(s, settings, rows as readonly (readonly (number | null)[])[], opts);
      },
    },
    "a column's release",
    'scenario',
    { mixture: { reason: "writes a table's own values; fitted Gaussian priors are for --value releases", field: 'fit' } },
  );
}
