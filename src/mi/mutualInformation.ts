import { secretProbabilities, type Prior } from '../calibrate/scenario.js';
import { integrateRetry, type ExactOptions } from '../divergence/exactRenyi.js';
import { logAddExp, type Mixture, type Noise } from '../divergence/mixture.js';
import { EPS } from '../numerics/float.js';
import type { Bounded } from '../numerics/logExpectation.js';

/**
 * φ(e^t) with φ(r) = r log r − r + 1 ≥ 0, returned as a log: the integrand of
 * KL(P‖M) = ∫ m·φ(p/m) (the −p + m terms integrate to 0), which unlike p log(p/m) is
 * non-negative, so the log-space quadrature applies. Series near t = 0, where
 * φ(e^t) = Σ_{k≥2} (k−1)/k!·t^k = t²/2 + t³/3 + t⁴/8 + …, avoids cancellation.
 */
export function logPhiExp(t: number): number {
  if (t === -Infinity) return 0; // φ(0) = 1
  if (Math.abs(t) < 0.1) {
    let term = (t * t) / 2,
      sum = 0; // term = t^k/k!
    for (let k = 2; k < 30; k++) {
      const add = (k - 1) * term;
      sum += add;
      term *= t / (k + 1);
      if (Math.abs(add) < 1e-18 * Math.abs(sum)) break;
    }
    return Math.log(sum);
  }
  return Math.log(Math.exp(t) * t - Math.expm1(t));
}

/** The mixture Σ_s π_s P_s of a prior's conditionals (atoms merged), as log-weights. */
function marginal(prior: Prior, pi: Record<string, number>): Mixture {
  const acc = new Map<number, number>();
  for (const [s, d] of Object.entries(prior.conditionals)) {
    for (let k = 0; k < d.values.length; k++) acc.set(d.values[k], (acc.get(d.values[k]) ?? 0) + pi[s] * d.masses[k]);
  }
  const xs = [...acc.keys()].sort((a, b) => a - b);
  return { x: Float64Array.from(xs), logw: Float64Array.from(xs, (x) => Math.log(acc.get(x)!)) };
}

export interface MutualInformation extends Bounded {
  /** The same in bits. */
  bits: number;
}

/**
 * I(Y; S) of the release Y = X + N under one prior (docs/math.md §7, ours): with π the secret
 * probabilities and M = Σ_s π_s P(Y|s), I(Y;S) = Σ_s π_s KL(P(Y|s) ‖ M) = ∫ Σ_s π_s·m·φ(p_s/m),
 * integrated with the exact accountant's adaptive Gauss–Kronrod machinery (error bound included).
 * With public information each public value is its own prior, so this is I(Y; S | W = c).
 * @example exactMutualInformation(builtinScenario('heart').priors[0], { family: 'laplace', scale: 1 }).value
 */
export function exactMutualInformation(prior: Prior, noise: Noise, opts: ExactOptions = {}): MutualInformation {
  const pi = secretProbabilities(prior);
  const names = Object.keys(prior.conditionals).filter((s) => pi[s] > 0);
  const mixtures: Mixture[] = names.map((s) => ({ x: prior.conditionals[s].values, logw: prior.conditionals[s].masses.map(Math.log) }));
  const M = marginal(prior, pi);
  const logPi = names.map((s) => Math.log(pi[s]));
  // p_s/m ≤ 1/π_s, so m·φ(p_s/m) ≤ m·max(1, log(1/π_s)/π_s): the integrand is C·m at most.
  const C = names.reduce((a, s) => a + pi[s] * Math.max(1, Math.log(1 / pi[s]) / pi[s] + 1), 0);
  const r = integrateRetry(
    {
      mixtures: [...mixtures, M],
      combine: (ld, i) => {
        const lm = ld[names.length][i];
        let acc = -Infinity;
        for (let k = 0; k < names.length; k++) acc = logAddExp(acc, logPi[k] + lm + logPhiExp(ld[k][i] - lm));
        return acc;
      },
      sensitivity: 4,
      tail: { mode: 'mass', logC: Math.log(C) },
    },
    noise,
    opts,
  );
  const value = Math.exp(r.value);
  const error = value * (Math.expm1(r.error) + 4 * EPS);
  return { value, error, bits: value / Math.LN2 };
}

/** I(X; S) of the data itself (discrete): by data processing I(Y;S) ≤ I(X;S). */
export function discreteMutualInformation(prior: Prior): Bounded {
  const pi = secretProbabilities(prior);
  const M = marginal(prior, pi);
  const m = new Map<number, number>();
  for (let k = 0; k < M.x.length; k++) m.set(M.x[k], Math.exp(M.logw[k]));
  let value = 0,
    n = 0;
  for (const [s, d] of Object.entries(prior.conditionals)) {
    for (let k = 0; k < d.values.length; k++) {
      value += pi[s] * d.masses[k] * Math.log(d.masses[k] / m.get(d.values[k])!);
      n++;
    }
  }
  return { value, error: (n + 8) * EPS * (1 + 40 * Math.abs(value)) };
}
