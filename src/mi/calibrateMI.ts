import type { CalibrationResult, Mechanism } from '../calibrate/calibrate.js';
import { isNotApplicable, type Accountant, type MiBound, type PriorMoments } from '../mechanisms/mechanism.js';
import { mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { secretProbabilities, type Prior, type Scenario } from '../calibrate/scenario.js';
import { InputError, NumericalError } from '../errors.js';
import { EPS } from '../numerics/float.js';
import { isFeasible, smallestFeasibleScale, type Evaluation, type ScaleProblem } from '../numerics/smallestScale.js';
import { discreteMutualInformation, exactMutualInformation } from './mutualInformation.js';

export const MI_METHODS = ['mi-exact', 'mi-variance', 'best'] as const;
export type MiMethod = (typeof MI_METHODS)[number];

export interface MiSettings {
  mechanism: Mechanism;
  method: MiMethod;
  /** Budget in nats: I(Y; S) ≤ ε for every prior (and public value). */
  epsilon: number;
}

/** Mean, variance and mean absolute deviation of X under a prior (secrets weighted by π). */
function moments(prior: Prior): PriorMoments {
  const pi = secretProbabilities(prior);
  const xs: number[] = [], ws: number[] = [];
  for (const [s, d] of Object.entries(prior.conditionals)) d.values.forEach((x, k) => { xs.push(x); ws.push(pi[s] * d.masses[k]); });
  const mean = xs.reduce((a, x, k) => a + ws[k] * x, 0);
  return { variance: xs.reduce((a, x, k) => a + ws[k] * (x - mean) ** 2, 0), mad: xs.reduce((a, x, k) => a + ws[k] * Math.abs(x - mean), 0) };
}

/**
 * `mi-variance` (docs/math.md §7, ours): max-entropy bounds. Gaussian: I(Y;S) ≤ I(Y;X) ≤
 * ½ log(1 + Var X/σ²), so σ² = Var X/(e^{2ε} − 1) suffices (h(Y) ≤ ½ log 2πe(Var X + σ²), h(Y|X) = h(N)).
 * Laplace: the Laplace law maximises entropy at a given mean absolute deviation, so
 * I ≤ log(1 + E|X − EX|/b) and b = E|X − EX|/(e^ε − 1) suffices. Certified like every bound.
 */
function varianceProblem(prior: Prior, bound: MiBound, epsilon: number): ScaleProblem | null {
  const m = moments(prior);
  if (m.variance === 0) return null;
  const closed = bound.closed(m, epsilon);
  // log1p and one division or square root: a few ulps; 16·EPS relative covers it with room.
  const evaluate = (s: number) => { const v = bound.value(m, s); return { value: v, error: 16 * EPS * v, target: epsilon, sense: 'le' as const }; };
  return { evaluate, lower: closed, upper: closed };
}

/** Exact I(Y;S) ≤ ε as a condition at one scale. */
const exactEvaluation = (prior: Prior, noise: Accountant, s: number, epsilon: number): Evaluation => {
  const r = exactMutualInformation(prior, noise(s));
  return { value: r.value, error: r.error, target: epsilon, sense: 'le' };
};

/**
 * Calibrates for ε-mutual-information Pufferfish (Nuradha–Goldfeld; docs/math.md §7): the smallest scale with
 * I(Y; S) ≤ ε nats under every prior (each public value is its own prior, so this bounds
 * max_c I(Y; S | W = c) ≥ I(Y; S | W)). `mi-exact` searches the exact MI (non-increasing in the
 * scale by data processing) below the certified `mi-variance` scale; 0 when I(X; S) ≤ ε already.
 */
export function calibrateMI(scenario: Scenario, st: MiSettings): CalibrationResult {
  const def = mechanismDef(st.mechanism);
  const miBound = def.mi;
  if (isNotApplicable(miBound)) throw new InputError(miBound.notApplicable, 'mechanism');
  const noise = def.accountant(noiseOptions({}));
  if (isNotApplicable(noise)) throw new InputError(noise.notApplicable, 'mechanism');
  if (!(MI_METHODS as readonly string[]).includes(st.method)) throw new InputError(`unknown method '${st.method}' for --guarantee mi (one of ${MI_METHODS.join(', ')})`, 'method');
  if (!(st.epsilon > 0) || !Number.isFinite(st.epsilon)) throw new InputError(`must be a finite number > 0, got ${st.epsilon}`, 'epsilon');
  if (st.method === 'best') {
    const rs = (['mi-variance', 'mi-exact'] as const).map((method) => calibrateMI(scenario, { ...st, method }));
    const win = rs.reduce((a, b) => (b.scale < a.scale ? b : a));
    return { ...win, method: 'best' as never, winner: win.method as never, candidates: rs.map((r) => ({ method: r.method as never, scale: r.scale })), explanation: `best of mi-variance, mi-exact: ${win.method} wins. ${win.explanation}` };
  }
  const per = scenario.priors.map((prior) => {
    const bound = varianceProblem(prior, miBound, st.epsilon);
    if (!bound) return { prior, scale: 0, problem: null as ScaleProblem | null, why: 'X is constant under this prior' };
    const data = discreteMutualInformation(prior);
    // A budget so large that the closed form underflows to 0 (e^{2ε} = ∞): I(X;S) ≤ log #secrets is below it.
    if (!(bound.lower > 0) && data.value + data.error <= st.epsilon) {
      return { prior, scale: 0, problem: null, why: `I(X;S) = ${data.value.toPrecision(6)} nats ≤ ε for the data itself (data processing)` };
    }
    const vs = smallestFeasibleScale(bound).scale;
    if (st.method === 'mi-variance') return { prior, scale: vs, problem: bound, why: '' };
    if (data.value + data.error <= st.epsilon) return { prior, scale: 0, problem: null, why: `I(X;S) = ${data.value.toPrecision(6)} nats ≤ ε for the data itself (data processing)` };
    const ev = (s: number) => exactEvaluation(prior, noise, s, st.epsilon);
    if (!isFeasible(ev(vs))) return { prior, scale: vs, problem: bound, why: '' }; // keep the bound's certificate
    let lower = vs / 2;
    for (let k = 0; k < 60 && isFeasible(ev(lower)); k++) lower /= 2;
    const problem: ScaleProblem = { evaluate: ev, lower, upper: vs, rtol: 1e-10 };
    return { prior, scale: smallestFeasibleScale(problem).scale, problem, why: '' };
  });
  const top = per.reduce((a, b) => (b.scale > a.scale ? b : a));
  for (const p of per) if (p.problem && top.scale > 0 && !isFeasible(p.problem.evaluate(top.scale))) throw new NumericalError(`MI re-check failed for prior '${p.prior.name}'`);
  const parameter = def.parameter;
  const rule = st.method === 'mi-exact' ? 'exact mutual information (docs/math.md §7)' : miBound.rule;
  const secrets = Object.keys(scenario.priors[0].conditionals);
  return {
    mechanism: st.mechanism,
    method: st.method as never,
    alpha: NaN,
    epsilon: st.epsilon,
    parameter,
    scale: top.scale,
    variance: top.scale === 0 ? 0 : def.variance(top.scale, noiseOptions({})),
    rule,
    binding: top.scale > 0 ? { prior: top.prior.name, pair: secrets as [string, string] } : null,
    explanation: top.scale > 0
      ? `${rule}: I(Y; S) ≤ ε = ${st.epsilon} nats over the secrets ${secrets.join(', ')}, maximised over ${per.length} prior(s); bound by prior '${top.prior.name}'.`
      : `No noise needed: ${per.map((p) => `${p.why} (prior '${p.prior.name}')`).slice(0, 3).join('; ')}${per.length > 3 ? `; and likewise for ${per.length - 3} more priors` : ''}.`,
    check: top.problem && top.scale > 0 ? top.problem.evaluate(top.scale) : null,
    pairs: per.map((p) => ({ prior: p.prior.name, pair: secrets as [string, string], scale: p.scale, ...(p.why ? { zeroReason: p.why } : {}) })),
  };
}
