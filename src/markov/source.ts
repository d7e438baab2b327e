import { fromBinaryMasses, type Discrete } from '../distribution/discrete.js';
import type { Prior, Scenario, SourceMethod, SourceSettings } from '../distribution/scenario.js';
import { InputError } from '../errors.js';
import { userRecord } from '../records.js';
import { pointLaw, type PointLaw } from '../distribution/points.js';
import { neverPossibleNote, type MarkovModel } from './chain.js';
import { forEachChainLaws, TABLE_REFUSAL, type SecretLaw } from './laws.js';
import { eigengapOf, gk16, groupDp, mqmApprox, mqmExact, quiltChains, type EigengapClass } from './mqm.js';
import { precisionDown } from '../numerics/decimal.js';

/** A chain class under which no time has two states of positive probability: nothing to protect. */
export const noSecretPair = (): InputError => new InputError('no time has two possible states under any chain: there is no secret pair to protect', 'markov');

/** The secret "X_i = a" (1-based i, as people count days). */
const secretName = (time: number, state: string): string => `X[${time + 1}]=${state}`;

/** A chain law source: the scenario every method calibrates, and what it was built from. */
export interface MarkovSource {
  scenario: Scenario<Discrete> | Scenario<PointLaw>;
  model: MarkovModel;
  /** The largest relative error of a computed mass (before normalising). */
  relativeError: number;
}

/** The source methods calibrate a Laplace scale b (`parameter`) for one release without contamination. */
function laplaceOnly(s: SourceSettings, name: string): string | null {
  if ((s.releases ?? 1) > 1) return `${name} covers one release; Pufferfish guarantees do not compose, and the quilt bound is for one`;
  if (s.contamination) return `${name} has no contamination class`;
  return null;
}

function method(name: string, rule: string, scale: (s: SourceSettings) => { scale: number; explanation: string } | { notApplicable: string }): SourceMethod {
  return {
    name,
    rule,
    parameter: 'b',
    scale: (s) => {
      const why = laplaceOnly(s, name);
      return why ? { notApplicable: why } : scale(s);
    },
  };
}

/** Why a method reading the transition matrices does not apply to an eigengap class. */
const NO_MATRIX = (what: string) =>
  `${what} reads the chains' transition matrices; an eigengap class gives only (gap, π_min), which MQMApprox and GroupDP need`;

/**
 * The chain-level methods of Song, Wang and Chaudhuri (SIGMOD 2017) for ε-Pufferfish privacy of
 * a query with Lipschitz constant L (docs/math.md §13): GroupDP, GK16 (binary chains),
 * MQMApprox (the eigengap class) and MQMExact (the chains themselves).
 */
function chainMethods(model: MarkovModel): SourceMethod[] {
  const [T, L] = [model.length, model.lipschitz];
  // The chains' eigengap class, as the reference code computes it; computed on first use, and a
  // chain it cannot handle (no time reversal) leaves MQMApprox out with the reason.
  let gapClass: EigengapClass | undefined = model.eigengap;
  const eigengap = () =>
    (gapClass ??= model.chains
      .map((c) => eigengapOf(c.transition, c.transition.length === 2 ? 'binary' : 'multi'))
      .reduce((a, b) => ({ gap: Math.min(a.gap, b.gap), piMin: Math.min(a.piMin, b.piMin) })));
  const orReason = (f: () => { scale: number; explanation: string }) => {
    try {
      return f();
    } catch (e) {
      if (e instanceof InputError) return { notApplicable: e.reason };
      throw e;
    }
  };
  return [
    method('group-dp', 'group DP over the whole chain (L·T/ε)', (s) => ({
      scale: groupDp(T, s.epsilon, L),
      explanation: `group DP: b = L·T/ε = ${L}·${T}/${s.epsilon}.`,
    })),
    method('mqm-approx', 'Markov Quilt Mechanism, eigengap bound (Song et al. 2017)', (s) =>
      orReason(() => {
        const g = eigengap();
        return {
          scale: mqmApprox(g, T, s.epsilon, L),
          explanation: `MQMApprox for chains with eigengap ≥ ${precisionDown(g.gap, 6)} and π_min ≥ ${precisionDown(g.piMin, 6)}.`,
        };
      }),
    ),
    method('mqm-exact', 'Markov Quilt Mechanism, exact max-influence (Song et al. 2017)', (s) => {
      if (model.eigengap) return { notApplicable: NO_MATRIX('MQMExact') };
      const r = mqmExact(quiltChains(model), T, s.epsilon, { lipschitz: L });
      return {
        scale: r.scale,
        explanation: `MQMExact: the binding node X_${r.node} with its quilt ${r.a} before and ${r.b} after, maximised over ${model.chains.length} chain(s).`,
      };
    }),
    method('gk16', 'Ghosh–Kleinberg inferential privacy (binary chains)', (s) => {
      if (model.eigengap) return { notApplicable: NO_MATRIX('GK16') };
      let worst = 0;
      for (const c of model.chains) {
        const r = gk16(c.transition, T, s.epsilon, L);
        if ('notApplicable' in r) return r;
        worst = Math.max(worst, r.scale);
      }
      return { scale: worst, explanation: `GK16 over ${model.chains.length} chain(s).` };
    }),
  ];
}

