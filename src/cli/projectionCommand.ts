import { checkSetting } from '../settings.js';
import type { Scenario } from '../distribution/scenario.js';
import type { Discrete } from '../distribution/discrete.js';
import { InputError } from '../errors.js';
import { FAMILY_OF, mechanismDef, type Mechanism } from '../mechanisms/registry.js';
import { isNotApplicable } from '../mechanisms/mechanism.js';

/** The projection mechanism's and private means' noise: a Gaussian N(0, σ²I_k). */
const PROJECTION = FAMILY_OF.projection;
import type { Projection, ProjectionCalibration } from '../mi/projection.js';
import type { PointLaw } from '../distribution/points.js';
import { lawDimension, type AnyScenario } from '../distribution/lawKind.js';
import { asFlagError, gridSetting, notTakenBy, numberSetting, parseConfidence, refuseIn } from './flags.js';
import { jsonNumber, numDown, numUp, jsonText } from './format.js';
import { loadScenario, parseCoordinateScales, type CalibrateOptions } from './input.js';
import { checkMiApplicable } from '../distribution/scenario.js';
import { decimal } from './numbers.js';
import { decimalValue } from '../numerics/float.js';

/** What the projection commands read beyond the common flags. */
export interface ProjectionOptions extends CalibrateOptions {
  projection?: string;
  value?: string;
  count?: string;
  scale?: string;
}

type Laws = Scenario<Discrete | PointLaw>;

/** The scenario, its dimension and the projection, with every flag the mechanism does not take refused. */
async function load(o: ProjectionOptions): Promise<{ scenario: Laws; A: Projection; d: number; defaults: { epsilon?: number; releases?: number } }> {
  refuseIn('projection', o, notTakenBy('mi', o));
  if (o.mechanism !== undefined && o.mechanism !== PROJECTION) throw new InputError('the projection mechanism adds Gaussian noise N(0, σ²I_k)', '--mechanism');
  const { scenario, d } = await loadScenario(o, { vector: true });
  const dim = lawDimension(scenario);
  const { parseProjection } = await import('../sources/projection.js');
  const seed = numberSetting('seed', o.seed, 0);
  let A: Projection;
  try {
    A = parseProjection(o.projection!, dim, seed);
  } catch (e) {
    throw e instanceof InputError && e.path === 'projection' ? new InputError(e.reason, '--projection') : e;
  }
  return { scenario: scenario as Laws, A, d: dim, defaults: { epsilon: d.epsilon, releases: d.releases } };
}

/** The per-coordinate mi-variance σ of the same query, for the comparison the output reports. */
async function perCoordinate(scenario: Laws, epsilon: number, releases: number | undefined) {
  const settings = { mechanism: PROJECTION, method: 'mi-variance' as const, epsilon, ...(releases ? { releases } : {}) };
  return (await import('../mi/calibrate.js')).calibrateMI(scenario as AnyScenario, settings).scale;
}

const resultJson = (c: ProjectionCalibration) => ({ ...c, scale: jsonNumber(c.scale), variance: jsonNumber(c.variance) });

