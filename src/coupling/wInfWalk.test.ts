import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBinaryMasses, fromCounts, fromWeights } from '../distribution/discrete.js';
import { validateSpec } from '../markov/chain.js';
import { markovScenario } from '../markov/source.js';
import { comonotoneCoupling } from './comonotone.js';
import { wInf } from './wasserstein.js';
import { comonotoneWInf } from './wInfWalk.js';
import type { Scenario } from '../distribution/scenario.js';

const both = (p: ReturnType<typeof fromCounts>, q: ReturnType<typeof fromCounts>) => [comonotoneWInf(p, q), wInf(comonotoneCoupling(p, q))];

describe('comonotoneWInf: W∞ of π* without building it, the same number as the exact coupling', () => {
  it('small integer counts (many exact ties of the distribution functions)', () => {
    const law = fc.array(fc.tuple(fc.integer({ min: -6, max: 6 }), fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(law, law, (a, b) => {
        const [x, y] = both(
          fromCounts(
            a.map(([v]) => v),
            a.map(([, c]) => c),
          ),
          fromCounts(
            b.map(([v]) => v),
            b.map(([, c]) => c),
          ),
        );
        return x === y;
      }),
      { numRuns: 2000 },
    );
  });

  it('decimal weights and values, and masses spanning 2^-1000 to 1 (tails where F rounds to 1)', () => {
    const law = fc.array(
      fc.tuple(fc.double({ min: -50, max: 50, noNaN: true }), fc.integer({ min: -1000, max: 0 }), fc.double({ min: 0.5, max: 1, noNaN: true })),
      {
        minLength: 1,
        maxLength: 40,
      },
    );
    fc.assert(
      fc.property(law, law, (a, b) => {
        const mk = (l: typeof a) =>
          fromBinaryMasses(
            l.map(([v]) => v),
            l.map(([, e, m]) => m * 2 ** e),
          );
        const [x, y] = both(mk(a), mk(b));
        return x === y;
      }),
      { numRuns: 1000 },
    );
    const w = fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.double({ min: 0.001, max: 10, noNaN: true })), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(w, w, (a, b) => {
        const mk = (l: typeof a) =>
          fromWeights(
            l.map(([v]) => v / 4),
            l.map(([, x]) => Number(x.toFixed(3)) || 0.001),
          );
        const [x, y] = both(mk(a), mk(b));
        return x === y;
      }),
      { numRuns: 1000 },
    );
  });

  it('masses below the normal doubles are compared in integers (a subnormal sum is not relatively accurate)', () => {
    const p = fromWeights([0, 10, 20], [2.52e-300, 2.52e-300, 1e24]);
    const q = fromWeights([0, 10], [6.92e-300, 1e24]);
    const [x, y] = both(p, q);
    expect(y).toBe(20);
    expect(x).toBe(y);
    expect(comonotoneWInf(p, q, 2 ** -40)).toBeLessThanOrEqual(y);
  });

  it("a Markov chain's laws (long tails of tiny masses, equal supports) give the coupling's W∞ at every pair", () => {
    const model = validateSpec({
      states: ['0', '1'],
      chains: [
        {
          name: 'c',
          transition: [
            [0.9, 0.1],
            [0.2, 0.8],
          ],
          initial: 'stationary',
        },
      ],
      length: 60,
      query: { count: '1' },
    });
    const s = markovScenario(model, 'c').scenario as Scenario;
    const c = s.priors[0].conditionals;
    let pairs = 0;
    for (let i = 1; i <= 60; i++) {
      const [x, y] = both(c[`X[${i}]=0`], c[`X[${i}]=1`]);
      expect(x, `X[${i}]`).toBe(y);
      pairs++;
    }
    expect(pairs).toBe(60);
  });
});
