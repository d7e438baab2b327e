import { checkSetting } from '../settings.js';
import { ARRAY, checkShape, OBJECT, PROJECTION } from '../shapes.js';
import { secretProbabilities, type Scenario, checkMiApplicable } from '../distribution/scenario.js';
import type { Discrete } from '../distribution/discrete.js';
import { InputError } from '../errors.js';
import { EPS, nextUp } from '../numerics/float.js';
import { atomsOf, coord, type PointLaw } from '../distribution/points.js';
import { precisionUp } from '../numerics/decimal.js';

/** A fixed k×d matrix A (row-major): the projection mechanism releases A·f(X) + N(0, σ²I_k). */
export interface Projection {
  readonly k: number;
  readonly d: number;
  readonly rows: readonly (readonly number[])[];
}

/**
 * A projection from its rows: k ≥ 1 rows of d finite numbers each, not all zero.
 * @example projection([[1, 1]]).k // 1
 */
export function projection(rows: readonly (readonly number[])[], field = 'projection'): Projection {
  if (!Array.isArray(rows) || rows.length === 0 || !rows.every(Array.isArray)) throw new InputError('needs at least one row, each an array of numbers', field);
  const list: readonly (readonly number[])[] = rows;
  const d = list[0].length;
  if (d === 0) throw new InputError('rows need at least one entry', field);
  list.forEach((r, i) => {
    if (r.length !== d) throw new InputError(`row ${i + 1} has ${r.length} entries, row 1 has ${d}`, field);
    r.forEach((x, j) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) throw new InputError(`entry (${i + 1}, ${j + 1}) is not a finite number`, field);
    });
  });
  if (list.every((r) => r.every((x) => x === 0))) throw new InputError('is all zeros (it would release nothing)', field);
  return { k: list.length, d, rows: list.map((r) => [...r]) };
}

/**
 * A·x in floating point, coordinate by coordinate: the one function both the release and the
 * calibration apply, so the calibration bounds the law of exactly what is released.
 * @example project(projection([[1, 1], [1, -1]]), [3, 2]) // [5, 1]
 */
export function project(A: Projection, x: readonly number[]): number[] {
  checkShape(PROJECTION, A, 'projection');
  checkShape(ARRAY, x, 'x');
  if (x.length !== A.d) throw new InputError(`has ${x.length} coordinates; the projection takes ${A.d}`, 'x');
  return A.rows.map((r) => {
    let s = 0;
    for (let j = 0; j < A.d; j++) s += r[j] * x[j];
    return s;
  });
}

/** The atoms of a conditional as d-vectors (a scalar law is d = 1). */
export function lawAtoms(law: Discrete | PointLaw): { points: number[][]; masses: Float64Array } {
  if ('points' in law)
    return { points: Array.from({ length: atomsOf(law) }, (_, k) => Array.from({ length: law.d }, (_, i) => coord(law, k, i))), masses: law.masses };
  return { points: Array.from(law.values, (v) => [v]), masses: law.masses };
}

/**
 * An upper bound on tr Cov(g(X)) for a map g into ℝ^k under one prior (secrets weighted by their
 * probabilities): E‖Y − c‖² ≥ tr Cov(Y) for every c, so any computed centre gives an upper bound,
 * and only the rounding of a sum of non-negative terms (and of their weights) is charged. A spread
 * that overflows is refused, naming `field`.
 */
export function spreadBound(prior: Scenario<Discrete | PointLaw>['priors'][number], g: (x: number[]) => number[], k: number, field: string): number {
  const pi = secretProbabilities(prior);
  const ys: number[][] = [];
  const ws: number[] = [];
  for (const [s, law] of Object.entries(prior.conditionals)) {
    const { points, masses } = lawAtoms(law);
    points.forEach((x, i) => {
      ys.push(g(x));
      ws.push(pi[s] * masses[i]);
    });
  }
  const centre = Array.from({ length: k }, (_, j) => ys.reduce((a, y, i) => a + ws[i] * y[j], 0));
  let sum = 0;
  ys.forEach((y, i) => {
    let sq = 0;
    for (let j = 0; j < k; j++) sq += (y[j] - centre[j]) ** 2;
    sum += ws[i] * sq;
  });
  if (!Number.isFinite(sum)) throw new InputError(`the values' spread overflows under prior '${prior.name}' (it reaches ±∞): scale the query down`, field);
  // Each term carries (k + 4)·EPS of rounding and the sum n·EPS more; weights sum to 1 within n·EPS.
  // Terms in the subnormal range lose relative accuracy: each operation may add 2⁻¹⁰⁷⁴ absolutely.
  return nextUp(sum * (1 + (2 * ys.length + k + 8) * EPS) + (4 * ys.length * (k + 2) + 16) * 2 ** -1074);
}

