import { noiseOf } from '../kernels.js';
import { describe, expect, it } from 'vitest';
import { fromWeights } from '../../distribution/discrete.js';
import { DEGENERATE_PAIRS, support } from '../../../test/supports.js';
import { exactRenyi, exactRenyiBoth } from '../../divergence/exactRenyi.js';
import { mixtureOf } from '../../divergence/mixture.js';
import { laplaceGapRule } from './gapRule.js';

describe('laplaceGapRule (docs/math.md §8, gap rule)', () => {
  it('agrees with the adaptive quadrature and the plain evaluator within the two stated errors, both directions', () => {
    let cases = 0,
      ran = 0;
    for (const gaps of ['interleaved', 'log-uniform'] as const) {
      const p = support(120, 3, gaps),
        q = support(120, 4, gaps);
      for (const scale of [0.05, 0.3, 2.3, 40, 3000])
        for (const alpha of [0.5, 2, 8, 50]) {
          const fast = exactRenyiBoth(p, q, noiseOf('laplace', scale), alpha, { rtol: 1e-10 });
          const direct = laplaceGapRule(mixtureOf(p), mixtureOf(q), alpha, scale, 1e-10, true);
          // The gap rule ran, unless a gap is hundreds of scales wide (log-uniform gaps at scale 0.05).
          cases++;
          if (direct) {
            ran++;
            expect(fast[0].nodes).toBe(direct[0].nodes);
          }
          for (const [k, [a, b]] of [
            [p, q],
            [q, p],
          ].entries()) {
            const oracle = exactRenyi(a, b, noiseOf('laplace', scale), alpha, { rtol: 1e-10, evaluator: 'plain' });
            expect(fast[k].error).toBeLessThan(1e-8 * Math.max(1, Math.abs(fast[k].value)));
            expect(Math.abs(fast[k].value - oracle.value)).toBeLessThanOrEqual(fast[k].error + oracle.error);
          }
        }
    }
    expect(ran).toBeGreaterThanOrEqual(cases - 4);
  });

  it('degenerate but valid input: one atom, a shared support, a 1e-300 weight, data near 10¹², α near 1 and 0 and at 200', () => {
    const cases = DEGENERATE_PAIRS;
    for (const [p, q] of cases)
      for (const alpha of [1.0001, 0.001, 200])
        for (const scale of [0.3, 50]) {
          const fast = exactRenyiBoth(p, q, noiseOf('laplace', scale), alpha, { rtol: 1e-10 });
          for (const [k, [a, b]] of [
            [p, q],
            [q, p],
          ].entries()) {
            const oracle = exactRenyi(a, b, noiseOf('laplace', scale), alpha, { rtol: 1e-10, evaluator: 'plain' });
            expect(Number.isFinite(fast[k].value)).toBe(true);
            expect(Math.abs(fast[k].value - oracle.value)).toBeLessThanOrEqual(fast[k].error + oracle.error);
          }
        }
  });

  it('two nodes per gap where many atoms lie within one noise scale', () => {
    const p = support(2000, 5, 'interleaved'),
      q = support(2000, 6, 'interleaved');
    const [P, Q] = [mixtureOf(p), mixtureOf(q)];
    const r = laplaceGapRule(P, Q, 2, 500, 1e-10, true)!;
    expect(r[0].nodes).toBeLessThanOrEqual(2 * 3999); // 3 999 gaps
  });

  it('declines gaps hundreds of scales wide (the adaptive quadrature takes them)', () => {
    const p = fromWeights([0, 1e4], [0.5, 0.5]),
      q = fromWeights([0, 1e4 + 1], [0.5, 0.5]);
    expect(laplaceGapRule(mixtureOf(p), mixtureOf(q), 2, 1, 1e-10, false)).toBeNull();
    const e = exactRenyi(p, q, noiseOf('laplace', 1), 2);
    expect(e.error).toBeLessThan(1e-9);
  });
});
