import { secretProbabilities, type Prior } from '../distribution/scenario.js';
import { checkShape, NOISE, OBJECT } from '../shapes.js';
import { sameLaw, type Law } from '../distribution/discrete.js';
import { exactRenyi } from '../divergence/exactRenyi.js';
import type { Noise } from '../divergence/kernel.js';
import { NumericalError } from '../errors.js';
import { EPS } from '../numerics/float.js';
import type { Bounded } from '../numerics/logExpectation.js';

/** The law Σ_s π_s P_s of the secrets' conditionals (atoms merged), with double masses. */
function marginal(prior: Prior, pi: Record<string, number>): Law {
  const acc = new Map<number, number>();
  for (const [s, d] of Object.entries(prior.conditionals)) {
    if (!(pi[s] > 0)) continue;
    for (let k = 0; k < d.values.length; k++) acc.set(d.values[k], (acc.get(d.values[k]) ?? 0) + pi[s] * d.masses[k]);
  }
  const xs = Float64Array.from(acc.keys()).sort();
  return { values: xs, masses: xs.map((x) => acc.get(x)!) };
}

/** A certified I(Y; S) in nats: `value` with a rigorous `error` bound. */
export interface MutualInformation extends Bounded {
  /** The same in bits. */
  bits: number;
}

/** The order offsets h of the Rényi enclosure: a first one, and the range the balanced one is kept in. */
const H0 = 1e-4,
  H_MIN = 1e-8,
  H_MAX = 1e-2;

/**
 * KL(P_Y ‖ M_Y) enclosed, with proof, between Rényi divergences of orders 1 − h and 1 + h
 * (docs/math.md §7): D_α is non-decreasing in α and D_1 = KL [van Erven–Harremoës 2014, Thm 3],
 * so D_{1−h} − err ≤ KL ≤ D_{1+h} + err for every h ∈ (0, 1), each D certified by the exact
 * accountant (§8). The width is about h·V + 2e/h (V the variance of the log-ratio, e the log
 * integral's certified error): after h = 10⁻⁴, the h balancing the two is tried, and the
 * tighter end of each side kept (every end is a valid bound). `cap`: a known upper bound on KL
 * (D_∞, e.g. log(1/π) for a secret's law against a mixture that holds it with weight π).
 */
export function klEnclosure(p: Law, m: Law, noise: Noise, cap = Infinity): { lo: number; hi: number } {
  const at = (h: number) => {
    const up = exactRenyi(p, m, noise, 1 + h),
      dn = exactRenyi(p, m, noise, 1 - h);
    // An end without a certificate (infinite error, at scales far below the atoms' spacing) bounds nothing.
    const sure = (d: { value: number; error: number }) => Number.isFinite(d.value) && Number.isFinite(d.error);
    return {
      lo: sure(dn) ? dn.value - dn.error : 0,
      hi: sure(up) ? up.value + up.error : Infinity,
      spread: up.value - dn.value,
      logError: h * Math.max(up.error, dn.error),
    };
  };
  const first = at(H0);
  const balanced = Math.sqrt((2 * first.logError * H0) / Math.max(first.spread, Number.MIN_VALUE));
  const h = Math.min(H_MAX, Math.max(H_MIN, Number.isFinite(balanced) ? balanced : H_MAX));
  const second = at(h);
  const lo = Math.max(0, first.lo, second.lo),
    hi = Math.min(first.hi, second.hi, cap);
  if (!(hi >= lo)) throw new NumericalError(`KL enclosure is empty: [${lo}, ${hi}] (a certificate failed)`);
  return { lo, hi };
}

/**
 * I(Y; S) of the release Y = X + N under one prior (docs/math.md §7, ours): with π the secret
 * probabilities and M = Σ_s π_s P(Y|s), I(Y;S) = Σ_s π_s KL(P(Y|s) ‖ M), each KL enclosed with
 * proof between Rényi divergences of orders 1 ∓ h (`klEnclosure`). `value ± error` is that
 * enclosure: I(Y;S) lies within it, rounding of M's masses and of the sums included.
 * With public information each public value is its own prior, so this is I(Y; S | W = c).
 * @example exactMutualInformation(builtinScenario('heart').priors[0], noiseOf('laplace', 1)).value
 */
