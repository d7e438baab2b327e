import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromCounts, fromWeights } from '../distribution/discrete.js';
import { floatCoupling, unitCoupling } from '../../test/oracle.js';
import { comonotoneCoupling, transpose } from './comonotone.js';
import { w1, wassersteinP, wInf } from './wasserstein.js';

const histogram = fc
  .array(fc.tuple(fc.integer({ min: -20, max: 20 }), fc.integer({ min: 0, max: 6 })), { minLength: 1, maxLength: 7 })
  .filter((a) => a.some(([, c]) => c > 0))
  .map((a) => ({ values: a.map(([v]) => v), counts: a.map(([, c]) => c) }));

describe('comonotoneCoupling', () => {
  it('pairs quantiles: {0:½,1:½} with {0:½,2:½}', () => {
    const c = comonotoneCoupling(fromCounts([0, 1], [1, 1]), fromCounts([0, 2], [1, 1]));
    expect([...c.x]).toEqual([0, 1]);
    expect([...c.y]).toEqual([0, 2]);
    expect([...c.mass]).toEqual([0.5, 0.5]);
    expect(wInf(c)).toBe(1);
  });

  it('creates no spurious atoms from float weights (a float walk does)', () => {
    // 0.1 + 0.2 ≠ 0.3 in floating point: the float walk leaves ~3e-17 of the atom at 1 to pair
    // with 100, so its W∞ is 99. The exact walk pairs (0,0), (1,0), (100,100): W∞ = 1.
    const p = { values: [0, 1, 100], weights: [0.1, 0.2, 0.7] };
    const q = { values: [0, 100], weights: [0.3, 0.7] };
    const naive = floatCoupling(p, q);
    expect(Math.max(...naive.map((a) => Math.abs(a.x - a.y)))).toBe(99);
    const c = comonotoneCoupling(fromWeights(p.values, p.weights), fromWeights(q.values, q.weights));
    expect(wInf(c)).toBe(1);
    expect(c.x.length).toBe(3);
  });

  it('equals the unit-expansion oracle and has the right marginals (property)', () => {
    fc.assert(
      fc.property(histogram, histogram, (hp, hq) => {
        const c = comonotoneCoupling(fromCounts(hp.values, hp.counts), fromCounts(hq.values, hq.counts));
        const oracle = unitCoupling(hp, hq).sort((a, b) => a.x - b.x || a.y - b.y);
        expect(c.x.length).toBe(oracle.length);
        oracle.forEach((o, k) => {
          expect(c.x[k]).toBe(o.x);
          expect(c.y[k]).toBe(o.y);
          expect(c.mass[k]).toBeCloseTo(o.m, 12);
        });
        expect(c.mass.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 13);
        // comonotone: both coordinates non-decreasing along the walk
        for (let k = 1; k < c.x.length; k++) expect(c.x[k] >= c.x[k - 1] && c.y[k] >= c.y[k - 1]).toBe(true);
      }),
    );
  });

  it('W₁ ≤ W₂ ≤ W∞, and transposing keeps them (property)', () => {
    fc.assert(
      fc.property(histogram, histogram, (hp, hq) => {
        const c = comonotoneCoupling(fromCounts(hp.values, hp.counts), fromCounts(hq.values, hq.counts));
        const [a, b, d] = [w1(c), wassersteinP(c, 2), wInf(c)];
        expect(a).toBeLessThanOrEqual(b * (1 + 1e-12));
        expect(b).toBeLessThanOrEqual(d * (1 + 1e-12));
        expect(wassersteinP(transpose(c), 2)).toBe(b);
        expect(wassersteinP(c, 1e6)).toBeCloseTo(d, 3); // W_p → W∞ without overflow
      }),
    );
  });

  it('W₁ of shifted distributions is the shift', () => {
    const c = comonotoneCoupling(fromCounts([0, 1, 5], [1, 2, 3]), fromCounts([2.5, 3.5, 7.5], [1, 2, 3]));
    expect(w1(c)).toBeCloseTo(2.5, 14);
    expect(wInf(c)).toBe(2.5);
  });
});
