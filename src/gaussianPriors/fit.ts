import { userRecord } from '../records.js';
import type { Prior, Scenario } from '../distribution/scenario.js';
import type { Discrete } from '../distribution/discrete.js';
import { InputError } from '../errors.js';
import type { GaussianMixture, GaussianScenario } from '../distribution/mixture.js';
import { byLaw, type AnyScenario } from '../distribution/lawKind.js';

/** What to fit to each conditional: one Gaussian, or a K-component mixture by EM. */
export type FitKind = { kind: 'gaussian' } | { kind: 'mixture'; components: number };

/** The most mixture components `--fit mixture:K` takes. */
const MAX_FIT_COMPONENTS = 20;

/** `gaussian` or `mixture:K` (K from 1 to 20); errors name `--fit`. */
export function parseFit(text: string): FitKind {
  const t = text.trim();
  if (t === 'gaussian') return { kind: 'gaussian' };
  const m = /^mixture:(\d+)$/.exec(t);
  const k = m ? Number(m[1]) : NaN;
  if (!m || !(k >= 1 && k <= MAX_FIT_COMPONENTS))
    throw new InputError(`must be gaussian or mixture:K with K from 1 to ${MAX_FIT_COMPONENTS}, got '${text}'`, '--fit');
  return { kind: 'mixture', components: k };
}

/** Weighted mean and (maximum-likelihood) standard deviation of a finite law. */
function moments(d: Discrete): { mean: number; sd: number } {
  let mean = 0;
  for (let i = 0; i < d.values.length; i++) mean += d.masses[i] * d.values[i];
  let v = 0;
  for (let i = 0; i < d.values.length; i++) v += d.masses[i] * (d.values[i] - mean) ** 2;
  return { mean, sd: Math.sqrt(v) };
}

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/**
 * A K-component Gaussian mixture fitted to a finite law by expectation–maximisation (weighted
 * atoms; deterministic start at the law's quantiles). Widths are kept at least `floor` (half the
 * smallest gap between atoms, so components cannot collapse onto single atoms of a discrete
 * column); stops when the log-likelihood gains less than 1e-10 per step, or after 1,000 steps.
 */
export function fitMixture(d: Discrete, components: number): { mixture: GaussianMixture; logLikelihood: number; floor: number; steps: number } {
  const n = d.values.length;
  let k = components;
  const whole = moments(d);
  let gap = Infinity;
  for (let i = 1; i < n; i++) gap = Math.min(gap, d.values[i] - d.values[i - 1]);
  const floor = Number.isFinite(gap) ? gap / 2 : 0;
  if (n === 1 || whole.sd === 0) return { mixture: [{ weight: 1, mean: whole.mean, sd: 0 }], logLikelihood: 0, floor, steps: 0 };
  // Start: means at the (j + ½)/K quantiles, equal weights, the whole law's sd over K.
  const cum: number[] = [];
  let acc = 0;
  for (let i = 0; i < n; i++) {
    acc += d.masses[i];
    cum.push(acc);
  }
  const quantile = (q: number) =>
    d.values[
      Math.min(
        n - 1,
        cum.findIndex((c) => c >= q),
      )
    ];
  let w = Array.from({ length: k }, () => 1 / k);
  let mu = Array.from({ length: k }, (_, j) => quantile((j + 0.5) / k));
  let sd = Array.from({ length: k }, () => Math.max(whole.sd / k, floor));
  const r = new Float64Array(n * k);
  let ll = -Infinity;
  let steps = 0;
  for (; steps < 1000; steps++) {
    // E step in log space: responsibilities r[i, j] ∝ w_j φ((x_i − μ_j)/σ_j)/σ_j.
    let next = 0;
    for (let i = 0; i < n; i++) {
      let top = -Infinity;
      for (let j = 0; j < k; j++) {
        const z = (d.values[i] - mu[j]) / sd[j];
        const l = Math.log(w[j]) - Math.log(sd[j]) - LOG_SQRT_2PI - 0.5 * z * z;
        r[i * k + j] = l;
        if (l > top) top = l;
      }
      let sum = 0;
      for (let j = 0; j < k; j++) sum += Math.exp(r[i * k + j] - top);
      const lse = top + Math.log(sum);
      for (let j = 0; j < k; j++) r[i * k + j] = Math.exp(r[i * k + j] - lse);
      next += d.masses[i] * lse;
    }
    // M step (weighted by the atoms' masses).
    const nw: number[] = [];
    const nmu: number[] = [];
    const nsd: number[] = [];
    for (let j = 0; j < k; j++) {
      let m = 0,
        s1 = 0;
      for (let i = 0; i < n; i++) {
        const a = d.masses[i] * r[i * k + j];
        m += a;
        s1 += a * d.values[i];
      }
      if (!(m > 0)) continue; // an empty component is dropped
      const mean = s1 / m;
      let s2 = 0;
      for (let i = 0; i < n; i++) s2 += d.masses[i] * r[i * k + j] * (d.values[i] - mean) ** 2;
      nw.push(m);
      nmu.push(mean);
      nsd.push(Math.max(Math.sqrt(s2 / m), floor));
    }
    const total = nw.reduce((a, b) => a + b, 0);
    w = nw.map((x) => x / total);
    mu = nmu;
    sd = nsd;
    k = w.length;
    const gain = next - ll;
    ll = next;
    if (gain < 1e-10) break;
  }
  const mixture = w.map((weight, j) => ({ weight, mean: mu[j], sd: sd[j] })).sort((a, b) => a.mean - b.mean);
  return { mixture, logLikelihood: ll, floor, steps };
}