/** `calibrate --guarantee mi --projection …`: σ of the projection mechanism beside the per-coordinate bound. */
export async function calibrateProjectionCli(o: ProjectionOptions): Promise<void> {
  const { scenario, A, d, defaults } = await load(o);
  const { calibrateProjection } = await import('../mi/projection.js');
  const epsilons = gridSetting('epsilon', o.epsilon, defaults.epsilon);
  const releases = numberSetting('releases', o.releases, defaults.releases);
  const rows = await Promise.all(
    epsilons.map(async (epsilon) => {
      try {
        const c = calibrateProjection(scenario, { projection: A, epsilon, releases });
        const per = await perCoordinate(scenario, epsilon, releases);
        return { c, per, smaller: c.variance <= per * per ? 'projection' : 'mi-variance' };
      } catch (e) {
        throw asFlagError(e);
      }
    }),
  );
  if (o.json) {
    process.stdout.write(
      `${jsonText({ scenario: scenario.name, guarantee: 'mi', projection: { k: A.k, d: A.d, rows: A.rows }, results: rows.map((r) => ({ ...resultJson(r.c), perCoordinateScale: jsonNumber(r.per), smaller: r.smaller })) })}\n`,
    );
    return;
  }
  process.stdout.write(`${scenario.name}\nguarantee: I(M; S) ≤ ε nats (ε-MI Pufferfish), M = A·f(X) + N(0, σ²I_${A.k}), A ${A.k}×${A.d}\n\n`);
  for (const { c, per, smaller } of rows)
    process.stdout.write(
      `ε = ${c.epsilon}: projection σ = ${numUp(c.scale)} (${c.k} released number(s)); per-coordinate mi-variance σ = ${numUp(per)} (${d} number(s)); smaller σ: ${smaller}\n  ${c.explanation}\n`,
    );
}

/** `release --projection …`: k numbers A·x + N(0, σ²I_k), each with its error bar. */
export async function releaseProjectionCli(o: ProjectionOptions): Promise<void> {
  const confidence = parseConfidence(o.confidence);
  if (o.value === undefined) throw new InputError('is required (the true value: one number per query column, A,B,…)', '--value');
  const { scenario, A, d, defaults } = await load(o);
  const parts = o.value.split(',').map((x) => x.trim());
  const x = parts.map((t) => decimalValue(t));
  if (x.length !== d || !x.every(Number.isFinite)) throw new InputError(`must be ${d} finite number(s) separated by commas, got '${o.value}'`, '--value');
  const count = numberSetting('count', o.count);
  const epsilon = gridSetting('epsilon', o.epsilon, defaults.epsilon);
  if (epsilon.length !== 1) throw new InputError('release takes one ε', '--epsilon');
  const { calibrateProjection, project } = await import('../mi/projection.js');
  const { coordinateNoise } = await import('../release/noise.js');
  const { cryptoSource } = await import('../sampling/random.js');
  let c: ProjectionCalibration;
  try {
    c = calibrateProjection(scenario, { projection: A, epsilon: epsilon[0], releases: count });
  } catch (e) {
    throw asFlagError(e);
  }
  if (c.scale === 0) throw new InputError(`the calibrated σ is 0 (${c.explanation}); there is nothing to release with noise`, '--projection');
  const y = project(A, x);
  // N(0, σ²I_k): every coordinate of A·x at σ, so one half-width for all.
  const noise = coordinateNoise(
    { mechanism: PROJECTION },
    c.scale,
    y.map(() => 1),
    confidence,
  );
  const h = noise.halfWidths[0];
  const values = Array.from({ length: count }, () => noise.draw(y, cryptoSource));
  const guarantee = `I(M; S) ≤ ${c.epsilon} nats for every prior of '${scenario.name}'${count > 1 ? ` for the ${count} releases together` : ''}. ${c.explanation}`;
  if (o.json) {
    const releases = values.map((v) => ({ value: v, interval: noise.intervals(v).map((iv) => iv.map(jsonNumber)) }));
    process.stdout.write(
      `${jsonText({ scenario: scenario.name, mechanism: PROJECTION, projection: { k: A.k, d: A.d }, parameter: 'sigma', scale: c.scale, guarantee, confidence, halfWidth: h, values, releases })}\n`,
    );
    return;
  }
  process.stdout.write(
    `${scenario.name}\nprojection mechanism: ${A.k} number(s) A·x + N(0, σ²), σ = ${c.scale}\nguarantee: ${guarantee}\nerror bars ±${numUp(h)} on each released coordinate of A·x (${confidence} of its noise)\n\nvalue\tintervals\n`,
  );
  process.stdout.write(
    values
      .map(
        (v) =>
          `${v.join(',')}\t${noise
            .intervals(v)
            .map(([lo, hi]) => `[${numDown(lo)}, ${numUp(hi)}]`)
            .join(' ')}\n`,
      )
      .join(''),
  );
}

