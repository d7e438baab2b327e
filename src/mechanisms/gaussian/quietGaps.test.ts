import { describe, expect, it } from 'vitest';
import { fromWeights } from '../../distribution/discrete.js';
import { exactRenyi } from '../../divergence/exactRenyi.js';
import { mixtureOf, type Mixture } from '../../divergence/mixture.js';
import { plainLogDensity } from '../../divergence/plainDensity.js';
import { noiseOf } from '../kernels.js';
import { gaussianGridRule } from './gridRule.js';
import { gaussianKernel } from './kernel.js';
import { gaussLegendre } from '../../numerics/gaussLegendre.js';
import { logSegment, quietStretches } from './quietGaps.js';

/** Deterministic uniforms in [0, 1). */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** log ∫_s^t e^{g(y)} dy by 10-point Gauss–Legendre on `n` equal panels, in log space (g smooth on a panel's scale). */
function logQuadrature(g: (y: number) => number, s: number, t: number, n = 4000): number {
  const { nodes, weights } = gaussLegendre(10);
  const h = (t - s) / n / 2;
  const v: number[] = [],
    w: number[] = [];
  for (let i = 0; i < n; i++)
    for (let j = 0; j < 10; j++) {
      v.push(g(s + (2 * i + 1 + nodes[j]) * h));
      w.push(weights[j] * h);
    }
  const top = Math.max(...v);
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += w[i] * Math.exp(v[i] - top);
  return top + Math.log(sum);
}

/** Atoms `spacing`·(1 + U(0, 1)) apart, weights spread over e^{±spread}. */
function law(k: number, seed: number, spacing: number, spread: number): Mixture {
  const u = lcg(seed);
  let x = 0;
  const xs: number[] = [];
  for (let i = 0; i < k; i++) {
    x += spacing * (1 + u());
    xs.push(x);
  }
  return mixtureOf(
    fromWeights(
      xs,
      xs.map(() => Math.exp(spread * (2 * u() - 1))),
    ),
  );
}

describe('quiet gaps (docs/math.md §8, "Quiet gaps")', () => {
  it('a segment bound is never below the integral, centre inside, left or right of the segment', () => {
    const u = lcg(7);
    for (let c = 0; c < 300; c++) {
      const sigma = 10 ** (-3 + 3 * u());
      const beta = 1 + 10 ** (-1 + 2 * u());
      const m1 = (u() - 0.5) * 20 * sigma,
        m2 = (u() - 0.5) * 20 * sigma;
      const s = (u() - 0.5) * 40 * sigma,
        t = s + 10 ** (-1 + 2 * u()) * sigma * 10;
      const G = (y: number) => -(beta * (y - m1) ** 2 + (1 - beta) * (y - m2) ** 2) / (2 * sigma * sigma);
      const numeric = logQuadrature(G, s, t);
      // The reference quadrature is far within 1e-6 here (4 000 panels of 10 nodes on a Gaussian).
      expect(numeric).toBeLessThanOrEqual(logSegment(s, t, m1, m2, beta, sigma) + 1e-6);
    }
  });

  it('each stretch bound is at least the integral of p^β q^{1−β} over it, and the stretches avoid the atoms', () => {
    let stretches = 0;
    for (const [seed, spread] of [
      [1, 0.5],
      [2, 30],
      [3, 200],
    ])
      for (const sigma of [0.02, 0.005])
        for (const beta of [1.5, 2, 6]) {
          const P = law(12, seed, 1, spread),
            Q = law(12, seed + 10, 1, spread);
          const powers = [Float64Array.of(beta, 1 - beta), Float64Array.of(1 - beta, beta)];
          const lo = Math.min(P.x[0], Q.x[0]) - 40 * sigma * beta,
            hi = Math.max(P.x[11], Q.x[11]) + 40 * sigma * beta;
          const quiet = quietStretches(P, Q, powers, sigma, 1e-10, sigma, lo, hi);
          for (const q of quiet) {
            stretches++;
            for (const [k, [a, b]] of powers.entries()) {
              const f = (y: number) => {
                const ys = Float64Array.of(y);
                return a * plainLogDensity(gaussianKernel, P, sigma, ys)[0] + b * plainLogDensity(gaussianKernel, Q, sigma, ys)[0];
              };
              expect(logQuadrature(f, q.s, q.t, 2000)).toBeLessThanOrEqual(q.logBound[k] + 1e-6);
            }
          }
        }
    expect(stretches).toBeGreaterThan(50);
  }, 60_000);

  it('atoms hundreds of σ apart: the grid rule now runs (it declined before) and agrees with the plain evaluator', () => {
    const p = fromWeights([0, 1.3, 2.1, 3.7, 5], [0.3, 0.1, 0.2, 0.25, 0.15]),
      q = fromWeights([0, 1.3, 2.1, 3.7, 5], [0.2, 0.2, 0.2, 0.2, 0.2]);
    for (const sigma of [0.003, 1e-4])
      for (const alpha of [2, 8]) {
        const r = gaussianGridRule(mixtureOf(p), mixtureOf(q), alpha, sigma, 1e-10, true);
        expect(r).not.toBeNull();
        for (const [k, [a, b]] of [
          [p, q],
          [q, p],
        ].entries()) {
          const oracle = exactRenyi(a, b, noiseOf('gaussian', sigma), alpha, { rtol: 1e-10, evaluator: 'plain' });
          const value = r![k].value / (alpha - 1),
            error = r![k].error / (alpha - 1);
          expect(Math.abs(value - oracle.value)).toBeLessThanOrEqual(error + oracle.error);
        }
      }
  });
});
