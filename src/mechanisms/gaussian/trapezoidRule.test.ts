import { noiseOf } from '../kernels.js';
import { describe, expect, it } from 'vitest';
import { fromCounts, fromWeights, type Discrete } from '../../distribution/discrete.js';
import { exactRenyi } from '../../divergence/exactRenyi.js';
import { mixtureOf } from '../../divergence/mixture.js';
import { DEGENERATE_PAIRS, randomAgreement, ruleAgreesWithPlain, support } from '../../../test/supports.js';
import { gaussianGridRule } from './gridRule.js';
import { gaussianTrapezoidRule } from './trapezoidRule.js';

const agrees = (p: Discrete, q: Discrete, alpha: number, scale: number, tight = false) =>
  ruleAgreesWithPlain(gaussianTrapezoidRule, 'gaussian', p, q, alpha, scale, tight);

describe('gaussianTrapezoidRule (docs/math.md §8, trapezoidal rule)', () => {
  it('agrees with the plain evaluator within the two stated errors on dense and sparse supports, both directions', () => {
    let ran = 0;
    for (const gaps of ['interleaved', 'log-uniform'] as const) {
      const p = support(60, 3, gaps),
        q = support(60, 4, gaps);
      for (const scale of [0.05, 0.3, 2.3, 40]) for (const alpha of [0.5, 2, 8, 50]) if (agrees(p, q, alpha, scale, true)) ran++;
    }
    // It declines where atoms lie several σ apart (no strip free of zeros is tall enough).
    expect(ran).toBeGreaterThanOrEqual(6);
  });

  it('one atom against one atom: the closed form α·Δ²/2σ², within the stated error', () => {
    for (const alpha of [2, 30])
      for (const sigma of [0.1, 1, 7]) {
        const r = gaussianTrapezoidRule(mixtureOf(fromCounts([0], [1])), mixtureOf(fromCounts([1], [1])), alpha, sigma, 1e-12, false);
        expect(r).not.toBeNull();
        const value = r![0].value / (alpha - 1);
        expect(Math.abs(value - alpha / (2 * sigma * sigma))).toBeLessThanOrEqual(r![0].error / Math.abs(alpha - 1) + 1e-15 * value);
      }
  });

  it('degenerate but valid pairs, α near 1 and 0 and at 200: within the stated errors where it runs', () => {
    for (const [p, q] of DEGENERATE_PAIRS) for (const alpha of [1.0001, 0.001, 200]) for (const scale of [0.3, 50]) agrees(p, q, alpha, scale);
  });

  it('random supports (atoms 10⁻⁶ to 10 apart, weights down to 10⁻³⁰⁰), scales and orders: within the stated errors of the plain evaluator', () => {
    expect(randomAgreement(gaussianTrapezoidRule, 'gaussian')).toBeGreaterThan(10);
  }, 120_000);

  it('on dense atoms: fewer evaluations than the grid rule, the same integral within both errors', () => {
    const [P, Q] = [mixtureOf(support(3000, 5, 'interleaved')), mixtureOf(support(3000, 6, 'interleaved'))];
    const t = gaussianTrapezoidRule(P, Q, 2, 1, 1e-12, false)!;
    const g = gaussianGridRule(P, Q, 2, 1, 1e-12, false)!;
    expect(Math.abs(t[0].value - g[0].value)).toBeLessThanOrEqual(t[0].error + g[0].error);
    expect(t[0].nodes).toBeLessThan(g[0].nodes * 0.8);
  });

  it('declines two atoms 12σ apart (the mixture has zeros near the real line between them)', () => {
    const p = fromWeights([0, 12], [0.5, 0.5]),
      q = fromWeights([0.5, 12], [0.5, 0.5]);
    expect(gaussianTrapezoidRule(mixtureOf(p), mixtureOf(q), 2, 1, 1e-10, false)).toBeNull();
    const e = exactRenyi(p, q, noiseOf('gaussian', 1), 2);
    expect(e.error).toBeLessThan(1e-9);
  });
});