/** `audit --guarantee mi --projection … --scale σ`: the ε-MI level a projection release at σ reaches. */
export async function auditProjectionCli(o: ProjectionOptions): Promise<void> {
  if (o.scale === undefined) throw new InputError('is required (the σ of the projection release to audit)', '--scale');
  const sigma = decimal(o.scale, '--scale');
  const { scenario, A, defaults } = await load(o);
  const releases = numberSetting('releases', o.releases, defaults.releases);
  const { projectionMI } = await import('../mi/projection.js');
  let r: { value: number; binding: string | null };
  try {
    r = projectionMI(scenario, A, sigma, releases);
  } catch (e) {
    throw e instanceof InputError && e.path === 'scale' ? new InputError(e.reason, '--scale') : asFlagError(e);
  }
  const epsilon = o.epsilon ? decimal(o.epsilon, '--epsilon') : defaults.epsilon;
  const verdict = epsilon === undefined ? null : r.value <= epsilon ? 'pass' : 'fail';
  if (verdict === 'fail') (await import('./exitCode.js')).setCommandExit((await import('./exitCode.js')).EXIT.checkFailed);
  if (o.json) {
    process.stdout.write(
      `${jsonText({ scenario: scenario.name, guarantee: 'mi', projection: { k: A.k, d: A.d }, parameter: 'sigma', scale: sigma, releases, mi: r.value, binding: r.binding, epsilon: epsilon ?? null, verdict })}\n`,
    );
    return;
  }
  process.stdout.write(
    `${scenario.name}\nprojection release at σ = ${sigma}${releases > 1 ? `, ${releases} releases together` : ''}: I(M; S) ≤ ${numUp(r.value)} nats (prior '${r.binding}')${verdict ? `\nverdict: ${verdict} (ε = ${epsilon})` : ''}\n`,
  );
}

/**
 * `calibrate --data T --query mean:COL[,COL…] … --epsilon E [--target-mse M]`: ε-MI noise for the
 * mean of the table's rows (i.i.d. within the class), its expected squared error, and the rows a
 * target error needs. n is the number of rows the empirical law was tallied from.
 */
export async function calibrateMeanCli(o: ProjectionOptions & { targetMse?: string }): Promise<void> {
  if (!o.data) throw new InputError('mean:COL is a query of a table: give --data', '--query');
  refuseIn('miMean', o, notTakenBy('mi', o));
  if (o.mechanism !== undefined && o.mechanism !== PROJECTION) throw new InputError('a private mean adds Gaussian noise', '--mechanism');
  const columns = o.query!.slice('mean:'.length);
  if (columns.trim() === '') throw new InputError('names no column: mean:COL[,COL…]', '--query');
  const { scenario } = await loadScenario({ ...o, query: columns }, { vector: true });
  const empirical = scenario.priors.find((p) => p.name === 'empirical') ?? scenario.priors[0];
  const n = Object.values(empirical.conditionals).reduce((a, law) => a + Number((law as Discrete | PointLaw).denominator), 0);
  const { calibrateMean, meanSampleSize } = await import('../mi/mean.js');
  const epsilons = gridSetting('epsilon', o.epsilon);
  const target = o.targetMse === undefined ? undefined : decimal(o.targetMse, '--target-mse');
  if (target !== undefined) checkSetting('target-mse', target, '--target-mse', `'${o.targetMse}'`);
  const rows = epsilons.map((epsilon) => {
    try {
      return {
        c: calibrateMean(scenario as Laws, { epsilon, rows: n }),
        needed: target === undefined ? null : meanSampleSize(scenario as Laws, { epsilon, targetMse: target }),
      };
    } catch (e) {
      throw asFlagError(e);
    }
  });
  if (o.json) {
    process.stdout.write(
      `${jsonText({ scenario: scenario.name, guarantee: 'mi', query: o.query, rows: n, results: rows.map(({ c, needed }) => ({ ...c, ...(target !== undefined ? { targetMse: target, rowsNeeded: needed } : {}) })) })}\n`,
    );
    return;
  }
  process.stdout.write(
    `${scenario.name}\nguarantee: I(M; S) ≤ ε nats (ε-MI Pufferfish) for the mean of ${n} rows, assumed i.i.d. under every prior of the class\n\n`,
  );
  for (const { c, needed } of rows)
    process.stdout.write(
      `ε = ${c.epsilon}: σ = ${numUp(c.scale)} on each of ${c.d} coordinate(s); expected squared error ${numUp(c.mse)} (sampling ${numUp(c.rowSpread / n)} + noise ${numUp(c.d * c.variance)})${needed !== null ? `; rows for MSE ≤ ${target}: ${needed}` : ''}\n  ${c.explanation}\n`,
    );
}

