import { noiseOf } from '../kernels.js';
import { describe, expect, it } from 'vitest';
import { fromCounts, fromWeights } from '../../distribution/discrete.js';
import { DEGENERATE_PAIRS, randomAgreement, support } from '../../../test/supports.js';
import { exactRenyi, exactRenyiBoth } from '../../divergence/exactRenyi.js';
import { mixtureOf } from '../../divergence/mixture.js';
import { gaussianGridRule } from './gridRule.js';

const both = <T>(p: T, q: T) => [
  [p, q],
  [q, p],
];

describe('gaussianGridRule (docs/math.md §8, grid rule)', () => {
  it('agrees with the plain evaluator within the two stated errors on dense and sparse supports, both directions', () => {
    let cases = 0,
      ran = 0;
    for (const gaps of ['interleaved', 'log-uniform'] as const) {
      const p = support(60, 3, gaps),
        q = support(60, 4, gaps);
      for (const scale of [0.05, 0.3, 2.3, 40])
        for (const alpha of [0.5, 2, 8, 50]) {
          const fast = exactRenyiBoth(p, q, noiseOf('gaussian', scale), alpha, { rtol: 1e-10 });
          const direct = gaussianGridRule(mixtureOf(p), mixtureOf(q), alpha, scale, 1e-10, true);
          cases++;
          if (direct) ran++;
          for (const [k, [a, b]] of both(p, q).entries()) {
            const oracle = exactRenyi(a, b, noiseOf('gaussian', scale), alpha, { rtol: 1e-10, evaluator: 'plain' });
            expect(fast[k].error).toBeLessThan(1e-8 * Math.max(1, Math.abs(fast[k].value)));
            expect(Math.abs(fast[k].value - oracle.value)).toBeLessThanOrEqual(fast[k].error + oracle.error);
            if (direct) {
              const value = direct[k].value / (alpha - 1),
                error = direct[k].error / Math.abs(alpha - 1);
              expect(Math.abs(value - oracle.value)).toBeLessThanOrEqual(error + oracle.error);
            }
          }
        }
    }
    // It declines only where atoms lie many σ apart (a mixture may vanish near the real line there).
    expect(ran).toBeGreaterThanOrEqual(cases / 2);
  });

  it('degenerate but valid input: one atom, a shared support, a 1e-300 weight, data near 10¹², α near 1 and 0 and at 200', () => {
    const cases = DEGENERATE_PAIRS;
    for (const [p, q] of cases)
      for (const alpha of [1.0001, 0.001, 200])
        for (const scale of [0.3, 50]) {
          const fast = exactRenyiBoth(p, q, noiseOf('gaussian', scale), alpha, { rtol: 1e-10 });
          for (const [k, [a, b]] of both(p, q).entries()) {
            const oracle = exactRenyi(a, b, noiseOf('gaussian', scale), alpha, { rtol: 1e-10, evaluator: 'plain' });
            expect(Number.isFinite(fast[k].value)).toBe(true);
            expect(Math.abs(fast[k].value - oracle.value)).toBeLessThanOrEqual(fast[k].error + oracle.error);
          }
        }
  });

  it('one atom against one atom: the closed form α·Δ²/2σ², within the stated error', () => {
    for (const alpha of [0.5, 2, 30])
      for (const sigma of [0.1, 1, 7]) {
        const r = gaussianGridRule(mixtureOf(fromCounts([0], [1])), mixtureOf(fromCounts([1], [1])), alpha, sigma, 1e-12, false);
        expect(r).not.toBeNull();
        const value = r![0].value / (alpha - 1);
        expect(Math.abs(value - alpha / (2 * sigma * sigma))).toBeLessThanOrEqual(r![0].error / Math.abs(alpha - 1) + 1e-15 * value);
      }
  });

  it('halves the panels it cannot certify, and fewer points than the adaptive quadrature on dense atoms', () => {
    const p = support(3000, 5, 'interleaved'),
      q = support(3000, 6, 'interleaved');
    const r = gaussianGridRule(mixtureOf(p), mixtureOf(q), 2, 1, 1e-12, false)!;
    const adaptive = exactRenyi(p, q, noiseOf('gaussian', 1), 2, { rtol: 1e-12, adaptive: true });
    expect(Math.abs(r[0].value - adaptive.value)).toBeLessThanOrEqual(r[0].error + adaptive.error);
    expect(r[0].nodes).toBeLessThan(adaptive.nodes);
  });

  it('weights e^{−740} below the largest near the point: the windowed sums are re-summed, not left in the subnormals', () => {
    const w = 3e-323;
    const xs = [0, 1000, 1001.7, 1003.1, 1004.9];
    const p = fromWeights(xs, [1, w, w, w, w]),
      q = fromWeights(xs, [0.5, 0.1, 0.1, 0.2, 0.1]);
    const r = gaussianGridRule(mixtureOf(p), mixtureOf(q), 0.01, 1, 1e-10, true)!;
    expect(r).not.toBeNull();
    for (const [k, [a, b]] of both(p, q).entries()) {
      const oracle = exactRenyi(a, b, noiseOf('gaussian', 1), 0.01, { rtol: 1e-10, evaluator: 'plain' });
      expect(Math.abs(r[k].value / (0.01 - 1) - oracle.value)).toBeLessThanOrEqual(r[k].error / 0.99 + oracle.error);
    }
  });

  it('atoms 10¹² σ apart and more: it declines at once (grid indices stay exact integers), and the accountant answers', () => {
    for (const [b, sigma, alpha] of [
      [365, 1e-12, 8],
      [1e12, 1e-3, 2],
      [1e9, 1e-5, 50],
    ]) {
      const p = fromWeights([0, b], [0.5, 0.5]),
        q = fromWeights([0, b], [0.3, 0.7]);
      expect(gaussianGridRule(mixtureOf(p), mixtureOf(q), alpha, sigma, 1e-10, true)).toBeNull();
      expect(Number.isNaN(exactRenyiBoth(p, q, noiseOf('gaussian', sigma), alpha, { rtol: 1e-10 })[0].value)).toBe(false);
    }
  });

  it('random supports (atoms 10⁻⁶ to 10 apart, weights down to 10⁻³⁰⁰), scales and orders: within the stated errors of the plain evaluator', () => {
    expect(randomAgreement(gaussianGridRule, 'gaussian')).toBeGreaterThan(20);
  }, 120_000);
});
