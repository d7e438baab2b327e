import { InputError } from '../errors.js';
import { nextUp } from '../numerics/float.js';
import { cryptoSource } from '../release/random.js';
import { consentToNoNoise, samplerFor, type ReleaseOptions } from '../release/release.js';
import { drawRelease } from '../release/samplers.js';
import { calibrateVector, type VectorSettings } from './calibrate.js';
import type { VectorScenario } from './law.js';

const fmtAlpha = (a: number) => (a === Infinity ? '∞' : String(a));

/**
 * Privatizes a vector `value`: calibrates on the vector scenario (docs/math.md §12) and draws
 * `count` releases, each with independent noise on every coordinate (coordinate i at wᵢ·scale,
 * rounded up). `count` > 1 is calibrated for all releases together unless `perRelease`.
 * @example releaseVector(s, { mechanism: 'gaussian', method: 'best', alpha: 2, epsilon: 1 }, [12, 40]).values
 */
export function releaseVector(
  scenario: VectorScenario,
  settings: VectorSettings,
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
} {
  const count = opts.count ?? 1;
  if (!Number.isSafeInteger(count) || count < 1) throw new InputError(`must be a whole number ≥ 1, got ${String(count)}`, 'count');
  const d = Object.values(scenario.priors[0].conditionals)[0].d;
  if (value.length !== d) throw new InputError(`has ${value.length} coordinates; the query has ${d}`, 'value');
  value.forEach((x, i) => {
    if (!Number.isFinite(x)) throw new InputError(`coordinate ${i + 1} is not a finite number`, 'value');
  });
  const joint = count > 1 && !opts.perRelease;
  const c = calibrateVector(scenario, joint ? { ...settings, releases: count } : settings, { onProgress: opts.onProgress });
  const plan = { scale: c.scale, calibration: c, truncate: null };
  consentToNoNoise(plan, opts);
  const w = c.coordinateScales ?? Array(d).fill(1);
  // Coordinate i's noise scale wᵢ·s, rounded up so it never falls below the certified one.
  const samplers = c.scale === 0 ? null : w.map((wi) => samplerFor(settings, wi === 1 ? c.scale : nextUp(wi * c.scale)));
  const random = opts.random ?? cryptoSource;
  const values = Array.from({ length: count }, () => value.map((x, i) => (samplers ? drawRelease(x, samplers[i], { random }) : x)));
  const where = `for every prior and secret pair of '${scenario.name}'`;
  const guarantee =
    (c.scale === 0
      ? `(α=${fmtAlpha(c.alpha)}, ε=${c.epsilon})-Rényi Pufferfish privacy ${where} with no noise: ${c.explanation}`
      : `(α=${fmtAlpha(c.alpha)}, ε=${c.epsilon})-Rényi Pufferfish privacy of ${joint ? `the ${count} releases together` : 'each release'} ${where}. ${c.explanation}`) +
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
  };
}
