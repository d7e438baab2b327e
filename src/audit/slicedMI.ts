import { checkSetting } from '../settings.js';
import { secretProbabilities, type Prior } from '../distribution/scenario.js';
import type { Discrete } from '../distribution/discrete.js';
import { InputError } from '../errors.js';
import { cryptoSource, randomBits, type RandomSource } from '../sampling/random.js';
import type { PointLaw } from '../distribution/points.js';
import { lawAtoms } from '../mi/projection.js';

/** One draw of the audit: the secret's index and the release. */
export interface SecretRelease {
  s: number;
  y: readonly number[];
}

/** The sliced-MI audit's outcome (docs/math.md §17). */
export interface SlicedMiResult {
  /** Draws used to fit the slices' classifiers, and to test. */
  fitted: number;
  tested: number;
  directions: number;
  bins: number;
  /** Type-I error of the test: P(reject | I(M; S) ≤ ε) ≤ level. */
  level: number;
  epsilon: number;
  /** H(S) + mean log q(S | θᵀM) on the test draws: an unbiased estimate of a lower bound on I(M; S). */
  estimate: number;
  /** Reject "ε-MI holds" when the estimate exceeds this. */
  threshold: number;
  reject: boolean;
  /**
   * The smallest classifier bound H(S) + E log q(S | θᵀM) that this test rejects with probability
   * at least 0.8 at this many test draws (a proven Hoeffding bound; I(M; S) is at least as large).
   */
  detectable: number;
  explanation: string;
}

/** log of the smallest probability a fitted classifier gives: each is mixed with the uniform law by this weight. */
const MIX = 0.1;
/** Power the `detectable` level is stated for. */
const POWER = 0.8;

/** A uniform double in [0, 1) from 53 random bits. */
const uniform = (random: RandomSource) => Number(randomBits(random, 53)) / 2 ** 53;

/** Random unit directions in ℝ^k (k = 1: the line itself). */
function directions(k: number, m: number, random: RandomSource): number[][] {
  if (k === 1) return [[1]];
  return Array.from({ length: m }, () => {
    const v = Array.from({ length: k }, () => Math.sqrt(-2 * Math.log(1 - uniform(random))) * Math.cos(2 * Math.PI * uniform(random)));
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  });
}

