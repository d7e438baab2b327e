import type { Law } from '../distribution/discrete.js';

/**
 * The law of Y = X + N for a discrete X: a finite mixture Σ_k w_k·f(y − x_k) of shifted noise
 * densities. Atoms sorted and distinct, weights kept as logs so tiny weights (1e-300) are exact.
 */
export interface Mixture {
  readonly x: Float64Array;
  readonly logw: Float64Array;
}

/**
 * A finite law on ℝ² under independent noise per coordinate: atom k at (a[k], c[k]) with log weight
 * logw[k], in any order, repeats allowed (the two-dimensional exact accountant, docs/math.md §12).
 */
export interface Mixture2 {
  readonly a: Float64Array;
  readonly c: Float64Array;
  readonly logw: Float64Array;
}

/** The noise kernels the exact accountant knows (`kernels.ts`). */

export const mixtureOf = (d: Law): Mixture => ({ x: d.values, logw: d.masses.map(Math.log) });

/** log(e^a + e^b) without overflow; −∞ is the identity. */
export function logAddExp(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
}

/** Unit roundoff 2^-53: every IEEE operation's relative error bound. */
export const U = Number.EPSILON / 2;

/**
 * Log densities with a rigorous per-point bound on their floating-point error (absolute, in
 * nats) and on |d log p/dy| near the point (used to charge the rounding of quadrature nodes).
 */
export interface BoundedLogDensity {
  ld: Float64Array;
  err: Float64Array;
  lip: Float64Array;
}
