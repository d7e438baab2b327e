import type { Discrete } from '../distribution/discrete.js';

/**
 * The law of Y = X + N for a discrete X: a finite mixture Σ_k w_k·f(y − x_k) of shifted noise
 * densities. Atoms sorted and distinct, weights kept as logs so tiny weights (1e-300) are exact.
 */
export interface Mixture {
  readonly x: Float64Array;
  readonly logw: Float64Array;
}

export type NoiseFamily = 'laplace' | 'gaussian';

/** Additive noise: Laplace with scale b, or Gaussian with standard deviation σ. */
export interface Noise {
  readonly family: NoiseFamily;
  readonly scale: number;
}

export const mixtureOf = (d: Discrete): Mixture => ({ x: d.values, logw: d.masses.map(Math.log) });

/** log(e^a + e^b) without overflow; −∞ is the identity. */
export function logAddExp(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
}

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/** log f(z) of the noise density at one offset. */
export function noiseLogDensity(noise: Noise, z: number): number {
  const s = noise.scale;
  return noise.family === 'laplace' ? -Math.abs(z) / s - Math.log(2 * s) : -(z * z) / (2 * s * s) - Math.log(s) - LOG_SQRT_2PI;
}

/**
 * Plain O(N·K) evaluator of log p(y) at every y (log-sum-exp over all atoms). Kept as the test
 * oracle and the benchmark reference for the fast evaluators below.
 */
export function mixtureLogDensityPlain(m: Mixture, noise: Noise, ys: Float64Array): Float64Array {
  const out = new Float64Array(ys.length);
  const t = new Float64Array(m.x.length);
  for (let i = 0; i < ys.length; i++) {
    let max = -Infinity;
    for (let k = 0; k < m.x.length; k++) {
      t[k] = m.logw[k] + noiseLogDensity(noise, ys[i] - m.x[k]);
      if (t[k] > max) max = t[k];
    }
    let s = 0;
    for (let k = 0; k < m.x.length; k++) s += Math.exp(t[k] - max);
    out[i] = max + Math.log(s);
  }
  return out;
}

/**
 * Laplace mixtures at sorted points in O(N + K): two-sided running sums, kept in log-space and
 * anchored at atoms so nothing overflows or underflows (the rescaling):
 *   A_j = log Σ_{k≤j} w_k e^{−(x_j−x_k)/b}   (forward sweep),
 *   C_j = log Σ_{k≥j} w_k e^{−(x_k−x_j)/b}   (backward sweep),
 * and for x_j ≤ y < x_{j+1}:  log p(y) = −log 2b + logaddexp(A_j − (y−x_j)/b, C_{j+1} − (x_{j+1}−y)/b).
 * Each y costs O(1) after locating its interval, which only moves forward for sorted y.
 */
export function laplaceSweeps(m: Mixture, b: number): { A: Float64Array; C: Float64Array } {
  const K = m.x.length;
  const A = new Float64Array(K);
  const C = new Float64Array(K);
  A[0] = m.logw[0];
  for (let j = 1; j < K; j++) A[j] = logAddExp(A[j - 1] - (m.x[j] - m.x[j - 1]) / b, m.logw[j]);
  C[K - 1] = m.logw[K - 1];
  for (let j = K - 2; j >= 0; j--) C[j] = logAddExp(C[j + 1] - (m.x[j + 1] - m.x[j]) / b, m.logw[j]);
  return { A, C };
}

function laplaceLogDensity(m: Mixture, b: number, ys: Float64Array): Float64Array {
  const { A, C } = laplaceSweeps(m, b);
  const K = m.x.length;
  const out = new Float64Array(ys.length);
  const norm = Math.log(2 * b);
  let j = -1; // last atom ≤ y
  for (let i = 0; i < ys.length; i++) {
    const y = ys[i];
    while (j + 1 < K && m.x[j + 1] <= y) j++;
    const left = j >= 0 ? A[j] - (y - m.x[j]) / b : -Infinity;
    const right = j + 1 < K ? C[j + 1] - (m.x[j + 1] - y) / b : -Infinity;
    out[i] = logAddExp(left, right) - norm;
  }
  return out;
}

/** Terms more than this many nats below the nearest atom's are dropped: relative error ≤ e^{-40}·W/w_min. */
const GAUSS_WINDOW_NATS = 40;

/**
 * Gaussian mixtures at sorted points in O(N·W + K), W the atoms within reach: for each y only
 * atoms with (y−x)²/2σ² ≤ d²/2σ² + T contribute, d the distance to the nearest atom and
 * T = 40 + log(max w / min w); the dropped mass is below e^{-40} of the kept sum. Both window
 * edges y ∓ √(d² + 2σ²T) increase with y (|d′| ≤ 1), so two pointers sweep the atoms once.
 */
function gaussianLogDensity(m: Mixture, sigma: number, ys: Float64Array): Float64Array {
  const K = m.x.length;
  let wMax = -Infinity, wMin = Infinity;
  for (const lw of m.logw) { if (lw > wMax) wMax = lw; if (lw < wMin) wMin = lw; }
  const T = GAUSS_WINDOW_NATS + (wMax - wMin);
  const out = new Float64Array(ys.length);
  const norm = Math.log(sigma) + LOG_SQRT_2PI;
  const inv = 1 / (2 * sigma * sigma);
  let next = 0; // first atom ≥ y
  let lo = 0, hi = 0; // window [lo, hi)
  for (let i = 0; i < ys.length; i++) {
    const y = ys[i];
    while (next < K && m.x[next] < y) next++;
    const d = Math.min(next < K ? m.x[next] - y : Infinity, next > 0 ? y - m.x[next - 1] : Infinity);
    const R = Math.sqrt(d * d + T / inv);
    while (lo < K && m.x[lo] < y - R) lo++;
    if (hi < lo) hi = lo;
    while (hi < K && m.x[hi] <= y + R) hi++;
    // Shift by lw_max − d²/2σ² ≥ every kept exponent (d is the nearest distance): one pass, no overflow.
    const shift = wMax - d * d * inv;
    let s = 0;
    for (let k = lo; k < hi; k++) s += Math.exp(m.logw[k] - (y - m.x[k]) ** 2 * inv - shift);
    out[i] = shift + Math.log(s) - norm;
  }
  return out;
}

/**
 * log p(y) of the mixture at sorted points `ys` in O(N + K) (Laplace) or O(N·W + K) (Gaussian).
 * @example mixtureLogDensity(mixtureOf(fromCounts([0, 1], [1, 1])), { family: 'laplace', scale: 1 }, Float64Array.of(0, 0.5))
 */
export function mixtureLogDensity(m: Mixture, noise: Noise, ys: Float64Array): Float64Array {
  return noise.family === 'laplace' ? laplaceLogDensity(m, noise.scale, ys) : gaussianLogDensity(m, noise.scale, ys);
}