/** A histogram classifier q(s | θᵀy) fitted on draws: equal-count bins, add-one counts, mixed with uniform. */
function fitSlice(draws: readonly SecretRelease[], theta: readonly number[], secrets: number, bins: number) {
  const proj = (y: readonly number[]) => theta.reduce((a, t, i) => a + t * y[i], 0);
  const xs = draws.map((d) => proj(d.y)).sort((a, b) => a - b);
  const edges = Array.from({ length: bins - 1 }, (_, i) => xs[Math.floor(((i + 1) * xs.length) / bins)]);
  const bin = (x: number) => {
    let lo = 0,
      hi = edges.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (x < edges[mid]) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const counts = Array.from({ length: bins }, () => new Array<number>(secrets).fill(1));
  for (const d of draws) counts[bin(proj(d.y))][d.s]++;
  const logq = counts.map((row) => {
    const total = row.reduce((a, b) => a + b, 0);
    return row.map((c) => Math.log((1 - MIX) * (c / total) + MIX / secrets));
  });
  return (d: SecretRelease) => logq[bin(proj(d.y))][d.s];
}

/**
 * The sliced mutual-information test of "ε-MI Pufferfish holds" on draws (S, M) (docs/math.md §17).
 * The first half fits, on each of `m` random directions θ, a histogram classifier q(s | θᵀM), and
 * keeps the direction whose classifier does best there; the second half evaluates
 * T = H(S) + mean log q(S | θᵀM). For any q fitted without the second half,
 * E T ≤ I(θᵀM; S) ≤ I(M; S) (cross-entropy bounds H(S | θᵀM); projection is post-processing),
 * and each term lies in a range of width log(|S|/MIX), so Hoeffding gives P(T > ε + t) ≤ level
 * under the null. The level is exact, not asymptotic; the price is that T estimates a lower bound.
 * @example slicedMiTest([{ s: 0, y: [0] }, { s: 1, y: [5] }, { s: 0, y: [0.1] }, { s: 1, y: [4.9] }], [0.5, 0.5], 0.1).reject
 */
export function slicedMiTest(
  draws: readonly SecretRelease[],
  probabilities: readonly number[],
  epsilon: number,
  opts: { level?: number; directions?: number; bins?: number; random?: RandomSource } = {},
): SlicedMiResult {
  const level = opts.level ?? 0.05;
  checkSetting('level', level);
  if (!(epsilon >= 0) || !Number.isFinite(epsilon)) throw new InputError(`must be a finite number ≥ 0, got ${epsilon}`, 'epsilon');
  if (draws.length < 20) throw new InputError(`needs at least 20 draws, got ${draws.length}`, 'samples');
  const secrets = probabilities.length;
  const k = draws[0].y.length;
  const m = opts.directions ?? 32;
  const half = Math.floor(draws.length / 2);
  const fit = draws.slice(0, half);
  const test = draws.slice(half);
  const bins = opts.bins ?? Math.max(2, Math.min(64, Math.round(Math.sqrt(fit.length / secrets))));
  const H = -probabilities.reduce((a, p) => a + (p > 0 ? p * Math.log(p) : 0), 0);
  const mean = (q: (d: SecretRelease) => number, ds: readonly SecretRelease[]) => ds.reduce((a, d) => a + q(d), 0) / ds.length;
  // The direction chosen on the first half only: the second half stays independent of the classifier.
  let best: ((d: SecretRelease) => number) | null = null;
  let bestFit = -Infinity;
  for (const theta of directions(k, m, opts.random ?? cryptoSource)) {
    const q = fitSlice(fit, theta, secrets, bins);
    const v = mean(q, fit);
    if (v > bestFit) [best, bestFit] = [q, v];
  }
  const estimate = H + mean(best!, test);
  const range = Math.log(secrets / MIX);
  const deviation = (p: number) => range * Math.sqrt(Math.log(1 / p) / (2 * test.length));
  const threshold = epsilon + deviation(level);
  const detectable = threshold + deviation(1 - POWER);
  const reject = estimate > threshold;
  return {
    fitted: fit.length,
    tested: test.length,
    directions: k === 1 ? 1 : m,
    bins,
    level,
    epsilon,
    estimate,
    threshold,
    reject,
    detectable,
    explanation: `sliced-MI test on ${draws.length} draws (half fit a histogram classifier on each of ${k === 1 ? 1 : m} direction(s), half test the best): T = ${estimate.toPrecision(4)} nats against the threshold ε + ${deviation(level).toPrecision(3)} = ${threshold.toPrecision(4)} (type-I error ≤ ${level}); ${reject ? 'REJECTED: the mechanism leaks more than ε' : 'not rejected (a sampling test: it certifies nothing)'}; with this many draws a leak whose classifier bound reaches ${detectable.toPrecision(3)} nats is detected with probability ≥ ${POWER}`,
  };
}

/** The test draws each bound needs: n with threshold + power margin ≤ `target` (the second half is n/2). */
export function slicedMiSamples(target: number, epsilon: number, secrets: number, level = 0.05): number {
  const range = Math.log(secrets / MIX);
  const gap = target - epsilon;
  if (!(gap > 0)) throw new InputError(`a violation must exceed ε = ${epsilon}, got ${target}`, 'target');
  const root = Math.sqrt(Math.log(1 / level) / 2) + Math.sqrt(Math.log(1 / (1 - POWER)) / 2);
  return 2 * Math.ceil(((range * root) / gap) ** 2);
}

/**
 * Draws (S, M) under one prior through a release function: S from the prior's probabilities, X
 * from S's conditional law, M = release(X). Randomness from `random` (the CSPRNG by default).
 */
export function drawSecretReleases(
  prior: Prior<Discrete | PointLaw>,
  release: (x: number[]) => number[],
  n: number,
  random: RandomSource = cryptoSource,
): { draws: SecretRelease[]; probabilities: number[]; secrets: string[] } {
  const secrets = Object.keys(prior.conditionals);
  const pi = secretProbabilities(prior);
  const probabilities = secrets.map((s) => pi[s]);
  const pick = (ws: ArrayLike<number>) => {
    let u = uniform(random);
    for (let i = 0; i < ws.length; i++) {
      u -= ws[i];
      if (u < 0) return i;
    }
    return ws.length - 1;
  };
  const atomsBySecret = secrets.map((name) => lawAtoms(prior.conditionals[name]));
  const draws: SecretRelease[] = [];
  for (let i = 0; i < n; i++) {
    const s = pick(probabilities);
    const { points, masses } = atomsBySecret[s];
    draws.push({ s, y: release(points[pick(masses)]) });
  }
  return { draws, probabilities, secrets };
}
