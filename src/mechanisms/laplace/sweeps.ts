import { log2x } from '../../numerics/float.js';
import { logAddExp, U, type Mixture } from '../../divergence/mixture.js';

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
function laplaceSweeps(m: Mixture, b: number): { A: Float64Array; C: Float64Array; err: number } {
  const K = m.x.length;
  const A = new Float64Array(K);
  const C = new Float64Array(K);
  A[0] = m.logw[0];
  let ea = 0,
    ec = 0;
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
type Sweeps = ReturnType<typeof laplaceSweeps>;
const sweepCache = new WeakMap<Mixture, { b: number; sweeps: Sweeps }>();
export function cachedSweeps(m: Mixture, b: number): Sweeps {
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
  const sw = cachedSweeps(m, b);
  const K = m.x.length;
  const L = new Float64Array(ys.length),
    R = new Float64Array(ys.length),
    err = new Float64Array(ys.length);
  const norm = log2x(b);
  const out = new Float64Array(3);
  let j = -1; // last atom ≤ y
  for (let i = 0; i < ys.length; i++) {
    const y = ys[i];
    while (j + 1 < K && m.x[j + 1] <= y) j++;
    halvesAt(m, sw, b, norm, j, y, out, 0);
    L[i] = out[0];
    R[i] = out[1];
    err[i] = out[2];
  }
  return { L, R, err };
}

/**
 * `laplaceHalves` at one point y whose last atom ≤ y is j: out[o] = L, out[o+1] = R, out[o+2] = the
 * rounding bound (the sweeps' own plus a few units of 2^−53 times the magnitudes combined here).
 */
export function halvesAt(m: Mixture, sw: Sweeps, b: number, norm: number, j: number, y: number, out: Float64Array, o: number): void {
  const K = m.x.length;
  const dl = j >= 0 ? (y - m.x[j]) / b : 0,
    dr = j + 1 < K ? (m.x[j + 1] - y) / b : 0;
  out[o] = j >= 0 ? sw.A[j] - dl - norm : -Infinity;
  out[o + 1] = j + 1 < K ? sw.C[j + 1] - dr - norm : -Infinity;
  const mag = (j >= 0 ? Math.abs(sw.A[j]) + 2 * dl : 0) + (j + 1 < K ? Math.abs(sw.C[j + 1]) + 2 * dr : 0);
  out[o + 2] = sw.err + 6 * U * (4 + mag + 2 * Math.abs(norm));
}
