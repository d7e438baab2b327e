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

/** The plain evaluator with crude but rigorous rounding bounds: the test oracle's `BoundedLogDensity`. */
export function mixtureLogDensityPlainBounded(m: Mixture, noise: Noise, ys: Float64Array): BoundedLogDensity {
  const ld = mixtureLogDensityPlain(m, noise, ys);
  const K = m.x.length, s = noise.scale;
  const err = new Float64Array(ys.length), lip = new Float64Array(ys.length);
  for (let i = 0; i < ys.length; i++) {
    let mag = 0, far = 0;
    for (let k = 0; k < K; k++) {
      const z = Math.abs(ys[i] - m.x[k]);
      mag = Math.max(mag, Math.abs(m.logw[k] + noiseLogDensity(noise, z)));
      far = Math.max(far, z);
    }
    err[i] = 8 * (Number.EPSILON / 2) * (K + 8) * (1 + mag + Math.abs(ld[i]));
    lip[i] = noise.family === 'laplace' ? 1 / s : far / (s * s);
  }
  return { ld, err, lip };
}

/** Unit roundoff 2^-53: every IEEE operation's relative error bound. */
const U = Number.EPSILON / 2;

/**
 * Log densities with a rigorous per-point bound on their floating-point error (absolute, in
 * nats) and on |d log p/dy| near the point (used to charge the rounding of quadrature nodes).
 */
export interface BoundedLogDensity {
  ld: Float64Array;
  err: Float64Array;
  lip: Float64Array;
}

/**
 * Laplace mixtures at sorted points in O(N + K): two-sided running sums, kept in log-space and
 * anchored at atoms so nothing overflows or underflows (the rescaling):
 *   A_j = log Σ_{k≤j} w_k e^{−(x_j−x_k)/b}   (forward sweep),
 *   C_j = log Σ_{k≥j} w_k e^{−(x_k−x_j)/b}   (backward sweep),
 * and for x_j ≤ y < x_{j+1}:  log p(y) = −log 2b + logaddexp(A_j − (y−x_j)/b, C_{j+1} − (x_{j+1}−y)/b).
 * Each y costs O(1) after locating its interval, which only moves forward for sorted y.
 * `err` bounds the accumulated rounding of either sweep: each step adds at most a few units of
 * 2^-53 times the magnitudes it touches, and errors are damped (∂A_j/∂A_{j−1} ≤ 1), never amplified.
 */
export function laplaceSweeps(m: Mixture, b: number): { A: Float64Array; C: Float64Array; err: number } {
  const K = m.x.length;
  const A = new Float64Array(K);
  const C = new Float64Array(K);
  A[0] = m.logw[0];
  let ea = 0, ec = 0;
  for (let j = 1; j < K; j++) {
    const d = (m.x[j] - m.x[j - 1]) / b;
    A[j] = logAddExp(A[j - 1] - d, m.logw[j]);
    ea += 6 * U * (2 + Math.abs(A[j - 1]) + 2 * d + Math.abs(m.logw[j]) + Math.abs(A[j]));
  }
  C[K - 1] = m.logw[K - 1];
  for (let j = K - 2; j >= 0; j--) {
    const d = (m.x[j + 1] - m.x[j]) / b;
    C[j] = logAddExp(C[j + 1] - d, m.logw[j]);
    ec += 6 * U * (2 + Math.abs(C[j + 1]) + 2 * d + Math.abs(m.logw[j]) + Math.abs(C[j]));
  }
  return { A, C, err: Math.max(ea, ec) };
}

// The quadrature evaluates the same mixture at the same scale every round (nodes, then the
// panels' certificates): the O(K) sweeps are computed once per (mixture, scale).
const sweepCache = new WeakMap<Mixture, { b: number; sweeps: ReturnType<typeof laplaceSweeps> }>();
function cachedSweeps(m: Mixture, b: number): ReturnType<typeof laplaceSweeps> {
  const hit = sweepCache.get(m);
  if (hit && hit.b === b) return hit.sweeps;
  const sweeps = laplaceSweeps(m, b);
  sweepCache.set(m, { b, sweeps });
  return sweeps;
}

/**
 * The two halves of a Laplace mixture at sorted points y (no atom strictly between a point and
 * the halves' anchors): log of Σ_{x_k ≤ y} w_k e^{−(y−x_k)/b}/2b and Σ_{x_k > y} w_k e^{−(x_k−y)/b}/2b.
 * Between consecutive atoms p(y + s) = L·e^{−s/b} + R·e^{s/b} exactly: the analytic form the
 * quadrature certificate continues into the complex plane.
 */
export function laplaceHalves(m: Mixture, b: number, ys: Float64Array): { L: Float64Array; R: Float64Array; err: Float64Array } {
  const { A, C, err: sweepErr } = cachedSweeps(m, b);
  const K = m.x.length;
  const L = new Float64Array(ys.length), R = new Float64Array(ys.length), err = new Float64Array(ys.length);
  const norm = Math.log(2 * b);
  let j = -1; // last atom ≤ y
  for (let i = 0; i < ys.length; i++) {
    const y = ys[i];
    while (j + 1 < K && m.x[j + 1] <= y) j++;
    const dl = j >= 0 ? (y - m.x[j]) / b : 0, dr = j + 1 < K ? (m.x[j + 1] - y) / b : 0;
    L[i] = j >= 0 ? A[j] - dl - norm : -Infinity;
    R[i] = j + 1 < K ? C[j + 1] - dr - norm : -Infinity;
    const mag = (j >= 0 ? Math.abs(A[j]) + 2 * dl : 0) + (j + 1 < K ? Math.abs(C[j + 1]) + 2 * dr : 0);
    err[i] = sweepErr + 6 * U * (4 + mag + 2 * Math.abs(norm));
  }
  return { L, R, err };
}