export function exactMutualInformation(prior: Prior, noise: Noise): MutualInformation {
  checkShape(OBJECT, prior, 'prior');
  checkShape(NOISE, noise, 'noise');
  const pi = secretProbabilities(prior);
  const names = Object.keys(prior.conditionals).filter((s) => pi[s] > 0);
  const laws = names.map((s) => prior.conditionals[s]);
  // Identical conditionals (exact rational masses): Y is independent of S.
  if (laws.every((d) => sameLaw(d, laws[0]))) return { value: 0, error: 0, bits: 0 };
  const M = marginal(prior, pi);
  let lo = 0,
    hi = 0;
  for (let k = 0; k < names.length; k++) {
    // m ≥ π_s·p_s, so KL(P_s‖M) ≤ D_∞ ≤ log(1/π_s) (rounded up): the enclosure stays finite at any scale.
    const e = klEnclosure(laws[k], M, noise, -Math.log(pi[names[k]]) * (1 + 4 * EPS) + 4 * EPS);
    lo += pi[names[k]] * e.lo;
    hi += pi[names[k]] * e.hi;
  }
  // M's masses are sums of n rounded products, each within (n + 1)u of the exact Σ π_s p_s(x):
  // the density m_Y then moves by a factor within e^{±δ}, and each KL by at most δ. The two sums
  // of n non-negative terms round by at most (n + 1)u relative.
  const n = names.length;
  const delta = 2 * (n + 1) * EPS;
  const rel = (n + 2) * EPS;
  hi = hi * (1 + rel) + delta;
  lo = Math.max(0, lo * (1 - rel) - delta);
  const value = (lo + hi) / 2;
  const error = (hi - lo) / 2 + 2 * EPS * hi;
  return { value, error, bits: value / Math.LN2 };
}

/** I(X; S) of the data itself (discrete): by data processing I(Y;S) ≤ I(X;S). */
export function discreteMutualInformation(prior: Prior): Bounded {
  const pi = secretProbabilities(prior);
  const M = marginal(prior, pi);
  const m = new Map<number, number>();
  for (let k = 0; k < M.values.length; k++) m.set(M.values[k], M.masses[k]);
  let value = 0,
    n = 0;
  for (const [s, d] of Object.entries(prior.conditionals)) {
    if (!(pi[s] > 0)) continue;
    for (let k = 0; k < d.values.length; k++) {
      value += pi[s] * d.masses[k] * Math.log(d.masses[k] / m.get(d.values[k])!);
      n++;
    }
  }
  return { value, error: (n + 8) * EPS * (1 + 40 * Math.abs(value)) };
}

/**
 * I(Y; S) of the true laws from that of computed ones whose masses (conditionals and secret
 * probabilities) are each within a relative μ of the truth (docs/math.md §7): pointwise the output
 * densities are within (1 ± μ), the mixture M within (1 ± μ)², so with r = p̂/m̂,
 * KL(P‖M) ≤ ∫p log r + log((1+μ)/(1−μ)²) ≤ (1+μ)·KL̂ + 2μ + log((1+μ)/(1−μ)²) (∫p̂|log r| ≤ KL̂ + 2),
 * and I ≤ (1+μ)²·Î + (1+μ)(2μ + log((1+μ)/(1−μ)²)). The bound is charged to the error.
 * @example chargeMassError({ value: 0.1, error: 0 }, 1e-12).error // ≈ 5.2e-12
 */
export function chargeMassError<B extends Bounded>(b: B, mu: number): B {
  if (!(mu && mu > 0)) return b;
  const hi = b.value + b.error;
  const spread = Math.log1p(mu) - 2 * Math.log1p(-mu);
  const bound = ((1 + mu) ** 2 * hi + (1 + mu) * (2 * mu + spread)) * (1 + 8 * EPS);
  return { ...b, error: bound - b.value };
}

/**
 * The moments of X under the true laws from computed ones within a relative μ per mass: every
 * mass of the mixture Σ π_s p_s is within (1 ± μ)², and E(X − c)² and E|X − c| about the computed
 * mean c bound what the max-entropy bounds need (they hold about any centre), so both scale by (1 + μ)².
 */
export function momentsCharged<M extends { variance: number; mad: number }>(m: M, mu: number): M {
  if (!(mu && mu > 0)) return m;
  const f = (1 + mu) ** 2 * (1 + 4 * EPS);
  return { ...m, variance: m.variance * f, mad: m.mad * f };
}

/**
 * μ for a prior of a scenario whose laws carry `massError`: that, plus the rounding of normalising
 * the prior's secret probabilities (a sum of n terms and a division); 0 for exact laws.
 */
export function priorMassError(massError: number | undefined, prior: Prior<unknown>): number {
  return massError && massError > 0 ? massError + (Object.keys(prior.conditionals).length + 2) * EPS : 0;
}
