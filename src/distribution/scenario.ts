import { maxOf } from '../numerics/float.js';
import type { Discrete } from './discrete.js';
import { InputError, unknownName } from '../errors.js';
import { hasKey, userRecord } from '../records.js';

/** One adversary prior: the conditional law of X under each secret value. */
export interface Prior<C = Discrete> {
  readonly name: string;
  readonly conditionals: Readonly<Record<string, C>>;
  /** P(S = s) under this prior (needed for mutual information only); default uniform. */
  readonly probabilities?: Readonly<Record<string, number>>;
  /**
   * Secrets of the scenario this prior gives probability 0 (a public value without rows of
   * them). Named, never implied, so a misspelt secret is still refused: pairs with an absent
   * secret are not constrained under this prior, and the outputs list them.
   */
  readonly absent?: readonly string[];
}

/** The secret probabilities of a prior, normalised (uniform when the prior does not say). */
export function secretProbabilities<C>(p: Prior<C>): Record<string, number> {
  const names = Object.keys(p.conditionals);
  const raw = names.map((n) => (p.probabilities && hasKey(p.probabilities, n) ? p.probabilities[n] : 1));
  // Weights near 1e308 would overflow the sum to ∞ (every probability 0): then scale by the largest first.
  let scaled = raw;
  if (!Number.isFinite(raw.reduce((a, b) => a + b, 0))) {
    const top = maxOf(raw);
    scaled = raw.map((r) => r / top);
  }
  const total = scaled.reduce((a, b) => a + b, 0);
  return userRecord(names.map((n, i) => [n, scaled[i] / total]));
}

/** What the curator protects: priors, secret pairs, and whether pairs are ordered. */
export interface Scenario<C = Discrete> {
  readonly name: string;
  /** The prior class (conditionals are finite laws; `gaussianPriors/` takes Gaussian mixtures). */
  readonly priors: readonly Prior<C>[];
  /** Secret pairs; omitted = every unordered pair of the secrets of the first prior. */
  readonly pairs?: readonly (readonly [string, string])[];
  /** `true`: only the listed direction D(P_i‖P_j) must hold. Default false (both). */
  readonly ordered?: boolean;
  /**
   * The laws were computed in floating point: every mass of every conditional is within this
   * relative error of the true one (after normalising), and the calibration charges it to the budget.
   */
  readonly massError?: number;
  /**
   * W∞ may be read on laws within this relative tolerance of these (ties broken only by rounding
   * taken as ties, `comonotoneWInf`): set where the calibration charges it with `massError`.
   */
  readonly tieTolerance?: number;
  /** Methods of the law source itself (a chain's quilt mechanism needs the chain, not the pair laws). */
  readonly sourceMethods?: readonly SourceMethod[];
  /** Why the per-pair methods do not apply to these laws (then only `sourceMethods` do). */
  readonly lawsNotApplicable?: string;
  /** What a law source says of its secrets whatever the method (a chain's states of probability 0, which no secret names): told with every calibration. */
  readonly notes?: readonly string[];
  /**
   * The secrets are the values of several variables (a chain's X_i, one per time), each prior's
   * `probabilities` giving P(S = s) within each: I(Y; S) is then bounded for every variable, under
   * every prior (`perVariable`). Absent: the secrets are the values of one variable S.
   */
  readonly variables?: readonly SecretVariable[];
  /**
   * What a ledger binds instead of the laws, where they change with what is released: a data
   * source whose statistics are accounted together (docs/math.md §20) names itself by its table,
   * secret and rows, and its laws are those of the statistics recorded so far.
   */
  readonly identity?: string;
  /** The kind of the laws when the source knows it before computing them (a chain's: from its query). */
  readonly lawKind?: 'finite' | 'points' | 'mixture' | 'windows';
}

/** One secret variable: its name and the secrets that are its values. */
export interface SecretVariable {
  readonly name: string;
  readonly secrets: readonly string[];
}

/**
 * Refuses an MI computation that takes one secret variable on secrets of several (a chain's):
 * the per-variable guarantee is `perVariable`'s, which the MI calibration and audit apply.
 * @example checkMiApplicable(builtinScenario('heart')) // no error
 */
export function checkMiApplicable(s: Pick<Scenario<unknown>, 'variables' | 'lawsNotApplicable'>): void {
  if (s.lawsNotApplicable) throw new InputError(`has no laws for mutual information: ${s.lawsNotApplicable}`, 'spec.markov');
  if (s.variables)
    throw new InputError(
      `the secrets are the values of ${s.variables.length} variables (one per time of a chain), and this computation (a projection, a private mean, the sliced empirical MI audit) takes one secret variable; 'calibrate --guarantee mi' and 'audit' bound I(Y; X_i) for every i`,
      'guarantee',
    );
}

