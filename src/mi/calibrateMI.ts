import { checkSetting } from '../settings.js';
import type { Mechanism } from '../calibrate/calibrate.js';
import type { Solution, Unit } from '../calibrate/driver.js';
import type { Discrete } from '../distribution/discrete.js';
import { noiseVariance } from '../calibrate/result.js';
import { bracketBelow } from '../numerics/bracket.js';
import { atSingleScale } from '../conditions/repeated.js';
import { isNotApplicable, type Accountant, type MechanismDef, type MiBound, type PriorMoments } from '../mechanisms/mechanism.js';
import { mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { secretProbabilities, type Prior, type Scenario, checkMiApplicable } from '../distribution/scenario.js';
import { InputError, unknownName } from '../errors.js';
import { EPS } from '../numerics/float.js';
import { isFeasible, smallestFeasibleScale, type Evaluation, type ScaleProblem } from '../numerics/smallestScale.js';
import { chargeMassError, discreteMutualInformation, exactMutualInformation, momentsCharged, priorMassError } from './mutualInformation.js';
import { precisionUp } from '../numerics/decimal.js';

export const MI_METHODS = ['mi-exact', 'mi-variance', 'best'] as const;
/** A mutual-information calibration method by name. */
export type MiMethod = (typeof MI_METHODS)[number];

/** What an ε-MI Pufferfish calibration takes: the noise family, the method and the budget in nats. */
export interface MiSettings {
  mechanism: Mechanism;
  method: MiMethod;
  /** Budget in nats: I(Y; S) ≤ ε for every prior (and public value). */
  epsilon: number;
  /** Releases of the same value, together (Gaussian only: the mean is sufficient; docs/math.md §9). */
  releases?: number;
}

/** Mean, variance and mean absolute deviation of X under a prior (secrets weighted by π). */
function moments(prior: Prior): PriorMoments {
  const pi = secretProbabilities(prior);
  const xs: number[] = [],
    ws: number[] = [];
  for (const [s, d] of Object.entries(prior.conditionals))
    d.values.forEach((x, k) => {
      xs.push(x);
      ws.push(pi[s] * d.masses[k]);
    });
  const mean = xs.reduce((a, x, k) => a + ws[k] * x, 0);
  return { variance: xs.reduce((a, x, k) => a + ws[k] * (x - mean) ** 2, 0), mad: xs.reduce((a, x, k) => a + ws[k] * Math.abs(x - mean), 0) };
}

/**
 * `mi-variance` (docs/math.md §7, ours): max-entropy bounds. Gaussian: I(Y;S) ≤ I(Y;X) ≤
 * ½ log(1 + Var X/σ²), so σ² = Var X/(e^{2ε} − 1) suffices (h(Y) ≤ ½ log 2πe(Var X + σ²), h(Y|X) = h(N)).
 * Laplace: the Laplace law maximises entropy at a given mean absolute deviation, so
 * I ≤ log(1 + E|X − EX|/b) and b = E|X − EX|/(e^ε − 1) suffices. Certified like every bound.
 */
function varianceProblem(prior: Prior, bound: MiBound, epsilon: number, mu: number): ScaleProblem | null {
  const m = momentsCharged(moments(prior), mu);
  if (m.variance === 0) return null;
  const closed = bound.closed(m, epsilon);
  // log1p and one division or square root: a few ulps; 16·EPS relative covers it with room.
  const evaluate = (s: number) => {
    const v = bound.value(m, s);
    return { value: v, error: 16 * EPS * v, target: epsilon, sense: 'le' as const };
  };
  return { evaluate, lower: closed, upper: closed };
}

/** Exact I(Y;S) ≤ ε as a condition at one scale. */
const exactEvaluation = (prior: Prior, noise: Accountant, s: number, epsilon: number, mu: number): Evaluation => {
  const r = chargeMassError(exactMutualInformation(prior, noise(s)), mu);
  return { value: r.value, error: r.error, target: epsilon, sense: 'le' };
};

/** One mutual-information calibration method (not `best`). */
export type MiSingleMethod = Exclude<MiMethod, 'best'>;

/** A calibration for I(Y; S) ≤ ε: typed apart from Rényi results (no α, units are priors, not pairs). */
export interface MiCalibrationResult {
  guarantee: 'mi';
  mechanism: Mechanism;
  method: MiMethod;
  /** With method `best`: the method that won, and every candidate's scale. */
  winner?: MiSingleMethod;
  candidates?: { method: MiSingleMethod; scale: number }[];
  /** Budget in nats. */
  epsilon: number;
  parameter: MechanismDef['parameter'];
  scale: number;
  variance: number;
  rule: string;
  /** The prior that needs the most noise and the secrets protected under it (null when none needs noise). */
  binding: { prior: string; secrets: string[] } | null;
  explanation: string;
  check: Evaluation | null;
  /** Each prior's own scale; `zeroReason` when it needs no noise. */
  priors: { prior: string; scale: number; zeroReason?: string }[];
  /** Releases of the same value the scale covers together (present when > 1). */
  releases?: number;
  /** Vector queries: the dimension, and coordinate i's noise weight (its scale is wᵢ·scale). */
  dimension?: number;
  coordinateScales?: number[];
}

/**
 * N releases of the same value for an MI guarantee: Gaussian noise only, as one release at the
 * sufficient scale (docs/math.md §9), so every condition is read there; the checked wrapper.
 */
export function miReleases(st: MiSettings): (p: ScaleProblem) => ScaleProblem {
  const n = st.releases ?? 1;
  checkSetting('releases', n, 'releases', String(st.releases));
  const sufficient = mechanismDef(st.mechanism).sufficientScale;
  if (n > 1 && !sufficient)
    throw new InputError(
      `mutual information of ${n} releases is accounted for Gaussian noise only (its mean is sufficient); ${st.mechanism} releases would need a ${n}-dimensional integral`,
      'releases',
    );
  return (p) =>
    n > 1 && sufficient
      ? atSingleScale(
          p,
          (x) => sufficient.toSingle(x, n),
          (x) => sufficient.fromSingle(x, n),
        )
      : p;
}

export const dataProcessing = (v: number) => `I(X;S) = ${precisionUp(v, 6)} nats ≤ ε for the data itself (data processing)`;

/** MI settings with a vector's coordinate weights (coordinate i's noise is wᵢ times the scale). */
export type MiKindSettings = MiSettings & { coordinateScales?: readonly number[] };

/**
 * What a kind of law supplies to the one ε-MI calibration (`calibrateMI`): the algorithm — `best`,
 * the priors solved together and re-checked, the result — is written once; a kind gives its checks,
 * its methods, its units (one per prior) and its words.
 */
export interface MiKind<S, C> {
  /** Checks the settings for this kind (the family's bound, the method's name, ε, releases). */
  check(scenario: S, st: MiKindSettings): void;
  /** The methods `best` runs, and what its explanation says of those left out. */
  best(scenario: S): { methods: readonly MiSingleMethod[]; note: string };
  /** One method's units: each prior's condition I(Y; S) ≤ ε. */
  units(scenario: S, st: MiKindSettings & { method: MiSingleMethod }): Unit<Prior<C>>[];
  /** The rule applied, words said before the explanation, and fields after the result's. */
  text(scenario: S, st: MiKindSettings & { method: MiSingleMethod }): { rule: string; prefix?: string; tail?: Partial<MiCalibrationResult> };
}

/**
 * Finite laws on ℝ for ε-mutual-information Pufferfish (Nuradha–Goldfeld; docs/math.md §7): per
 * prior (each public value is its own prior, so this bounds max_c I(Y; S | W = c) ≥ I(Y; S | W)),
 * `mi-variance`'s max-entropy bound, or `mi-exact` searching the exact MI (non-increasing in the
 * scale by data processing) below the certified `mi-variance` scale; 0 when I(X; S) ≤ ε already.
 */
export const MI_FINITE: MiKind<Scenario, Discrete> = {
  check(scenario, st) {
    checkMiApplicable(scenario);
    const def = mechanismDef(st.mechanism);
    if (isNotApplicable(def.mi)) throw new InputError(def.mi.notApplicable, 'mechanism');
    miReleases(st);
    const noise = def.accountant(noiseOptions({}));
    if (isNotApplicable(noise)) throw new InputError(noise.notApplicable, 'mechanism');
    if (!(MI_METHODS as readonly string[]).includes(st.method)) throw unknownName('method', st.method, MI_METHODS, 'method', 'one of ', ' for --guarantee mi');
    checkSetting('epsilon', st.epsilon);
  },
  best: () => ({ methods: ['mi-variance', 'mi-exact'], note: '' }),
  units(scenario, st) {
    const def = mechanismDef(st.mechanism);
    const miBound = def.mi as MiBound;
    const noise = def.accountant(noiseOptions({})) as Accountant;
    const n = st.releases ?? 1;
    const sufficient = def.sufficientScale;
    const perRelease = miReleases(st);
    return scenario.priors.map((prior) => {
      const mu = priorMassError(scenario.massError, prior);
      const single = varianceProblem(prior, miBound, st.epsilon, mu);
      const bound = single && perRelease(single);
      if (!bound) return { label: prior, problem: { zero: 'X is constant under this prior' } };
      const data = chargeMassError(discreteMutualInformation(prior), mu);
      const dataOk = data.value + data.error <= st.epsilon;
      // A budget so large that the closed form underflows to 0 (e^{2ε} = ∞): I(X;S) ≤ log #secrets is below it.
      if (!(bound.lower > 0) && dataOk) return { label: prior, problem: { zero: dataProcessing(data.value) } };
      if (st.method === 'mi-variance') return { label: prior, problem: bound };
      if (dataOk) return { label: prior, problem: { zero: dataProcessing(data.value) } };
      const vs = smallestFeasibleScale(bound).scale;
      const ev = (s: number) => exactEvaluation(prior, noise, n > 1 && sufficient ? sufficient.toSingle(s, n) : s, st.epsilon, mu);
      if (!isFeasible(ev(vs))) return { label: prior, problem: bound }; // keep the bound's certificate
      return { label: prior, problem: { evaluate: ev, ...bracketBelow(ev, vs), rtol: 1e-10 } };
    });
  },
  text: (_scenario, st) => ({
    rule: st.method === 'mi-exact' ? 'exact mutual information (docs/math.md §7)' : (mechanismDef(st.mechanism).mi as MiBound).rule,
  }),
};

/** A solved MI calibration (units are the priors) as its result: scale, binding prior, explanation. */
export function miResult<C>(scenario: Scenario<C>, st: MiSettings, rule: string, sol: Solution<Prior<C>>, prefix = ''): MiCalibrationResult {
  const def = mechanismDef(st.mechanism);
  const n = st.releases ?? 1;
  const units = sol.units;
  const top = sol.top.label;
  const secrets = Object.keys((sol.scale > 0 ? top : scenario.priors[0]).conditionals);
  return {
    guarantee: 'mi',
    mechanism: st.mechanism,
    method: st.method,
    epsilon: st.epsilon,
    parameter: def.parameter,
    scale: sol.scale,
    variance: noiseVariance({ mechanism: st.mechanism }, sol.scale),
    rule,
    binding: sol.scale > 0 ? { prior: top.name, secrets } : null,
    explanation:
      prefix +
      (n > 1 ? `For ${n} releases of the same value, together (one release at σ/√${n}, docs/math.md §9): ` : '') +
      (sol.scale > 0
        ? `${rule}: I(Y; S) ≤ ε = ${st.epsilon} nats over the secrets ${secrets.join(', ')}, maximised over ${units.length} prior(s); bound by prior '${top.name}'.`
        : `No noise needed: ${sol.units
            .map((u) => `${u.zeroReason} (prior '${u.label.name}')`)
            .slice(0, 3)
            .join('; ')}${units.length > 3 ? `; and likewise for ${units.length - 3} more priors` : ''}.`) +
      (scenario.massError
        ? ` The laws' floating-point error (relative ${scenario.massError.toPrecision(3)} per mass) is charged to every I(Y; S) (docs/math.md §7).`
        : ''),
    check: sol.check,
    priors: sol.units.map((u) => ({ prior: u.label.name, scale: u.scale, ...(u.zeroReason !== undefined ? { zeroReason: u.zeroReason } : {}) })),
    ...(n > 1 ? { releases: n } : {}),
  };
}
