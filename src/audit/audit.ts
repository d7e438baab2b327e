import { checkSetting, inRange, noDInfLevel } from '../settings.js';
import { checkShape, OBJECT } from '../shapes.js';
import type { AuditRow, AuditSettings, EmpiricalRow, MiAuditRow, MiRow } from './rows.js';
import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import { checkPointReleases, pointDirections, robustnessPoints } from '../account/points.js';
import { robustnessFinite, type RobustnessReport, type RobustnessSettings } from './robustness.js';
import { coord, coordinateWeights, dimensionOf, type PointLaw, type PointScenario } from '../distribution/points.js';
import { sampledAudit, type SampledLaw } from './sampled.js';
import { miBoundsPoints } from '../mi/points.js';
import { oneCoordinate } from '../calibrate/points.js';
import { isNotApplicable } from '../mechanisms/mechanism.js';
import { noiseOptions } from '../mechanisms/registry.js';

export type { AuditRow, AuditSettings, EmpiricalRow, MiRow } from './rows.js';
import { mechanismNoise } from '../calibrate/mechanismNoise.js';
import { mechanismDef } from '../mechanisms/registry.js';
import type { Scenario } from '../distribution/scenario.js';
import { pairCouplings } from '../coupling/pairs.js';
import type { Discrete } from '../distribution/discrete.js';
import { discreteRenyi, exactRenyi } from '../divergence/exactRenyi.js';
import { exactDInf, proportionalTails } from '../mechanisms/kernels.js';
import type { Bounded } from '../numerics/logExpectation.js';
import { InputError } from '../errors.js';
import { nextUp } from '../numerics/float.js';
import { massErrorCharge, checkMiApplicable, perVariable } from '../distribution/scenario.js';
import { auditRows, type AuditDirection, type CertifiedBound } from './directions.js';
import { chargeMassError, discreteMutualInformation, exactMutualInformation, priorMassError } from '../mi/mutualInformation.js';

/**
 * The audited directions of finite laws on ℝ (both unless the scenario is ordered): the exact D_α
 * of the released outputs, the data's own D_α (data processing), and at every finite order the
 * exact D∞ (D_α ≤ D∞: Rényi divergence is non-decreasing in α), which for Laplace-shaped noise is
 * also the ε-Pufferfish level. At scale 0 the data's own divergences.
 */
function finiteDirections(scenario: Scenario, s: AuditSettings): AuditDirection[] {
  const noise = mechanismNoise(s, s.scale > 0 ? s.scale : 1);
  const none = s.scale === 0;
  return pairCouplings(scenario).flatMap((pc) => {
    const dirs: [string, string, Discrete, Discrete][] = [[pc.pair[0], pc.pair[1], pc.p, pc.q]];
    if (!scenario.ordered) dirs.push([pc.pair[1], pc.pair[0], pc.q, pc.p]);
    return dirs.map(([from, to, p, q]): AuditDirection => {
      const sup = none ? discreteRenyi(p, q, Infinity) : exactDInf(noise, p, q);
      const data = (alpha: number): CertifiedBound => ({ ...discreteRenyi(p, q, alpha), certificate: 'data-processing', order: alpha });
      const own = (alpha: number): CertifiedBound =>
        alpha === Infinity
          ? { ...(sup ?? { value: Infinity, error: 0 }), certificate: 'sup-at-atoms', order: alpha }
          : { ...exactRenyi(p, q, noise, alpha), order: alpha };
      return {
        prior: pc.prior,
        pair: [pc.pair[0], pc.pair[1]],
        from,
        to,
        level: () => pufferfishLevel(sup, scenario.massError),
        bounds: (alpha) => [
          ...(none ? [data(alpha)] : [own(alpha), data(alpha)]),
          ...(alpha !== Infinity && sup ? [{ value: sup.value, error: sup.error, certificate: 'order-monotone' as const, order: Infinity }] : []),
        ],
      };
    });
  });
}

/**
 * What a kind of law supplies to the one audit (`auditKind`): its audited directions, each with
 * every certified bound on D_α that applies, after the checks only this kind makes.
 */
export interface AuditKind<S> {
  /** What this kind refuses before the settings every kind takes (a number audits one release). */
  check?(scenario: S, s: AnySettings): void;
  /** The audited directions (pairs both ways unless ordered), this kind's settings checked. */
  directions(scenario: S, s: AnySettings): AuditDirection[];
}

/** Finite laws on ℝ: one release (several are accounted by `account`), the exact divergences. */
const FINITE_AUDIT: AuditKind<Scenario> = {
  check: (_scenario, s) => {
    if (checkSetting('releases', s.releases ?? 1, 'releases', String(s.releases)) > 1)
      throw new InputError('audits one release of a value on ℝ: account several releases with `account` (the exact joint accountant)', 'releases');
    oneCoordinate(s);
  },
  directions: (scenario, s) => {
    const one = oneCoordinate(s);
    for (const a of one.alphas) {
      if (!(a > 0) || a === 1) throw new InputError(`α must be > 0 and ≠ 1, got ${a}`, 'alpha');
      const def = mechanismDef(one.mechanism);
      if (a === Infinity && def.alphaRange(a)) throw noDInfLevel(def.title);
    }
    return finiteDirections(scenario, one);
  },
};

