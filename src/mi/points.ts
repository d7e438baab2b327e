import { checkSetting } from '../settings.js';
import { coordinateWeights, dimensionOf } from '../distribution/points.js';
import { userRecord } from '../records.js';

import { checkMiApplicable, secretProbabilities, type Prior } from '../distribution/scenario.js';
import { InputError, unknownName } from '../errors.js';
import { isNotApplicable, type MiBound, type PriorMoments } from '../mechanisms/mechanism.js';
import { mechanismDef } from '../mechanisms/registry.js';
import { dataProcessing, miReleases, type MiKind, type MiSettings } from '../mi/calibrateMI.js';
import { chargeMassError, discreteMutualInformation, momentsCharged, priorMassError } from '../mi/mutualInformation.js';
import { EPS } from '../numerics/float.js';
import type { ScaleProblem } from '../numerics/smallestScale.js';
import { atomsOf, coord, idLaws, type PointLaw, type PointScenario } from '../distribution/points.js';

/** Each coordinate's variance and mean absolute deviation under a prior (secrets weighted by π). */
function coordinateMoments(prior: Prior<PointLaw>, d: number, mu: number): PriorMoments[] {
  const pi = secretProbabilities(prior);
  return Array.from({ length: d }, (_, c) => {
    const xs: number[] = [],
      ws: number[] = [];
    for (const [s, m] of Object.entries(prior.conditionals))
      for (let k = 0; k < atomsOf(m); k++) {
        xs.push(coord(m, k, c));
        ws.push(pi[s] * m.masses[k]);
      }
    const mean = xs.reduce((a, x, k) => a + ws[k] * x, 0);
    return momentsCharged(
      { variance: xs.reduce((a, x, k) => a + ws[k] * (x - mean) ** 2, 0), mad: xs.reduce((a, x, k) => a + ws[k] * Math.abs(x - mean), 0) },
      mu,
    );
  });
}

/** I(X; S) of the data itself under a prior (vectors matched exactly, as atom ids). */
function dataMI(prior: Prior<PointLaw>, mu: number) {
  const secrets = Object.keys(prior.conditionals);
  const ids = idLaws(secrets.map((s) => prior.conditionals[s]));
  return chargeMassError(discreteMutualInformation({ ...prior, conditionals: userRecord(secrets.map((s, k) => [s, ids[k]])) }), mu);
}

/**
 * Upper bounds on I(Y; S) per prior at a given scale (the audit's MI rows for a vector query,
 * docs/math.md §12): the per-coordinate max-entropy bound summed, or the data's own I(X; S)
 * where smaller (data processing); each with its rounding charged.
 */
export function miBoundsPoints(
  scenario: PointScenario,
  s: { mechanism: MiSettings['mechanism']; scale: number; coordinateScales?: readonly number[] },
): { prior: string; atMost: number; how: 'max-entropy' | 'data-processing' }[] {
  checkMiApplicable(scenario);
  const d = dimensionOf(scenario);
  const w = s.coordinateScales ?? Array(d).fill(1);
  const bound = mechanismDef(s.mechanism).mi;
  if (isNotApplicable(bound)) throw new InputError(bound.notApplicable, 'mechanism');
  return scenario.priors.map((prior) => {
    const mu = priorMassError(scenario.massError, prior);
    const data = dataMI(prior, mu);
    const own = data.value + data.error;
    if (!(s.scale > 0)) return { prior: prior.name, atMost: own, how: 'data-processing' as const };
    let v = 0;
    for (const [c, m] of coordinateMoments(prior, d, mu).entries()) if (m.variance > 0) v += bound.value(m, w[c] * s.scale);
    const sum = v * (1 + (18 + d) * EPS);
    return sum < own ? { prior: prior.name, atMost: sum, how: 'max-entropy' as const } : { prior: prior.name, atMost: own, how: 'data-processing' as const };
  });
}

