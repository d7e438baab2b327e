import type { NoiseKernel } from './kernel.js';
import type { BoundedLogDensity, Mixture } from './mixture.js';

/**
 * Plain O(N·K) evaluator of log p(y) at every y (log-sum-exp over all atoms). Kept as the test
 * oracle and the benchmark reference for the families' fast evaluators.
 */
export function plainLogDensity(kernel: NoiseKernel, m: Mixture, scale: number, ys: Float64Array): Float64Array {
  const out = new Float64Array(ys.length);
  const t = new Float64Array(m.x.length);
  for (let i = 0; i < ys.length; i++) {
    let max = -Infinity;
    for (let k = 0; k < m.x.length; k++) {
      t[k] = m.logw[k] + kernel.logDensity(ys[i] - m.x[k], scale);
      if (t[k] > max) max = t[k];
    }
    let s = 0;
    for (let k = 0; k < m.x.length; k++) s += Math.exp(t[k] - max);
    out[i] = max + Math.log(s);
  }
  return out;
}

/** The plain evaluator with crude but rigorous rounding bounds: the test oracle's `BoundedLogDensity`. */
export function plainLogDensityBounded(kernel: NoiseKernel, m: Mixture, scale: number, ys: Float64Array): BoundedLogDensity {
  const ld = plainLogDensity(kernel, m, scale, ys);
  const K = m.x.length;
  const err = new Float64Array(ys.length),
    lip = new Float64Array(ys.length);
  for (let i = 0; i < ys.length; i++) {
    let mag = 0,
      far = 0;
    for (let k = 0; k < K; k++) {
      const z = Math.abs(ys[i] - m.x[k]);
      mag = Math.max(mag, Math.abs(m.logw[k] + kernel.logDensity(z, scale)));
      far = Math.max(far, z);
    }
    err[i] = 8 * (Number.EPSILON / 2) * (K + 8) * (1 + mag + Math.abs(ld[i]));
    lip[i] = kernel.plainLip(far, scale);
  }
  return { ld, err, lip };
}