/**
 * Every conditional of every prior replaced by its fit. The guarantee then covers the fitted
 * class, not the table's own laws: the report says so, with each fit.
 */
export function fitScenario(scenario: AnyScenario, fit: FitKind): { scenario: GaussianScenario; report: string[] } {
  return byLaw(scenario, { finite: (s) => fitFinite(s, fit) }, 'fitting', 'fit', {
    mixture: { reason: 'fits finite conditionals; the spec already gives Gaussian ones' },
    points: { reason: 'fits one column; vector queries are not fitted yet' },
  });
}

function fitFinite(s: Scenario, fit: FitKind): { scenario: GaussianScenario; report: string[] } {
  const report: string[] = [];
  const fitOne = (p: Prior, secret: string, d: Discrete): GaussianMixture => {
    const label = s.priors.length > 1 ? `prior '${p.name}', ${secret}` : secret;
    if (fit.kind === 'gaussian') {
      const m = moments(d);
      report.push(`${label}: N(mean ${m.mean.toPrecision(6)}, sd ${m.sd.toPrecision(6)})`);
      return [{ weight: 1, ...m }];
    }
    const f = fitMixture(d, fit.components);
    report.push(
      `${label}: ${f.mixture.map((c) => `${c.weight.toPrecision(3)}·N(${c.mean.toPrecision(5)}, ${c.sd.toPrecision(4)}²)`).join(' + ')} (EM, ${f.steps} steps, log-likelihood ${f.logLikelihood.toPrecision(6)} per row${f.floor > 0 ? `, widths ≥ ${f.floor.toPrecision(3)}` : ''})`,
    );
    return f.mixture;
  };
  const priors = s.priors.map((p) => ({
    name: p.name,
    ...(p.probabilities ? { probabilities: p.probabilities } : {}),
    conditionals: userRecord(Object.entries(p.conditionals).map(([secret, d]) => [secret, fitOne(p, secret, d)])),
  }));
  return {
    scenario: { name: `${s.name} (fitted: ${fit.kind === 'gaussian' ? 'gaussian' : `mixture:${fit.components}`})`, priors, pairs: s.pairs, ordered: s.ordered },
    report,
  };
}