/**
 * Laws on ℝ^d for ε-MI Pufferfish (docs/math.md §7, §12): `mi-variance` per coordinate. Given X
 * the coordinates' noises are independent, so I(Y;S) ≤ I(Y;X) = h(Y) − h(Y|X) ≤ Σᵢ [h(Yᵢ) − h(Nᵢ)]
 * (subadditivity of entropy), each term the scalar max-entropy bound at scale wᵢ·s: Gaussian
 * ½ log(1 + Var Xᵢ/(wᵢσ)²), Laplace log(1 + E|Xᵢ − EXᵢ|/(wᵢb)). Exact MI of a d-dimensional
 * release would need a d-dimensional integral (refused; `best` is `mi-variance`).
 */
export const MI_POINTS: MiKind<PointScenario, PointLaw> = {
  check(scenario, st) {
    checkMiApplicable(scenario);
    coordinateWeights(scenario, st.coordinateScales);
    const d = dimensionOf(scenario);
    const bound = mechanismDef(st.mechanism).mi;
    if (isNotApplicable(bound)) throw new InputError(bound.notApplicable, 'mechanism');
    if (st.method === 'mi-exact')
      throw new InputError(`exact mutual information of a ${d}-dimensional release would need a ${d}-dimensional integral; use mi-variance`, 'method');
    if (st.method !== 'mi-variance' && st.method !== 'best')
      throw unknownName('method', st.method, ['mi-variance', 'best'], 'method', '', ' for --guarantee mi');
    checkSetting('epsilon', st.epsilon);
    miReleases(st);
  },
  best: (scenario) => ({ methods: ['mi-variance'], note: ` (mi-exact needs a ${dimensionOf(scenario)}-dimensional integral)` }),
  units(scenario, st) {
    const d = dimensionOf(scenario);
    const w = coordinateWeights(scenario, st.coordinateScales);
    const bound = mechanismDef(st.mechanism).mi as MiBound;
    const perRelease = miReleases(st);
    const eps = st.epsilon;
    return scenario.priors.map((prior) => {
      const mu = priorMassError(scenario.massError, prior);
      const ms = coordinateMoments(prior, d, mu);
      const data = dataMI(prior, mu);
      if (data.value + data.error <= eps) return { label: prior, problem: { zero: dataProcessing(data.value) } };
      const varying = ms.map((m, c) => ({ m, w: w[c] })).filter((x) => x.m.variance > 0);
      if (!varying.length) return { label: prior, problem: { zero: 'X is constant under this prior' } };
      // Every term ≤ ε is necessary (lower end); every term ≤ ε/d suffices (upper end): each is non-increasing in the scale.
      const lower = Math.max(...varying.map((x) => bound.closed(x.m, eps) / x.w));
      const upper = Math.max(...varying.map((x) => bound.closed(x.m, eps / varying.length) / x.w));
      const evaluate = (s: number) => {
        let v = 0;
        for (const x of varying) v += bound.value(x.m, x.w * s);
        // Each term is a log1p of one division or square root (a few ulps, 16·EPS relative as for one
        // coordinate), the product x.w·s one more, and the sum d roundings.
        return { value: v, error: (18 + varying.length) * EPS * v, target: eps, sense: 'le' as const };
      };
      const problem: ScaleProblem = { evaluate, lower: Math.min(lower, upper), upper };
      return { label: prior, problem: perRelease(problem) };
    });
  },
  text(scenario, st) {
    const d = dimensionOf(scenario);
    const def = mechanismDef(st.mechanism);
    return {
      rule: `${(def.mi as MiBound).rule}, summed over the ${d} coordinates (subadditivity; docs/math.md §12)`,
      prefix: `${d}-dimensional query, independent ${def.title} noise per coordinate (scale wᵢ·${def.symbol}). `,
      tail: { dimension: d, coordinateScales: [...coordinateWeights(scenario, st.coordinateScales)] },
    };
  },
};
