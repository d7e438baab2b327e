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

  it('quick (a check, not a search): fewer nodes where gaps are wide, and its certified interval meets the full one', () => {
    let fewer = 0;
    for (const gaps of ['interleaved', 'log-uniform'] as const) {
      const p = support(120, 3, gaps),
        q = support(120, 4, gaps);
      for (const scale of [0.002, 0.01, 0.05, 0.3])
        for (const alpha of [2, 8]) {
          const full = laplaceGapRule(mixtureOf(p), mixtureOf(q), alpha, scale, 1e-10, true);
          const quick = laplaceGapRule(mixtureOf(p), mixtureOf(q), alpha, scale, 1e-6, true, true);
          if (!full || !quick) continue;
          if (quick[0].nodes < full[0].nodes) fewer++;
          for (const k of [0, 1]) {
            expect(quick[k].error).toBeLessThan(1e-5);
            // Both are certified: the true value lies in each interval, so they meet.
            expect(Math.abs(quick[k].value - full[k].value)).toBeLessThanOrEqual(quick[k].error + full[k].error);
          }
        }
    }
    expect(fewer).toBeGreaterThan(3);
  });

  it('quick, α > 1: leaves out gaps whose whole integral is provably negligible (a long chain count), its interval still meeting the full one', () => {
    // Count laws on 0..365 concentrated near their means (binomial-like): most gaps carry ≲ e^{-100}.
    const T = 365;
    const law = (mean: number) => {
      const values = Array.from({ length: T + 1 }, (_, k) => k);
      const logs = values.map((k) => -((k - mean) ** 2) / (2 * 40));
      const top = Math.max(...logs);
      return fromWeights(
        values,
        logs.map((l) => Math.exp(l - top)),
      );
    };
    const p = law(150),
      q = law(152);
    let quickNodes = 0,
      plainNodes = 0;
    for (const scale of [0.2, 1, 4])
      for (const alpha of [2, 8]) {
        const full = laplaceGapRule(mixtureOf(p), mixtureOf(q), alpha, scale, 1e-10, true)!;
        const quick = laplaceGapRule(mixtureOf(p), mixtureOf(q), alpha, scale, 1e-6, true, true)!;
        // The same tolerance with every gap integrated.
        const plain = laplaceGapRule(mixtureOf(p), mixtureOf(q), alpha, scale, 1e-6, true)!;
        expect(quick[0].nodes).toBeLessThan(plain[0].nodes);
        quickNodes += quick[0].nodes;
        plainNodes += plain[0].nodes;
        for (const k of [0, 1]) {
          expect(quick[k].error).toBeLessThan(1e-6);
          expect(Math.abs(quick[k].value - full[k].value)).toBeLessThanOrEqual(quick[k].error + full[k].error);
        }
      }
    expect(quickNodes).toBeLessThan(plainNodes / 2);
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

  it('integrates gaps hundreds to millions of scales wide by panels at both ends and a bound on the middle, within the stated errors', () => {
    const pairs = [
      [fromWeights([0, 1e4], [0.5, 0.5]), fromWeights([0, 1e4 + 1], [0.5, 0.5])],
      [fromWeights([0, 5, 3000, 3001], [0.1, 0.2, 0.3, 0.4]), fromWeights([0, 4, 3000, 3002.5], [0.4, 0.3, 0.2, 0.1])],
    ];
    for (const [p, q] of pairs)
      for (const alpha of [1.0001, 0.3, 0.5, 2, 8])
        for (const scale of [1, 0.1, 1e-3]) {
          const r = laplaceGapRule(mixtureOf(p), mixtureOf(q), alpha, scale, 1e-10, true);
          expect(r, `α ${alpha}, b ${scale}`).not.toBeNull();
          // Hundreds of thousands of scales wide, yet a few thousand nodes: the middle is never cut into panels.
          expect(r![0].nodes).toBeLessThan(20_000);
          for (const [k, [a, b]] of [
            [p, q],
            [q, p],
          ].entries()) {
            const oracle = exactRenyi(a, b, noiseOf('laplace', scale), alpha, { rtol: 1e-10, evaluator: 'plain' });
            const value = r![k].value / (alpha - 1),
              error = r![k].error / Math.abs(alpha - 1);
            // No looser than the adaptive quadrature's own certificate (both sit on the sweeps' rounding floor).
            expect(error).toBeLessThanOrEqual(2 * oracle.error + 1e-12);
            expect(Math.abs(value - oracle.value), `α ${alpha}, b ${scale}, direction ${k}`).toBeLessThanOrEqual(error + oracle.error);
          }
        }
  });

  it('declines a wide gap whose middle is not negligible, or where the powers could overflow (the adaptive quadrature takes them)', () => {
    // p all left of the gap, q all right: at α = ½ the integrand √(pq) is flat across it.
    const p = fromWeights([0], [1]),
      q = fromWeights([1e4], [1]);
    expect(laplaceGapRule(mixtureOf(p), mixtureOf(q), 0.5, 1, 1e-10, false)).toBeNull();
    const flat = exactRenyi(p, q, noiseOf('laplace', 1), 0.5);
    expect(Math.abs(flat.value - exactRenyi(p, q, noiseOf('laplace', 1), 0.5, { evaluator: 'plain' }).value)).toBeLessThan(1e-8);
    const [a, b] = [fromWeights([0, 1e4], [0.5, 0.5]), fromWeights([0, 1e4 + 1], [0.5, 0.5])];
    expect(laplaceGapRule(mixtureOf(a), mixtureOf(b), 50, 1, 1e-10, false)).toBeNull();
    expect(exactRenyi(a, b, noiseOf('laplace', 1), 50).error).toBeLessThan(1e-8);
  });
});
