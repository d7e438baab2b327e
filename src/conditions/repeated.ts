import { EPS, nextDown } from '../numerics/float.js';
import type { ScaleProblem } from '../numerics/smallestScale.js';

/** The largest double strictly below `x`. */

/**
 * `x / k` rounded down by three ulps: below the true quotient even when `k` itself was rounded
 * (|fl(x/fl(k)) − x/k| ≤ (2u + u²)·x/k, and three ulps exceed that), so a certificate at the
 * returned scale covers the true one for conditions monotone in the scale (docs/math.md §9).
 */
export function divideDown(x: number, k: number): number {
  return nextDown(nextDown(nextDown(x / k)));
}

/**
 * A single-release condition evaluated for N releases at the single-release-equivalent scale
 * `toSingle(s)` (Gaussian: σ/√N, the mean being sufficient; Laplace Theorem 1: b/N, by
 * domination), docs/math.md §9. `fromSingle` maps the single bracket back (only for the bracket).
 */
export function atSingleScale(p: ScaleProblem, toSingle: (s: number) => number, fromSingle: (s: number) => number): ScaleProblem {
  return { ...p, evaluate: (s) => p.evaluate(toSingle(s)), lower: fromSingle(p.lower), upper: fromSingle(p.upper) };
}

/**
 * A per-pair divergence bound with no outer expectation (Cor. 3.1, the W∞ mechanism) for N
 * releases: quasi-convexity puts the maximum outside, and independent noise multiplies the
 * inner divergence by N (docs/math.md §9). The product's rounding (≤ u relative) is charged.
 */
export function timesReleases(p: ScaleProblem, releases: number): ScaleProblem {
  return {
    ...p,
    evaluate(s) {
      const e = p.evaluate(s);
      const value = releases * e.value;
      return { ...e, value, error: releases * e.error * (1 + EPS) + EPS * Math.abs(value) };
    },
    // N·D ≥ D: the single root is a lower end; N·R_α(t) ≤ N·t puts the root below N·(single upper end).
    lower: p.lower,
    upper: releases * p.upper,
  };
}