/** One chain's secrets and laws as a prior: absent secrets where P(X_i = a) = 0. */
function chainPrior<C>(model: MarkovModel, chain: number, make: (law: SecretLaw, path: string) => C, track: (law: SecretLaw) => void): Prior<C> {
  const entries: [string, C][] = [];
  const probabilities: [string, number][] = [];
  const absent: string[] = [];
  forEachChainLaws(model, chain, (_start, time, laws) => {
    laws.forEach((law, a) => {
      const name = secretName(time, model.states[a]);
      if (!law) absent.push(name);
      else {
        track(law);
        entries.push([name, make(law, `markov.chains[${chain}]: ${name}`)]);
        probabilities.push([name, law.probability]);
      }
    });
  });
  return {
    name: model.chains[chain].name,
    conditionals: userRecord(entries),
    probabilities: userRecord(probabilities),
    ...(absent.length ? { absent } : {}),
  };
}

/** The chain's secret variables: X_i, whose values are the secrets X_i = a. */
const chainVariables = (model: MarkovModel) =>
  Array.from({ length: model.length }, (_, i) => ({ name: `X[${i + 1}]`, secrets: model.states.map((a) => secretName(i, a)) }));

/**
 * The scenario of a Markov chain law source (docs/math.md §13): per chain a prior whose
 * secrets are X_i = a for every time i and state a, each with the exact law of the query given
 * it; pairs (X_i = a, X_i = b) at the same time. The laws are computed in floating point, so the
 * scenario carries their relative mass error for the calibration to charge. Chains with initial
 * "any" and laws with masses below 2⁻¹⁰²² leave the per-pair methods out, saying why; the chain
 * methods (MQM, GK16, GroupDP) always apply.
 * @example markovScenario(validateSpec(spec), 'weather').scenario.pairs?.length
 */
export function markovScenario(model: MarkovModel, name: string, lengthField = 'markov.length'): MarkovSource {
  const methods = chainMethods(model);
  // Only the chain methods apply where the model gives no one law per secret: say why.
  const noLaws = (why: string): MarkovSource => ({ model, relativeError: 0, scenario: { name, priors: [], sourceMethods: methods, lawsNotApplicable: why } });
  if (model.eigengap)
    return noLaws(
      'an eigengap class ("eigengap": {gap, piMin}) names no chain, so there are no conditional laws; give "chains" (transition matrices) for the per-pair methods',
    );
  const anyStart = model.chains.find((c) => c.initial === 'any');
  if (anyStart)
    return noLaws(
      `chain '${anyStart.name}' may start anywhere ("initial": "any"): its conditional laws are mixtures over the start whose worst case is not one law; use a given or stationary initial law`,
    );
  // The laws are computed on first use: the chain methods need none, so a chain too long for the
  // exact laws' table still gets them (and `best` says why the per-pair methods are left out).
  let computed: ReturnType<typeof chainLaws> | { refused: InputError } | undefined;
  const laws = () =>
    (computed ??= (() => {
      try {
        return chainLaws(model);
      } catch (e) {
        if (e instanceof InputError && e.reason.startsWith(TABLE_REFUSAL)) return { refused: new InputError(e.reason, lengthField) };
        throw e;
      }
    })());
  const lawsOr = () => {
    const l = laws();
    if ('refused' in l) throw l.refused;
    return l;
  };
  const scenario = {
    name,
    get priors() {
      return lawsOr().priors;
    },
    get pairs() {
      return lawsOr().pairs;
    },
    get massError() {
      const l = laws();
      return 'refused' in l ? undefined : l.massError;
    },
    get lawsNotApplicable() {
      const l = laws();
      if ('refused' in l) return l.refused.message;
      return l.underflow
        ? `the law given ${l.underflow} has masses below 2^-1022, which the accountant's doubles cannot carry; shorten the chain (--length) or use the chain methods`
        : undefined;
    },
    sourceMethods: methods,
    notes: [neverPossibleNote(model)].filter(Boolean).map((n) => `${n[0].toUpperCase()}${n.slice(1)}.`),
    variables: chainVariables(model),
    lawKind: model.query.kind === 'histogram' ? ('points' as const) : ('finite' as const),
  };
  return {
    model,
    get relativeError() {
      const l = laws();
      return 'refused' in l ? 0 : l.eta;
    },
    scenario: scenario as unknown as Scenario<Discrete>,
  };
}

/** Every chain's prior of exact conditional laws, the secret pairs, and the laws' mass error (docs/math.md §13). */
function chainLaws(model: MarkovModel) {
  const T = model.length;
  let eta = 0;
  let underflow: string | null = null;
  const track = (law: SecretLaw) => {
    // A histogram's masses reach its point law as weights read as the decimals they print as: each
    // within 2^-53 of the double, so the law within a further 2·2^-53 after normalising.
    const read = law.kind === 'vector' ? ((1 + law.relativeError) * (1 + 2.02 * 2 ** -53) - 1) * (1 + 2 ** -50) : law.relativeError;
    eta = Math.max(eta, read);
    if (law.underflow > 0 && !underflow) underflow = secretName(law.time, model.states[law.state]);
  };
  const priors = model.chains.map((_, c) =>
    chainPrior<Discrete | PointLaw>(
      model,
      c,
      (law, path) =>
        law.kind === 'vector' ? pointLaw(law.vectors, { weights: Array.from(law.masses) }, path) : fromBinaryMasses(Array.from(law.values), law.masses, path),
      track,
    ),
  );
  const pairs: [string, string][] = [];
  for (let i = 0; i < T; i++)
    for (let a = 0; a < model.states.length; a++)
      for (let b = a + 1; b < model.states.length; b++) {
        const [sa, sb] = [secretName(i, model.states[a]), secretName(i, model.states[b])];
        if (priors.some((p) => sa in p.conditionals && sb in p.conditionals)) pairs.push([sa, sb]);
      }
  if (!pairs.length) throw noSecretPair();
  // Normalising the computed masses doubles their relative error (docs/math.md §13).
  return { priors: priors as Prior<Discrete>[], pairs, massError: (2 * eta) / (1 - eta), eta, underflow };
}