/** Laws on ℝ^d: N releases together in the coupled bounds of `pointDirections`. */
const POINTS_AUDIT: AuditKind<PointScenario> = { check: (_scenario, s) => checkPointReleases(s), directions: pointDirections };

/**
 * The one audit, over a kind's hooks: the settings every kind takes checked, then the rows of the
 * kind's directions (`auditRows`), the laws' mass error charged. The example is a new kind: uniform
 * laws of one width at offsets a, where Laplace noise at b gives D_α ≤ D∞ ≤ |a − a′|/b.
 * @example
 * const uniforms = {
 *   directions: (s, st) => s.pairs.flatMap(([a, b]) => [[a, b], [b, a]].map(([x, y]) => ({
 *     prior: 'offsets', pair: [String(a), String(b)], from: String(x), to: String(y),
 *     level: () => Math.abs(a - b) / st.scale,
 *     bounds: (alpha) => [{ value: Math.abs(a - b) / st.scale, error: 0, certificate: 'coupled-bound', order: alpha }],
 *   }))),
 * };
 * auditKind(uniforms, { pairs: [[0, 1.5]] }, { mechanism: 'laplace', scale: 3, alphas: [2], epsilon: 0.5, delta: 1e-6 })[0].slack // 0
 */
export function auditKind<S extends { massError?: number }>(
  kind: AuditKind<S>,
  scenario: S,
  s: AnySettings,
  opts: { onProgress?: (done: number, total: number) => void } = {},
): AuditRow[] {
  checkShape(OBJECT, s, 'settings');
  kind.check?.(scenario, s);
  inRange('nonNegative', s.scale, 'scale');
  checkSetting('delta', s.delta);
  checkSetting('epsilon', s.epsilon);
  return auditRows(kind.directions(scenario, s), s, scenario.massError, opts.onProgress);
}

/**
 * The ε-Pufferfish level a row states: D∞ with its proven error and the laws' mass error added,
 * rounded up. The bare value can sit below the true D∞ by rounding (log p − log q of nearly equal
 * densities), and a stated level is a guarantee, so it is never below the truth.
 */
function pufferfishLevel(d: Bounded | null, massError: number | undefined): number | null {
  if (d === null) return null;
  const level = Math.max(0, d.value) + d.error + (massError ? massErrorCharge(massError, Infinity) : 0);
  return level === 0 || !Number.isFinite(level) ? level : nextUp(level);
}

/** I(Y; S) per prior at the audited scale, next to what the ε-Pufferfish level implies. */
async function auditMIFinite(scenario: Scenario, s: Pick<AuditSettings, 'mechanism' | 'scale' | 'eta' | 'cost'>): Promise<MiAuditRow[]> {
  checkMiApplicable(scenario);
  const noise = mechanismNoise(s, s.scale > 0 ? s.scale : 1);
  return scenario.priors.map((prior) => {
    // I(Y;S) ≤ I(X;S) (data processing): the data's own MI at scale 0, or where the
    // integration gives no usable answer (tiny scales).
    const mu = priorMassError(scenario.massError, prior);
    const data = chargeMassError(discreteMutualInformation(prior), mu);
    let r = s.scale > 0 ? chargeMassError(exactMutualInformation(prior, noise), mu) : { value: data.value, error: data.error, bits: data.value / Math.LN2 };
    if (!Number.isFinite(r.error) || r.value - r.error > data.value + data.error) r = { value: data.value, error: data.error, bits: data.value / Math.LN2 };
    let pp: number | null = null;
    if (proportionalTails(noise) && s.scale > 0) {
      const secrets = Object.keys(prior.conditionals);
      let e = 0;
      for (const a of secrets)
        for (const b of secrets)
          if (a !== b) e = Math.max(e, pufferfishLevel(exactDInf(noise, prior.conditionals[a], prior.conditionals[b]), scenario.massError)!);
      pp = e === 0 ? 0 : nextUp(e * Math.tanh(e / 2));
    }
    return { prior: prior.name, nats: r.value, bits: r.bits, error: r.error, impliedByPufferfish: pp };
  });
}

/** Settings of an audit of any law source: coordinate weights and N releases together apply to vector-valued queries. */
export type AnySettings = AuditSettings & { coordinateScales?: readonly number[]; releases?: number };

