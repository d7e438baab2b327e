import { U, type BoundedLogDensity, type Mixture } from '../../divergence/mixture.js';
import { EXP_NON_POSITIVE_ULPS, expNonPositive } from '../../numerics/expNonPositive.js';

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/** Terms more than this many nats below the nearest atom's are dropped: relative error ≤ K·e^{-40}. */
const GAUSS_WINDOW_NATS = 40;

/** A sum of terms below this (2^−1000) may hold subnormal terms: it is re-summed against its largest. */
const TINY_SUM = 2 ** -1000;

/**
 * Posterior moments of a Gaussian mixture at sorted points y: log p(y), and for the atoms'
 * posterior weights w_k φ(y − x_k)/p(y) the mean and second moment of x − y. O(N·W + K), W the
 * atoms within reach: only atoms with (y−x)²/2σ² ≤ d²/2σ² + T contribute, d the distance to the
 * nearest atom and T = 40 + log(max w / min w); the dropped mass is below K·e^{-40} of the kept
 * sum (charged to `err`; its share of the moments is charged to `m2`). Both window edges
 * y ∓ √(d² + 2σ²T) increase with y (|d′| ≤ 1), so two pointers sweep the atoms once.
 * `moments`: true for m1 and m2, 'mean' for m1 only, false for neither. `lip` bounds |d log p/dy|
 * (= m1/σ²) within `dy[i]` of point i when `dy` is given and m1 computed (from m1), else anywhere
 * the window reaches (from its radius).
 */
export function gaussianMoments(
  m: Mixture,
  sigma: number,
  ys: Float64Array,
  moments: boolean | 'mean' = true,
  dy?: Float64Array,
): BoundedLogDensity & { m1: Float64Array; m2: Float64Array } {
  const K = m.x.length;
  let wMax = -Infinity,
    wMin = Infinity;
  for (const lw of m.logw) {
    if (lw > wMax) wMax = lw;
    if (lw < wMin) wMin = lw;
  }
  const T = GAUSS_WINDOW_NATS + (wMax - wMin);
  // Every kept exponent e = lw − z²/2σ² − shift has −e ≤ (wMax − lw) + T (the window's definition).
  const magMax = T + (wMax - wMin);
  const x = m.x,
    logw = m.logw;
  const n = ys.length;
  const ld = new Float64Array(n),
    err = new Float64Array(n),
    lip = new Float64Array(n);
  const mean = moments !== false,
    second = moments === true;
  const m1 = new Float64Array(mean ? n : 0),
    m2 = new Float64Array(second ? n : 0);
  const norm = Math.log(sigma) + LOG_SQRT_2PI;
  const inv = 1 / (2 * sigma * sigma);
  const dropped = Math.log1p(K * Math.exp(-GAUSS_WINDOW_NATS));
  let next = 0; // first atom ≥ y
  let lo = 0,
    hi = 0; // window [lo, hi)
  for (let i = 0; i < n; i++) {
    const y = ys[i];
    while (next < K && m.x[next] < y) next++;
    const d = Math.min(next < K ? m.x[next] - y : Infinity, next > 0 ? y - m.x[next - 1] : Infinity);
    const R = Math.sqrt(d * d + T / inv);
    while (lo < K && m.x[lo] < y - R) lo++;
    if (hi < lo) hi = lo;
    while (hi < K && m.x[hi] <= y + R) hi++;
    // Shift by lw_max − d²/2σ² ≥ every kept exponent (d is the nearest distance): one pass, no overflow.
    let shift = wMax - d * d * inv;
    let s0 = 0,
      s1 = 0,
      s2 = 0;
    // One loop per kind of output, so the hot loop carries no branch.
    if (second)
      for (let k = lo; k < hi; k++) {
        const z = x[k] - y;
        const t = expNonPositive(logw[k] - z * z * inv - shift);
        s0 += t;
        s1 += t * z;
        s2 += t * z * z;
      }
    else if (mean)
      for (let k = lo; k < hi; k++) {
        const z = x[k] - y;
        const t = expNonPositive(logw[k] - z * z * inv - shift);
        s0 += t;
        s1 += t * z;
      }
    else
      for (let k = lo; k < hi; k++) {
        const z = x[k] - y;
        s0 += expNonPositive(logw[k] - z * z * inv - shift);
      }
    if (s0 < TINY_SUM) {
      // The nearby atoms' weights lie more than e^{690} below the largest: every term underflowed to
      // the subnormals against the shift, where expNonPositive's relative bound fails. Re-sum against
      // the largest kept exponent (still ≥ every term; the bound on −e below still holds).
      shift = -Infinity;
      for (let k = lo; k < hi; k++) {
        const z = x[k] - y;
        shift = Math.max(shift, logw[k] - z * z * inv);
      }
      s0 = s1 = s2 = 0;
      for (let k = lo; k < hi; k++) {
        const z = x[k] - y;
        const t = expNonPositive(logw[k] - z * z * inv - shift);
        s0 += t;
        s1 += t * z;
        s2 += t * z * z;
      }
    }
    ld[i] = shift + Math.log(s0) - norm;
    // Each kept term: exponent rounding (≤ 4u·|e| + u·|shift|, |e| ≤ magMax), exp (expNonPositive's proven bound), and the sum of hi−lo terms.
    err[i] = dropped + 8 * U * (hi - lo + 4 + magMax + Math.abs(shift) + Math.abs(ld[i]) + Math.abs(norm)) + EXP_NON_POSITIVE_ULPS * U;
    lip[i] = (R + sigma) / (sigma * sigma);
    if (mean) {
      // Dropped terms move the mean by at most K·e^{-40}·2R and the second moment by K·e^{-40}·4R²
      // (e^{-u}u decreases past u = 1).
      m1[i] = s1 / s0;
      const slack = (K * Math.exp(-GAUSS_WINDOW_NATS) + 1e-12) * 2 * R;
      if (second) m2[i] = (s2 / s0) * (1 + 1e-12) + slack * 2 * R;
      // Within dy of y, |m1| grows by at most dy·|d m1/dy| = dy·|Var/σ² − 1| ≤ dy·((R + dy)² + σ²)/σ² (+ the slack).
      if (dy) {
        const r = R + dy[i];
        const tight = (Math.abs(m1[i]) * (1 + 1e-12) + 2 * slack + (dy[i] * (r * r + sigma * sigma)) / (sigma * sigma)) / (sigma * sigma);
        if (tight < lip[i]) lip[i] = tight;
      }
    }
  }
  return { ld, err, lip, m1, m2 };
}