/**
 * `audit --empirical --guarantee mi --scale S [--projection …] [--samples N] [--level A]`: draws N
 * releases through the real release path (exact samplers, the CSPRNG) under the class's first
 * prior and runs the sliced-MI test of "ε-MI Pufferfish holds" (docs/math.md §17).
 */
export async function auditSlicedCli(o: ProjectionOptions & { samples?: string; level?: string; empirical?: boolean }): Promise<void> {
  if (o.scale === undefined) throw new InputError('is required (the noise scale of the releases to test)', '--scale');
  const scale = decimal(o.scale, '--scale');
  checkSetting('scale', scale, '--scale', `'${o.scale}'`);
  refuseIn('miEmpirical', o, notTakenBy('mi', o));
  const samples = numberSetting('samples', o.samples, undefined, 'mi');
  const level = numberSetting('level', o.level, undefined, 'mi');
  const { scenario, d: defaults } = await loadScenario(o, { vector: true });
  const epsilon = o.epsilon ? decimal(o.epsilon, '--epsilon') : (defaults.epsilon ?? 1);
  if (!(epsilon >= 0) || !Number.isFinite(epsilon)) throw new InputError(`must be a finite number ≥ 0, got '${o.epsilon}'`, '--epsilon');
  const laws = scenario as Laws;
  checkMiApplicable(laws);
  const dim = lawDimension(scenario);
  const weights = parseCoordinateScales(o.coordinateScales) ?? (defaults.coordinateScales as number[] | undefined);
  if (weights && (o.projection !== undefined || weights.length !== dim))
    throw new InputError(
      o.projection !== undefined ? 'is not taken with --projection (A·f(X) gets N(0, σ²I_k))' : `needs ${dim} weights`,
      '--coordinate-scales',
    );
  const { coordinateNoise } = await import('../release/noise.js');
  const { cryptoSource } = await import('../sampling/random.js');
  const { drawSecretReleases, slicedMiTest, slicedMiSamples } = await import('../audit/slicedMI.js');
  const mechanism = (o.mechanism ?? PROJECTION) as Mechanism;
  const def = mechanismDef(mechanism);
  if (isNotApplicable(def.mi))
    throw new InputError(`the sliced-MI audit draws releases of the noise the MI guarantee covers: ${def.mi.notApplicable}`, '--mechanism');
  let release: (x: number[]) => number[];
  if (o.projection !== undefined) {
    if (mechanism !== PROJECTION) throw new InputError('the projection mechanism adds Gaussian noise', '--mechanism');
    const { parseProjection } = await import('../sources/projection.js');
    const { project } = await import('../mi/projection.js');
    const A = parseProjection(o.projection, dim, numberSetting('seed', o.seed, 0));
    const noise = coordinateNoise({ mechanism: PROJECTION }, scale, Array<number>(A.k).fill(1));
    release = (x) => noise.draw(project(A, x), cryptoSource);
  } else {
    // Coordinate i at wᵢ·scale, rounded up, as the release draws it.
    const noise = coordinateNoise({ mechanism }, scale, weights ?? Array<number>(dim).fill(1));
    release = (x) => noise.draw(x, cryptoSource);
  }
  const prior = laws.priors[0];
  const { draws, probabilities, secrets } = drawSecretReleases(prior, release, samples);
  const r = slicedMiTest(draws, probabilities, epsilon, { level });
  const forDouble = epsilon > 0 ? slicedMiSamples(2 * epsilon, epsilon, secrets.length, level) : null;
  if (r.reject) (await import('./exitCode.js')).setCommandExit((await import('./exitCode.js')).EXIT.checkFailed);
  if (o.json) {
    process.stdout.write(
      `${jsonText({ scenario: scenario.name, guarantee: 'mi', prior: prior.name, mechanism, scale, samples, ...r, verdict: r.reject ? 'violation' : 'no violation found', samplesToDetectTwiceEpsilon: forDouble })}\n`,
    );
    return;
  }
  process.stdout.write(
    `${scenario.name}\n${r.explanation}\nprior '${prior.name}'; ${forDouble !== null ? `${forDouble} draws would detect, with probability ≥ 0.8, a leak whose classifier bound reaches 2ε = ${2 * epsilon}` : ''}\nverdict: ${r.reject ? 'violation' : 'no violation found (not evidence of privacy: the certified bounds decide)'}\n`,
  );
}

