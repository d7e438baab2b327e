import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromWeights } from '../../distribution/discrete.js';
import { pairCoupling } from '../../coupling/pairs.js';
import { isFeasible } from '../../numerics/smallestScale.js';
import { calibrationRule } from '../../calibrate/rules.js';

/** Random laws: 1–40 atoms on a grid of quarters, weights from 10⁻⁸ to 1. */
const law = fc.array(fc.tuple(fc.integer({ min: -40, max: 40 }), fc.double({ min: -8, max: 0, noNaN: true })), { minLength: 1, maxLength: 40 }).map((a) => {
  const byValue = new Map(a.map(([x, w]) => [x / 4, 10 ** w]));
  const xs = [...byValue.keys()].sort((p, q) => p - q);
  return fromWeights(
    xs,
    xs.map((x) => Number(byValue.get(x)!.toPrecision(6))),
  );
});

describe("Laplace theorem and coupled: the W∞ check says 'holds' only where the full condition holds", () => {
  it('on random pairs, orders and scales: holdsAt true ⇒ the condition evaluated on π* is feasible; and it says so often', () => {
    let cheap = 0;
    fc.assert(
      fc.property(law, law, fc.constantFrom(1.5, 2, 5, 20), fc.double({ min: 0.5, max: 2.5, noNaN: true }), (p, q, alpha, lg) => {
        const pc = pairCoupling('p', ['a', 'b'], p, q);
        for (const method of ['theorem', 'coupled'] as const) {
          const rule = calibrationRule({ mechanism: 'laplace', method, alpha, epsilon: 1 });
          const b = 10 ** lg;
          if (!rule.holdsAt?.(pc, false, b)) continue;
          cheap++;
          const pr = rule.problem(pc, false);
          if ('zero' in pr) continue;
          expect(isFeasible(pr.evaluate(b))).toBe(true);
        }
      }),
      { numRuns: 300, seed: 20261204 },
    );
    expect(cheap).toBeGreaterThan(100);
  });
});
