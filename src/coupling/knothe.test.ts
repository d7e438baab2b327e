import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atomsOf, coord, pointLaw } from '../distribution/points.js';
import { conditionalCoupling } from './knothe.js';

describe('the Knothe–Rosenblatt coupling', () => {
  it('has the two laws as its marginals, exactly up to one rounding per mass (d = 2, 3; both orders)', () => {
    const law = (d: number) =>
      fc
        .array(fc.tuple(fc.array(fc.integer({ min: 0, max: 4 }), { minLength: d, maxLength: d }), fc.integer({ min: 1, max: 9 })), {
          minLength: 1,
          maxLength: 12,
        })
        .map((xs) =>
          pointLaw(
            xs.map((x) => x[0]),
            { counts: xs.map((x) => x[1]) },
          ),
        );
    const cases = fc
      .integer({ min: 2, max: 3 })
      .chain((d) => fc.tuple(law(d), law(d), fc.shuffledSubarray([0, 1, 2].slice(0, d), { minLength: d, maxLength: d })));
    fc.assert(
      fc.property(cases, ([P, Q, order]) => {
        const c = conditionalCoupling(P, Q, order)!;
        const [mp, mq] = [new Float64Array(atomsOf(P)), new Float64Array(atomsOf(Q))];
        c.mass.forEach((m, k) => {
          expect(m).toBeGreaterThan(0);
          mp[c.p[k]] += m;
          mq[c.q[k]] += m;
        });
        for (const [got, law] of [
          [mp, P],
          [mq, Q],
        ] as const)
          for (let k = 0; k < got.length; k++) expect(Math.abs(got[k] - law.masses[k])).toBeLessThanOrEqual(c.mass.length * 4e-16 * law.masses[k]);
      }),
      { numRuns: 200, seed: 3 },
    );
  });

  it('couples the first coordinate comonotonically and, given it, the conditionals of the next', () => {
    // P: (0, 0) and (0, 2) at ½ each; Q: (1, 1) and (1, 3): the first coordinates meet, then 0 ↔ 1 and 2 ↔ 3.
    const P = pointLaw(
      [
        [0, 0],
        [0, 2],
      ],
      { counts: [1, 1] },
    );
    const Q = pointLaw(
      [
        [1, 3],
        [1, 1],
      ],
      { counts: [1, 1] },
    );
    const c = conditionalCoupling(P, Q, [0, 1])!;
    const pairs = Array.from(c.mass, (m, k) => [coord(P, c.p[k], 1), coord(Q, c.q[k], 1), m]);
    expect(pairs).toEqual([
      [0, 1, 0.5],
      [2, 3, 0.5],
    ]);
  });
});