/**
 * The scenario whose priors are (prior, variable) pairs: for I(Y; S) ≤ ε for every variable S
 * under every prior, each is one prior of a one-variable scenario, its secrets that variable's
 * values with the prior's probabilities of them (normalised there: P(X_i = a) sums to 1 over a).
 * A one-variable scenario is returned as it is.
 * @example perVariable({ name: 's', priors: [{ name: 'c', conditionals: { a: pointMass(0), b: pointMass(1) } }], variables: [{ name: 'X', secrets: ['a', 'b'] }] }).priors[0].name // 'c: X'
 */
export function perVariable<S extends Scenario<unknown>>(s: S): S {
  return s.variables ? (splitByVariable(s, s.variables) as S) : s;
}

function splitByVariable<C>(s: Scenario<C>, variables: readonly SecretVariable[]): Scenario<C> {
  const { variables: _v, pairs: _p, ...rest } = s;
  const priors = s.priors.flatMap((p) =>
    variables.flatMap((v): Prior<C>[] => {
      const given = v.secrets.filter((n) => hasKey(p.conditionals, n));
      // A time with one possible state says nothing about it: I(Y; X_i) = 0 there.
      if (given.length < 2) return [];
      return [
        {
          name: `${p.name}: ${v.name}`,
          conditionals: userRecord(given.map((n) => [n, p.conditionals[n]])),
          ...(p.probabilities ? { probabilities: userRecord(given.map((n) => [n, p.probabilities![n]])) } : {}),
        },
      ];
    }),
  );
  return { ...rest, priors };
}

/** The settings a source method reads. */
export interface SourceSettings {
  readonly mechanism: string;
  readonly alpha: number;
  readonly epsilon: number;
  readonly releases?: number;
  readonly contamination?: unknown;
}

/**
 * A calibration the law source owns: its scale for the settings, or why it does not apply. An
 * ε-Pufferfish (α = ∞) scale serves every Rényi order, since D_α ≤ D_∞.
 */
export interface SourceMethod {
  readonly name: string;
  readonly rule: string;
  /** The noise parameter its scale is (`b`: a Laplace scale); other families do not apply. */
  readonly parameter: string;
  /** The method's scale for these settings, or why it does not apply. */
  scale(settings: SourceSettings): { scale: number; explanation: string } | { notApplicable: string };
}

/**
 * The source methods there are (a law source offers some of them: a Markov chain all four).
 * @example SOURCE_METHOD_NAMES // ['group-dp', 'gk16', 'mqm-approx', 'mqm-exact']
 */
export const SOURCE_METHOD_NAMES = ['group-dp', 'gk16', 'mqm-approx', 'mqm-exact'] as const;

/**
 * What charging a relative mass error η to the budget costs at order α: the true laws are within
 * a factor (1 ± η) of the computed ones at every output, so D_α(true) ≤ D_α(computed) + this
 * (docs/math.md §13). Rounded up by a relative 1e-9.
 * @example massErrorCharge(1e-12, 2) // ≈ 3e-12
 */
export function massErrorCharge(eta: number, alpha: number): number {
  if (!(eta > 0)) return 0;
  const up = Math.log1p(eta),
    down = -Math.log1p(-eta);
  const c = alpha === Infinity ? up + down : alpha > 1 ? (alpha / (alpha - 1)) * up + down : down / (1 - alpha);
  return c * (1 + 1e-9);
}

/**
 * Secrets of the scenario, after checking every prior names the same set, present or `absent` (≥ 2 secrets).
 * @example secretsOf(builtinScenario('heart')) // ['0', '1']
 */