/**
 * Audits a noise scale: for every α, prior, pair and direction the certified D_α of the released
 * outputs with its slack to ε and the (ε′, δ) it implies. Finite laws on ℝ get the exact
 * divergence (and for Laplace-shaped noise the exact ε-Pufferfish level); laws on ℝ^d a certified
 * upper bound by joint convexity over a coupling (the transport's or a Knothe–Rosenblatt one, docs/math.md §12), of `releases`
 * releases together. N releases of a value on ℝ are accounted by `account`.
 * @example audit(builtinScenario('heart'), { mechanism: 'laplace', scale: 1, alphas: [2], epsilon: 1, delta: 1e-6 })[0].divergence
 */
export function audit(scenario: AnyScenario, s: AnySettings, opts: { onProgress?: (done: number, total: number) => void } = {}): AuditRow[] {
  return byLaw(scenario, { finite: (sc) => auditKind(FINITE_AUDIT, sc, s, opts), points: (sc) => auditKind(POINTS_AUDIT, sc, s, opts) }, 'the audit');
}

/**
 * Mutual information I(Y; S) per prior at the audited scale: exact (with its error) for finite laws
 * on ℝ, next to what the ε-Pufferfish level implies; a certified upper bound on ℝ^d (docs/math.md §12).
 * Per variable for secrets of several (a chain's X_i, `perVariable`); empty for noise without an MI bound.
 */
export async function auditMI(scenario: AnyScenario, s: Pick<AnySettings, 'mechanism' | 'scale' | 'eta' | 'cost' | 'coordinateScales'>): Promise<MiRow[]> {
  return byLaw<Promise<MiRow[]>>(
    perVariable(scenario),
    {
      finite: async (sc) => (isNotApplicable(mechanismDef(s.mechanism).accountant(noiseOptions(s))) ? [] : auditMIFinite(sc, s)),
      points: async (sc) => (isNotApplicable(mechanismDef(s.mechanism).mi) ? [] : miBoundsPoints(sc, s)),
    },
    'the MI audit',
  );
}

/**
 * The sample-based audit through the real release path (the samplers `release` uses, CSPRNG
 * randomness): X drawn from each secret's conditional, privatized, and the claimed (α, ε) tested
 * with `empiricalAudit` (on ℝ^d through d + 1 one-number statistics, docs/math.md §12).
 */
export function auditEmpirical(
  scenario: AnyScenario,
  s: AnySettings & { alpha: number; samples?: number; level?: number },
  opts: { onProgress?: (done: number, total: number) => void } = {},
): EmpiricalRow[] {
  return byLaw(
    scenario,
    {
      finite: (sc) => sampledAudit(sc, FINITE_ATOMS, [1], oneCoordinate(s), opts.onProgress),
      points: (sc) => {
        const product = mechanismDef(s.mechanism).product;
        if (isNotApplicable(product)) throw new InputError(product.notApplicable, 'mechanism');
        dimensionOf(sc);
        return sampledAudit(sc, POINT_ATOMS, coordinateWeights(sc, s.coordinateScales), s, opts.onProgress);
      },
    },
    'the empirical audit',
  );
}

/** A finite law on ℝ's atoms, each a vector of length 1. */
const FINITE_ATOMS: SampledLaw<Discrete> = { masses: (m) => m.masses, atom: (m, k) => [m.values[k]] };

/** A finite law on ℝ^d's atoms. */
const POINT_ATOMS: SampledLaw<PointLaw> = { masses: (m) => m.masses, atom: (m, k) => Array.from({ length: m.d }, (_, c) => coord(m, k, c)) };

/**
 * The guarantee at a given scale as a function of the contamination λ (docs/math.md §10): every
 * prior within λ of the class, mass moved anywhere in `domain` — one LO,HI range, or on ℝ^d one
 * per coordinate (a box; one range is used for every coordinate) — and the largest λ within ε.
 * @example robustness(builtinScenario('heart'), { mechanism: 'laplace', scale: 1, alpha: 2, epsilon: 1, domain: [0, 6.2] }).largestLambda
 */
export function robustness(
  scenario: AnyScenario,
  s: Omit<RobustnessSettings, 'domain'> & { domain: readonly [number, number] | readonly (readonly [number, number])[]; coordinateScales?: readonly number[] },
): RobustnessReport {
  const ranges = (typeof s.domain[0] === 'number' ? [s.domain] : s.domain) as readonly (readonly [number, number])[];
  return byLaw(
    scenario,
    {
      finite: (sc) => {
        if (ranges.length !== 1) oneCoordinate({ contamination: { box: ranges } });
        return robustnessFinite(sc, { ...oneCoordinate(s), domain: [ranges[0][0], ranges[0][1]] });
      },
      points: (sc) => {
        const d = dimensionOf(sc);
        return robustnessPoints(sc, { ...s, box: ranges.length === 1 ? Array(d).fill(ranges[0]) : ranges });
      },
    },
    'the robustness report',
  );
}
