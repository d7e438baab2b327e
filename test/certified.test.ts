import { describe, expect, it } from 'vitest';
import { calibrate, certifiedAt } from '../src/calibrate/calibrate.js';
import { pointLaw } from '../src/distribution/points.js';
import { markovScenario } from '../src/markov/source.js';
import { validateSpec } from '../src/markov/chain.js';
import { worseOf } from '../src/numerics/logExpectation.js';

const P = pointLaw(
  [
    [0, 0],
    [1, 2],
    [3, 1],
  ],
  { counts: [3, 1, 2] },
);
const Q = pointLaw(
  [
    [0, 0],
    [1, 2],
    [2, 2],
  ],
  { counts: [1, 3, 1] },
);
const R = pointLaw(
  [
    [1, 1],
    [2, 0],
  ],
  { counts: [1, 1] },
);
const vectors = { name: 'v', priors: [{ name: 'p', conditionals: { a: P, b: Q, c: R } }] };
const mixture = {
  name: 'g',
  priors: [
    {
      name: 'p',
      conditionals: {
        a: [{ mean: 0, sd: 1, weight: 1 }],
        b: [
          { mean: 0.5, sd: 1, weight: 0.5 },
          { mean: 2, sd: 1, weight: 0.5 },
        ],
      },
    },
  ],
};

describe('certifiedAt: one check over every kind, pair by pair as calibrate would stop', () => {
  it('vectors: the calibrated scale is certified for each pair, by a method of best; a tenth of it is not', () => {
    for (const mechanism of ['laplace', 'gaussian'] as const) {
      const settings = { mechanism, alpha: 2, epsilon: 0.5 };
      const c = calibrate(vectors, { ...settings, method: 'best' });
      const at = certifiedAt(vectors, settings, c.scale);
      expect(at.certified).toBe(true);
      expect(at.units.map((u) => u.label.pair.join('-')).sort()).toEqual(['a-b', 'a-c', 'b-c']);
      expect(at.units.every((u) => u.by !== null)).toBe(true);
      expect(certifiedAt(vectors, settings, c.scale / 10).certified).toBe(false);
    }
  });

  it('Gaussian priors: the calibrated σ is certified; half of it is not', () => {
    const settings = { mechanism: 'gaussian', alpha: 2, epsilon: 0.5 } as const;
    const c = calibrate(mixture, { ...settings, method: 'best' });
    expect(certifiedAt(mixture, settings, c.scale).certified).toBe(true);
    expect(certifiedAt(mixture, settings, c.scale / 2).certified).toBe(false);
  });

  it("a chain's own methods (one scale for every coordinate) take no coordinate weights: a weight below 1 would get less noise than they certify", () => {
    const histogram = markovScenario(
      validateSpec({
        states: ['s', 'c', 'r'],
        chains: [
          {
            name: 'a',
            transition: [
              [0.6, 0.3, 0.1],
              [0.3, 0.4, 0.3],
              [0.2, 0.3, 0.5],
            ],
            initial: 'stationary',
          },
        ],
        length: 8,
        query: { histogram: true },
      }),
      'histogram',
    ).scenario;
    const settings = { mechanism: 'laplace', alpha: 2, epsilon: 1, coordinateScales: [0.01, 1, 1] } as const;
    expect(() => calibrate(histogram, { ...settings, method: 'mqm-exact' as never })).toThrow(/takes no --coordinate-scales/);
    const mqm = calibrate(histogram, { ...settings, coordinateScales: undefined, method: 'mqm-exact' as never }).scale;
    // The MQM's scale at equal weights is no certificate once coordinate 1 gets a hundredth of it.
    expect(certifiedAt(histogram, settings, mqm).units.some((u) => u.by === 'mqm-exact')).toBe(false);
    const best = calibrate(histogram, { ...settings, method: 'best' });
    expect(best.winner).not.toMatch(/mqm|group-dp|gk16/);
    expect(best.scale * 0.01).toBeGreaterThan(mqm / 100);
  });
});

describe('worseOf: the worse of two directions, never certified on what is not bounded', () => {
  it('takes the largest upper end, the first on a tie; a declined rule, nothing or a NaN is unbounded', () => {
    expect(
      worseOf([
        { value: 1, error: 0.5 },
        { value: 1.2, error: 0 },
      ]),
    ).toEqual({ value: 1, error: 0.5 });
    expect(
      worseOf([
        { value: 1, error: 0 },
        { value: 0.5, error: 0.5 },
      ]),
    ).toEqual({ value: 1, error: 0 });
    expect(worseOf(null).value).toBe(Infinity);
    expect(worseOf([]).value).toBe(Infinity);
    expect(
      worseOf([
        { value: 0, error: 0 },
        { value: Number.NaN, error: 0 },
      ]).value,
    ).toBe(Infinity);
    expect(
      worseOf([
        { value: Number.NaN, error: 0 },
        { value: 0, error: 0 },
      ]).value,
    ).toBe(Infinity);
  });
});