function laplaceLogDensity(m: Mixture, b: number, ys: Float64Array): BoundedLogDensity {
  const { L, R, err } = laplaceHalves(m, b, ys);
  const ld = new Float64Array(ys.length);
  for (let i = 0; i < ys.length; i++) {
    ld[i] = logAddExp(L[i], R[i]);
    err[i] += 4 * U * (2 + Math.abs(ld[i]) + Math.abs(L[i] === -Infinity ? R[i] : L[i]));
  }
  return { ld, err, lip: new Float64Array(ys.length).fill(1 / b) };
}

/** Terms more than this many nats below the nearest atom's are dropped: relative error ≤ K·e^{-40}. */
const GAUSS_WINDOW_NATS = 40;

/**
 * Posterior moments of a Gaussian mixture at sorted points y: log p(y), and for the atoms'
 * posterior weights w_k φ(y − x_k)/p(y) the mean and second moment of x − y. O(N·W + K), W the
 * atoms within reach: only atoms with (y−x)²/2σ² ≤ d²/2σ² + T contribute, d the distance to the
 * nearest atom and T = 40 + log(max w / min w); the dropped mass is below K·e^{-40} of the kept
 * sum (charged to `err`; its share of the moments is charged to `m2`). Both window edges
 * y ∓ √(d² + 2σ²T) increase with y (|d′| ≤ 1), so two pointers sweep the atoms once.
 */
export function gaussianMoments(m: Mixture, sigma: number, ys: Float64Array, moments = true): BoundedLogDensity & { m1: Float64Array; m2: Float64Array } {
  const K = m.x.length;
  let wMax = -Infinity, wMin = Infinity;
  for (const lw of m.logw) { if (lw > wMax) wMax = lw; if (lw < wMin) wMin = lw; }
  const T = GAUSS_WINDOW_NATS + (wMax - wMin);
  const n = ys.length;
  const ld = new Float64Array(n), err = new Float64Array(n), lip = new Float64Array(n);
  const m1 = new Float64Array(moments ? n : 0), m2 = new Float64Array(moments ? n : 0);
  const norm = Math.log(sigma) + LOG_SQRT_2PI;
  const inv = 1 / (2 * sigma * sigma);
  const dropped = Math.log1p(K * Math.exp(-GAUSS_WINDOW_NATS));
  let next = 0; // first atom ≥ y
  let lo = 0, hi = 0; // window [lo, hi)
  for (let i = 0; i < n; i++) {
    const y = ys[i];
    while (next < K && m.x[next] < y) next++;
    const d = Math.min(next < K ? m.x[next] - y : Infinity, next > 0 ? y - m.x[next - 1] : Infinity);
    const R = Math.sqrt(d * d + T / inv);
    while (lo < K && m.x[lo] < y - R) lo++;
    if (hi < lo) hi = lo;
    while (hi < K && m.x[hi] <= y + R) hi++;
    // Shift by lw_max − d²/2σ² ≥ every kept exponent (d is the nearest distance): one pass, no overflow.
    const shift = wMax - d * d * inv;
    let s0 = 0, s1 = 0, s2 = 0, mag = 0;
    for (let k = lo; k < hi; k++) {
      const z = m.x[k] - y;
      const e = m.logw[k] - z * z * inv - shift;
      const t = Math.exp(e);
      s0 += t;
      if (moments) { s1 += t * z; s2 += t * z * z; }
      if (-e > mag) mag = -e;
    }
    ld[i] = shift + Math.log(s0) - norm;
    // Each kept term: exponent rounding (≤ 4u·|e| + u·|shift|), exp, and the sum of hi−lo terms.
    err[i] = dropped + 8 * U * (hi - lo + 4 + mag + Math.abs(shift) + Math.abs(ld[i]) + Math.abs(norm));
    lip[i] = (R + sigma) / (sigma * sigma);
    // Dropped terms add at most K·e^{-40}·R² to the second moment (e^{-u}u decreases past u = 1).
    if (moments) { m1[i] = s1 / s0; m2[i] = (s2 / s0) * (1 + 1e-12) + (K * Math.exp(-GAUSS_WINDOW_NATS) + 1e-12) * 4 * R * R; }
  }
  return { ld, err, lip, m1, m2 };
}

/**
 * log p(y) of the mixture at sorted points `ys` in O(N + K) (Laplace) or O(N·W + K) (Gaussian).
 * @example mixtureLogDensity(mixtureOf(fromCounts([0, 1], [1, 1])), { family: 'laplace', scale: 1 }, Float64Array.of(0, 0.5))
 */
export function mixtureLogDensity(m: Mixture, noise: Noise, ys: Float64Array): Float64Array {
  return mixtureLogDensityBounded(m, noise, ys).ld;
}

/** `mixtureLogDensity` with rigorous rounding bounds (see `BoundedLogDensity`). */
export function mixtureLogDensityBounded(m: Mixture, noise: Noise, ys: Float64Array): BoundedLogDensity {
  return noise.family === 'laplace' ? laplaceLogDensity(m, noise.scale, ys) : gaussianMoments(m, noise.scale, ys, false);
}