/** A projection fits a query of d columns. */
export function checkProjectionWidth(A: Projection, d: number): void {
  if (d !== A.d) throw new InputError(`has ${A.d} columns, the query has ${d}`, 'projection');
}

/** tr Cov(A·f(X)) under one prior, bounded above, after checking A fits the query's columns. */
function projectedSpread(prior: Scenario<Discrete | PointLaw>['priors'][number], A: Projection): number {
  const d = lawAtoms(Object.values(prior.conditionals)[0]).points[0].length;
  checkProjectionWidth(A, d);
  return spreadBound(prior, (x) => project(A, x), A.k, 'projection');
}

/** Result of a projection calibration: its scale σ (the Gaussian noise's), the bound it meets, and the binding prior. */
export interface ProjectionCalibration {
  /** σ of the Gaussian noise on each released coordinate (named `scale`, as every calibration names its noise). */
  scale: number;
  parameter: 'sigma';
  variance: number;
  k: number;
  d: number;
  epsilon: number;
  /** The largest tr Cov(A·f(X)) over the priors (upper bound), and the prior it belongs to. */
  spread: number;
  binding: string | null;
  explanation: string;
}

/**
 * Calibrates the projection mechanism M = A·f(X) + N(0, σ²I_k) for ε-MI Pufferfish
 * (docs/math.md §15): I(M; S) ≤ I(M; A·f(X)) ≤ ½ log det(I + A Cov(f) Aᵀ/σ²) ≤
 * (k/2)·log(1 + tr(A Cov(f) Aᵀ)/(kσ²)), so σ² = max over priors of tr/(k·(e^{2ε/k} − 1))
 * suffices; the noise grows with k, not with d. `releases` of the same value at one σ are one
 * release at σ/√N (their mean is sufficient).
 * @example calibrateProjection(builtinScenario('heart'), { projection: projection([[1]]), epsilon: 0.05 }).scale
 */
export function calibrateProjection(
  scenario: Scenario<Discrete | PointLaw>,
  settings: { projection: Projection; epsilon: number; releases?: number },
): ProjectionCalibration {
  checkShape(OBJECT, settings, 'settings');
  const { projection: A, epsilon, releases = 1 } = settings;
  checkShape(PROJECTION, A, 'projection');
  checkMiApplicable(scenario);
  checkSetting('epsilon', epsilon);
  checkSetting('releases', releases);
  let spread = 0;
  let binding: string | null = null;
  for (const p of scenario.priors) {
    const t = projectedSpread(p, A);
    if (t > spread) [spread, binding] = [t, p.name];
  }
  // expm1 is within 1 ulp; the denominator is taken 32 ulps low (and the quotient rounded up), so σ²
  // sits above the bound by more than `projectionMI` charges for its own rounding: a calibrated σ
  // passes its audit.
  const denom = -nextUp(-(A.k * Math.expm1((2 * epsilon) / A.k) * (1 - 32 * EPS)));
  const variance = spread === 0 ? 0 : nextUp(nextUp((releases * spread) / denom));
  const sigma = variance === 0 ? 0 : nextUp(Math.sqrt(variance));
  const kText = `k = ${A.k} output coordinate(s) from d = ${A.d}`;
  return {
    scale: sigma,
    parameter: 'sigma',
    variance,
    k: A.k,
    d: A.d,
    epsilon,
    spread,
    binding,
    explanation:
      spread === 0
        ? `A·f(X) has one value under every prior: nothing to hide, no noise needed (${kText})`
        : `projection mechanism, ${kText}: σ² = N·tr(A Cov(f) Aᵀ) / (k(e^{2ε/k} − 1)) with tr ≤ ${precisionUp(spread, 6)} (prior '${binding}')${releases > 1 ? `, N = ${releases} releases together` : ''} (docs/math.md §15)`,
  };
}

/**
 * The ε-MI level a projection release at σ reaches: (k/2)·log(1 + N·tr/(kσ²)), rounded up,
 * maximised over the priors; for an audit or an account at a given scale.
 * @example projectionMI(builtinScenario('heart'), projection([[1]]), 2).value
 */
export function projectionMI(scenario: Scenario<Discrete | PointLaw>, A: Projection, sigma: number, releases = 1): { value: number; binding: string | null } {
  checkShape(PROJECTION, A, 'projection');
  checkMiApplicable(scenario);
  checkSetting('scale', sigma);
  let value = 0;
  let binding: string | null = null;
  for (const p of scenario.priors) {
    const t = projectedSpread(p, A);
    const v = nextUp(nextUp((A.k / 2) * Math.log1p((releases * t) / (A.k * sigma * sigma * (1 - 4 * EPS))) * (1 + 4 * EPS)));
    if (v > value) [value, binding] = [v, p.name];
  }
  return { value, binding };
}
