import { noiseOf } from '../mechanisms/kernels.js';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { calibrate } from '../calibrate/calibrate.js';
import type { Scenario } from '../distribution/scenario.js';
import { fromWeights, type Discrete } from '../distribution/discrete.js';
import { oracleRenyi } from '../../test/oracle.js';
import { exactRenyi } from './exactRenyi.js';

const support = fc.array(fc.tuple(fc.integer({ min: -8, max: 8 }), fc.integer({ min: 1, max: 9 })), { minLength: 1, maxLength: 4 }).map((a) =>
  fromWeights(
    a.map(([v]) => v / 2),
    a.map(([, w]) => w / 10),
  ),
);

/** The certified value brackets the brute-force oracle: |exact − oracle| ≤ error + the oracle's own slack. */
function expectBracketed(p: Discrete, q: Discrete, family: 'laplace' | 'gaussian', s: number, alpha: number) {
  const e = exactRenyi(p, q, noiseOf(family, s), alpha);
  const o = oracleRenyi(p, q, family, s, alpha);
  expect(e.certificate).toBe('bernstein-ellipse');
  expect(Math.abs(e.value - o)).toBeLessThanOrEqual(e.error + (1e-12 * Math.max(1, Math.abs(o))) / Math.min(1, Math.abs(alpha - 1)) + 1e-13);
}

describe('certified exact accounting (docs/math.md §8)', () => {
  it('brackets an independent brute-force integration on random small supports, Laplace, α up to 10⁵', () => {
    for (const alpha of [2, 1e3, 1e4, 1e5]) {
      fc.assert(
        fc.property(support, support, fc.double({ min: 0.3, max: 3, noNaN: true }), (p, q, s) => expectBracketed(p, q, 'laplace', s, alpha)),
        { numRuns: 6 },
      );
    }
  });

  it('brackets the brute-force integration for Gaussian noise, α up to 10³', () => {
    for (const alpha of [0.5, 2, 100]) {
      fc.assert(
        fc.property(support, support, fc.double({ min: 0.5, max: 3, noNaN: true }), (p, q, s) => expectBracketed(p, q, 'gaussian', s, alpha)),
        { numRuns: 3 },
      );
    }
    // α = 10³: the mass sits where q's components cross, ~σ/√α wide (the oracle is slow there).
    expectBracketed(fromWeights([0], [1]), fromWeights([-1, 0.5], [0.5, 0.5]), 'gaussian', 0.5, 1e3);
    expectBracketed(fromWeights([-4, -1, 3.5, 4], [0.1, 0.2, 0.3, 0.4]), fromWeights([-3, 0, 0.5, 2], [0.4, 0.3, 0.2, 0.1]), 'gaussian', 2, 1e3);
  }, 120_000);

  it('a mixture with a zero just off the real axis never passes as analytic (regression: cos(π/2) ≠ 0 in doubles)', () => {
    // P's two atoms put a zero of its gap form at distance πb/2 from the axis; Q has no atom in that gap.
    for (const alpha of [0.7, 1.5, 2.5]) {
      expectBracketed(fromWeights([2.75, 4], [0.5, 0.5]), fromWeights([4.75], [1]), 'laplace', 0.11863207987211834, alpha);
      expectBracketed(fromWeights([-1, 0.5], [0.5, 0.5]), fromWeights([0.25], [1]), 'laplace', 0.11863207987211834, alpha);
    }
  });

  const scenario = (p: Discrete, q: Discrete, ordered: boolean): Scenario => ({ name: 'x', ordered, priors: [{ name: 'p', conditionals: { a: p, b: q } }] });
  const spike = { p: fromWeights([-5, -1, 0], [0.2, 0.5, 0.3]), q: fromWeights([-4, -1, 2], [0.3, 0.2, 0.5]) };
  const four = { p: fromWeights([-2, 0, 2, 40], [0.25, 0.25, 0.25, 0.25]), q: fromWeights([-2, 2, 40], [0.3, 0.3, 0.4]) };
  const cases: [string, Discrete, Discrete, boolean, number][] = [
    ['three atoms, α = 10⁴', spike.p, spike.q, false, 1e4],
    ['three atoms, α = 3·10⁴', spike.p, spike.q, false, 3e4],
    ['four atoms, ordered, α = 10⁵', four.p, four.q, true, 1e5],
    ['four atoms, unordered, α = 10⁵', four.p, four.q, false, 1e5],
  ];
  for (const [name, p, q, ordered, alpha] of cases) {
    it(`best→exact never under-noises at large α: ${name}`, () => {
      const r = calibrate(scenario(p, q, ordered), { mechanism: 'laplace', method: 'best', alpha, epsilon: 1 });
      const dirs = ordered
        ? [[p, q]]
        : [
            [p, q],
            [q, p],
          ];
      for (const [a, b] of dirs) expect(oracleRenyi(a, b, 'laplace', r.scale, alpha)).toBeLessThanOrEqual(1 + 1e-12);
      // and it is tight: 1e-6 less noise violates ε
      expect(Math.max(...dirs.map(([a, b]) => oracleRenyi(a, b, 'laplace', r.scale * (1 - 1e-6), alpha)))).toBeGreaterThan(1);
    });
  }

  it('values near 10¹² calibrate exactly as the same data near 0 (the shift is exact)', () => {
    const shift = (d: Discrete, c: number) =>
      fromWeights(
        Array.from(d.values, (x) => x + c),
        Array.from(d.masses),
      );
    const near = { p: shift(spike.p, 5), q: shift(spike.q, 5) }; // atoms 0…7, all ≥ 0
    for (const mechanism of ['laplace', 'gaussian'] as const) {
      for (const c of [1e12, 2 ** 52, 1e9]) {
        const far = calibrate(scenario(shift(near.p, c), shift(near.q, c), false), { mechanism, method: 'exact', alpha: 2, epsilon: 1 });
        const base = calibrate(scenario(shift(near.p, 0), shift(near.q, 0), false), { mechanism, method: 'exact', alpha: 2, epsilon: 1 });
        expect(far.scale).toBe(base.scale);
      }
    }
  });

  it('atoms 10⁶ apart do not inflate the Gaussian error bound (spread case within 0.1% of the optimum)', () => {
    const p = fromWeights([0, 1e-6, 2e-6, 1e6], [0.25, 0.25, 0.25, 0.25]);
    const q = fromWeights([0, 3e-6, 999999, 1e6], [0.25, 0.25, 0.25, 0.25]);
    const r = calibrate(scenario(p, q, false), { mechanism: 'gaussian', method: 'exact', alpha: 2, epsilon: 1 });
    expect(r.check!.error).toBeLessThan(1e-6);
    const d = (s: number) => Math.max(oracleRenyi(p, q, 'gaussian', s, 2), oracleRenyi(q, p, 'gaussian', s, 2));
    expect(d(r.scale)).toBeLessThanOrEqual(1 + 1e-12);
    expect(d(r.scale * 0.999)).toBeGreaterThan(1);
  });
});