/**
 * `account --projection … --release mechanism=gaussian,scale=σ …`: the ε-MI level of several
 * projection releases of the same value together. Their precision-weighted mean is sufficient,
 * so they are one release at σ_eff = (Σ 1/σᵢ²)^(−1/2) (docs/math.md §15).
 */
export async function accountProjectionCli(
  o: ProjectionOptions & { next?: string },
  releases: readonly { mechanism: string; scale: number; columns?: string[]; coordinates?: number[] }[],
): Promise<void> {
  if (o.next !== undefined)
    throw new InputError('is not taken with --projection (calibrate the next release for the budget left with calibrate --releases)', '--next');
  if (releases.length === 0) throw new InputError("name the projection releases made (repeat --release 'mechanism=gaussian,scale=S')", '--release');
  if (releases.some((r) => r.mechanism !== PROJECTION)) throw new InputError('projection releases carry Gaussian noise: mechanism=gaussian', '--release');
  if (releases.some((r) => r.columns || r.coordinates))
    throw new InputError('each projection release publishes A·f(X) whole: columns= and coordinates= are not taken with --projection', '--release');
  const { scenario, A } = await load({ ...o, releases: undefined });
  const { projectionMI } = await import('../mi/projection.js');
  // Σ 1/σᵢ² rounded down and σ_eff up would only lower the level; round the precision up instead.
  const precision = releases.reduce((a, r) => a + 1 / (r.scale * r.scale), 0) * (1 + 4 * releases.length * Number.EPSILON);
  const sigmaEff = 1 / Math.sqrt(precision) / (1 + 2 * Number.EPSILON);
  const joint = projectionMI(scenario, A, sigmaEff);
  const each = releases.map((r) => projectionMI(scenario, A, r.scale).value);
  const naive = each.reduce((a, b) => a + b, 0);
  if (o.json) {
    process.stdout.write(
      `${jsonText({ scenario: scenario.name, guarantee: 'mi', projection: { k: A.k, d: A.d }, releases: releases.map((r) => r.scale), parameter: 'sigma', effectiveScale: sigmaEff, mi: joint.value, binding: joint.binding, each, naiveSum: naive })}\n`,
    );
    return;
  }
  process.stdout.write(
    `${scenario.name}\n${releases.length} projection release(s) of the same value, as one at σ_eff = ${numUp(sigmaEff)}: I(M₁…M_N; S) ≤ ${numUp(joint.value)} nats (prior '${joint.binding}'); each alone: ${each.map(numUp).join(', ')} (naive sum ${numUp(naive)})\n`,
  );
}