export function secretsOf<C>(s: Scenario<C>): string[] {
  // A law source whose laws the per-pair methods cannot use says why (a chain that may start anywhere).
  if (s.priors.length === 0) {
    if (s.lawsNotApplicable) throw new InputError(`has no laws for this command: ${s.lawsNotApplicable}`, 'spec.markov');
    throw new InputError('needs at least one prior', 'priors');
  }
  const secrets = [...Object.keys(s.priors[0].conditionals), ...(s.priors[0].absent ?? [])];
  if (secrets.length < 2) {
    throw new InputError(`prior '${s.priors[0].name}' has ${secrets.length} secret(s); at least two are needed to form a pair`, 'priors[0].conditionals');
  }
  s.priors.forEach((p, i) => {
    const absent = p.absent ?? [];
    for (const name of absent) {
      if (hasKey(p.conditionals, name)) throw new InputError(`secret '${name}' is both absent and given a law`, `priors[${i}].absent`);
      if (!secrets.includes(name)) throw new InputError(`names secret '${name}' that prior '${s.priors[0].name}' lacks`, `priors[${i}].absent`);
    }
    for (const name of secrets) {
      if (!hasKey(p.conditionals, name) && !absent.includes(name))
        throw new InputError(`prior '${p.name}' is missing secret '${name}' (list it in "absent" if it has probability 0)`, `priors[${i}].conditionals`);
    }
    for (const name of Object.keys(p.conditionals)) {
      if (!secrets.includes(name))
        throw new InputError(`prior '${p.name}' has secret '${name}' that prior '${s.priors[0].name}' lacks`, `priors[${i}].conditionals`);
    }
  });
  return secrets;
}

/** Most (prior, pair) units a scenario may ask for: each is calibrated, so more would run out of memory or time. */
const MAX_PAIR_UNITS = 1_000_000;

/**
 * The declared pairs, or every unordered pair; each checked against the known secrets.
 * @example pairsOf(builtinScenario('heart')) // [['0', '1']]
 */
export function pairsOf<C>(s: Scenario<C>): [string, string][] {
  const secrets = secretsOf(s);
  const count = s.pairs ? s.pairs.length : (secrets.length * (secrets.length - 1)) / 2;
  if (count * s.priors.length > MAX_PAIR_UNITS)
    throw new InputError(
      `${secrets.length} secrets and ${s.priors.length} prior(s) make ${count * s.priors.length} (prior, pair) units, each calibrated; at most ${MAX_PAIR_UNITS}: name the secrets or pairs to protect`,
      'pairs',
    );
  if (!s.pairs) {
    const all: [string, string][] = [];
    for (let i = 0; i < secrets.length; i++) for (let j = i + 1; j < secrets.length; j++) all.push([secrets[i], secrets[j]]);
    return all;
  }
  if (s.pairs.length === 0) throw new InputError('is empty; omit it to protect every pair', 'pairs');
  return s.pairs.map(([a, b], k) => {
    for (const [name, idx] of [
      [a, 0],
      [b, 1],
    ] as const) {
      if (!secrets.includes(name)) throw unknownName('secret', name, secrets, `pairs[${k}][${idx}]`, 'known: ');
    }
    if (a === b) throw new InputError(`pairs a secret with itself ('${a}')`, `pairs[${k}]`);
    return [a, b];
  });
}

/** One prior and one secret pair whose two secrets it gives a law. */
export interface PriorPair<C> {
  readonly prior: Prior<C>;
  readonly pair: [string, string];
}

/**
 * Every (prior, pair) the guarantee constrains: pairs with a secret `absent` from a prior are
 * left out under it (and listed in `leftOut`); a pair constrained under no prior is refused.
 */
export function priorPairs<C>(s: Scenario<C>): { units: PriorPair<C>[]; leftOut: { prior: string; pair: [string, string] }[] } {
  const pairs = pairsOf(s);
  const units: PriorPair<C>[] = [];
  const leftOut: { prior: string; pair: [string, string] }[] = [];
  for (const prior of s.priors)
    for (const pair of pairs) {
      if (hasKey(prior.conditionals, pair[0]) && hasKey(prior.conditionals, pair[1])) units.push({ prior, pair });
      else leftOut.push({ prior: prior.name, pair });
    }
  if (units.length === 0) throw new InputError('no prior gives a law to both secrets of any pair', 'pairs');
  return { units, leftOut };
}

/** The relative tolerance within which W∞ is read on computed laws (2⁻⁴⁰), charged with their own error. */
export const TIE_TOLERANCE = 2 ** -40;

/**
 * The relative error to charge for a scenario's computed laws when the per-pair methods may also
 * read W∞ within `TIE_TOLERANCE` of them: (μ + τ)/(1 − τ) bounds the true laws against the
 * adjusted ones (docs/math.md §13); 0 for exact laws.
 * @example lawsError({ massError: 1e-12 } as Scenario) // ≈ 1.91e-12
 */
export function lawsError(s: Pick<Scenario<unknown>, 'massError'>): number {
  const mu = s.massError ?? 0;
  return mu > 0 ? ((mu + TIE_TOLERANCE) / (1 - TIE_TOLERANCE)) * (1 + 4 * Number.EPSILON) : 0;
}
