import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { calibrate, calibrationRule, type CalibrationSettings, type Mechanism, type Method, type SingleMethod } from '../src/calibrate/calibrate.js';
import type { Scenario } from '../src/distribution/scenario.js';
import { pairCouplings } from '../src/coupling/pairs.js';
import { sqrtCost } from '../src/conditions/costs.js';
import { comonotoneCoupling } from '../src/coupling/comonotone.js';
import { w1, wInf } from '../src/coupling/wasserstein.js';
import { fromCounts, fromWeights } from '../src/distribution/discrete.js';
import { InputError } from '../src/errors.js';
import { isFeasible } from '../src/numerics/smallestScale.js';
import { BUILTIN_IDS, builtinScenario } from '../src/scenarios/builtin.js';
import { EMBEDDED_COUNTS } from '../src/uci/embedded.js';
import { naivePierquin, naiveTheorem1, naiveTheorem2, unitCoupling } from './oracle.js';

const histogram = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 6 })
  .filter((a) => a.some(([, c]) => c > 0))
  .map((a) => ({ values: a.map(([v]) => v / 2), counts: a.map(([, c]) => c) }));
const twoSecrets = fc.tuple(histogram, histogram).filter(([p, q]) => {
  const c = comonotoneCoupling(fromCounts(p.values, p.counts), fromCounts(q.values, q.counts));
  return wInf(c) > 0;
});
const scenarioOf = (p: { values: number[]; counts: number[] }, q: { values: number[]; counts: number[] }): Scenario => ({
  name: 'random',
  priors: [{ name: 'p', conditionals: { a: fromCounts(p.values, p.counts), b: fromCounts(q.values, q.counts) } }],
});
const alphaArb = fc.double({ min: 1.05, max: 40, noNaN: true });
const epsArb = fc.double({ min: 0.05, max: 4, noNaN: true });

describe('Theorem 1 properties (fast-check)', () => {
  it('b lies in [αW₁, αW∞]/((α−1)ε)', () => {
    fc.assert(
      fc.property(twoSecrets, alphaArb, epsArb, ([p, q], a, e) => {
        const r = calibrate(scenarioOf(p, q), { mechanism: 'laplace', method: 'theorem', alpha: a, epsilon: e });
        const c = pairCouplings(scenarioOf(p, q))[0].coupling;
        const k = a / ((a - 1) * e);
        expect(r.scale).toBeGreaterThanOrEqual(k * w1(c) * (1 - 1e-12));
        expect(r.scale).toBeLessThanOrEqual(k * wInf(c) * (1 + 1e-12));
      }),
    );
  });

  it('(1 − 1/α)·b grows with α towards W∞/ε (b itself need not be monotone)', () => {
    // With K(λ) = log E_π* e^{λ|d|} convex, K(0) = 0: (1−1/α)·b = K(λ)/(ελ), increasing in λ = α/b.
    fc.assert(
      fc.property(twoSecrets, epsArb, ([p, q], e) => {
        const s = scenarioOf(p, q);
        const limit = wInf(pairCouplings(s)[0].coupling) / e;
        let prev = 0;
        for (const a of [1.1, 1.5, 2, 4, 16, 256, 1e4, 1e6]) {
          const b = calibrate(s, { mechanism: 'laplace', method: 'theorem', alpha: a, epsilon: e }).scale;
          const v = (1 - 1 / a) * b;
          expect(v).toBeGreaterThanOrEqual(prev * (1 - 1e-12));
          expect(v).toBeLessThanOrEqual(limit * (1 + 1e-12));
          prev = v;
        }
        expect(calibrate(s, { mechanism: 'laplace', method: 'theorem', alpha: 1e9, epsilon: e }).scale / limit).toBeCloseTo(1, 3);
      }),
    );
  });
});

const SETTINGS: [Mechanism, Method, (a: number) => boolean][] = [
  ['laplace', 'theorem', () => true],
  ['laplace', 'pierquin', (a) => a > 1],
  ['laplace', 'wasserstein-inf', () => true],
  ['gaussian', 'theorem', (a) => a > 1 && a < Infinity],
  ['gaussian', 'pierquin', (a) => a > 1 && a < Infinity],
  ['exponential', 'theorem', (a) => a > 1],
  ['exponential', 'wasserstein-inf', () => true],
];

describe('every method returns the least certified scale', () => {
  it('holds at the scale and fails at scale·(1 − 1e-9) (property, all methods, α incl. (0,1) and ∞)', () => {
    fc.assert(
      fc.property(
        twoSecrets,
        fc.oneof(alphaArb, fc.double({ min: 0.05, max: 0.95, noNaN: true }), fc.constant(Infinity), fc.constant(1e6)),
        epsArb,
        fc.constantFrom(...SETTINGS),
        fc.boolean(),
        ([p, q], alpha, epsilon, [mechanism, method, ok], sqrt) => {
          fc.pre(ok(alpha));
          const settings: CalibrationSettings = { mechanism, method, alpha, epsilon, cost: sqrt ? sqrtCost : undefined };
          const s = scenarioOf(p, q);
          const r = calibrate(s, settings);
          if (r.scale === 0) {
            expect(r.binding).toBeNull();
            return;
          }
          expect(r.check && isFeasible(r.check)).toBe(true);
          // re-solve with the pair's own problem to evaluate just below the answer
          const below = problemFeasibleAt(s, settings, r.scale * (1 - 1e-9));
          expect(below).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** Is the pair's condition certified at `scale`? */
function problemFeasibleAt(s: Scenario, settings: CalibrationSettings, scale: number): boolean {
  const p = calibrationRule({ ...settings, method: settings.method as SingleMethod }).problem(pairCouplings(s)[0], s.ordered ?? false);
  return 'zero' in p || isFeasible(p.evaluate(scale));
}

describe('agreement with an independent implementation', () => {
  const oracle = (hp: { values: number[]; counts: number[] }, hq: { values: number[]; counts: number[] }, a: number, e: number) => {
    const atoms = unitCoupling(hp, hq);
    const w = Math.max(...atoms.map((t) => Math.abs(t.x - t.y)));
    return { theorem1: naiveTheorem1(atoms, a, e), theorem2: naiveTheorem2(atoms, a, e), pierquin: naivePierquin(w, a, e) };
  };
  const ours = (s: Scenario, a: number, e: number) => ({
    theorem1: calibrate(s, { mechanism: 'laplace', method: 'theorem', alpha: a, epsilon: e }).scale,
    theorem2: calibrate(s, { mechanism: 'gaussian', method: 'theorem', alpha: a, epsilon: e }).scale,
    pierquin: calibrate(s, { mechanism: 'laplace', method: 'pierquin', alpha: a, epsilon: e }).scale,
  });

  it('to 1e-9 on random distributions', () => {
    fc.assert(
      fc.property(twoSecrets, fc.double({ min: 1.2, max: 8, noNaN: true }), fc.double({ min: 0.2, max: 2, noNaN: true }), ([p, q], a, e) => {
        const o = oracle(p, q, a, e);
        const r = ours(scenarioOf(p, q), a, e);
        for (const k of ['theorem1', 'theorem2', 'pierquin'] as const) expect(Math.abs(r[k] / o[k] - 1)).toBeLessThan(1e-9);
      }),
      { numRuns: 60 },
    );
  });

  it.each(['heart', 'student-mat', 'student-por'])('to 1e-9 on the paper scenario %s', (id) => {
    const [s1, s2] = Object.keys(EMBEDDED_COUNTS[id]);
    for (const [a, e] of [
      [1.5, 0.5],
      [2, 1],
      [5, 0.5],
    ]) {
      const o = oracle(EMBEDDED_COUNTS[id][s1], EMBEDDED_COUNTS[id][s2], a, e);
      const r = ours(builtinScenario(id), a, e);
      for (const k of ['theorem1', 'theorem2', 'pierquin'] as const) expect(Math.abs(r[k] / o[k] - 1)).toBeLessThan(1e-9);
    }
  });
});

describe('max over priors and pairs', () => {
  const s: Scenario = {
    name: 'three secrets, two priors',
    priors: [
      { name: 'narrow', conditionals: { a: fromCounts([0, 1], [1, 1]), b: fromCounts([0, 1], [1, 2]), c: fromCounts([1, 2], [1, 1]) } },
      { name: 'wide', conditionals: { a: fromCounts([0, 1], [1, 1]), b: fromCounts([0, 4], [1, 1]), c: fromCounts([1, 2], [1, 1]) } },
    ],
  };
  it('names the binding prior and pair; every pair is covered', () => {
    const r = calibrate(s, { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 });
    expect(r.pairs).toHaveLength(6);
    expect(r.binding).toEqual({ prior: 'wide', pair: ['a', 'b'] });
    expect(r.scale).toBe(Math.max(...r.pairs.map((p) => p.scale)));
  });
});

describe('degenerate but valid input', () => {
  const two = (p: [number[], number[]], q: [number[], number[]]): Scenario => ({
    name: 'd',
    priors: [{ name: 'p', conditionals: { a: fromWeights(...p), b: fromWeights(...q) } }],
  });
  it('identical conditionals need no noise, with the reason', () => {
    const r = calibrate(
      two(
        [
          [1, 2],
          [1, 1],
        ],
        [
          [2, 1],
          [0.5, 0.5],
        ],
      ),
      { mechanism: 'gaussian', method: 'theorem', alpha: 2, epsilon: 1 },
    );
    expect(r.scale).toBe(0);
    expect(r.variance).toBe(0);
    expect(r.binding).toBeNull();
    expect(r.explanation).toMatch(/identical/);
  });
  it('one atom each, disjoint supports, huge α, tiny ε give finite certified answers', () => {
    const cases: [Scenario, number, number][] = [
      [two([[0], [1]], [[7], [1]]), 1e6, 1],
      [
        two(
          [
            [0, 1],
            [1, 1],
          ],
          [
            [100, 101],
            [1, 3],
          ],
        ),
        2,
        1e-6,
      ],
      [
        two(
          [
            [0, 1],
            [1, 1],
          ],
          [
            [100, 101],
            [1, 3],
          ],
        ),
        1.000001,
        1e-6,
      ],
      [
        two(
          [
            [0, 1e-9],
            [1, 1],
          ],
          [[1e9], [1]],
        ),
        3,
        0.5,
      ],
    ];
    for (const [s, alpha, epsilon] of cases)
      for (const [mechanism, method, ok] of SETTINGS) {
        if (!ok(alpha)) continue;
        const r = calibrate(s, { mechanism, method, alpha, epsilon });
        expect(Number.isFinite(r.scale) && r.scale > 0).toBe(true);
        expect(r.check && isFeasible(r.check)).toBe(true);
      }
  });
});

describe('bad settings', () => {
  const s = builtinScenario('adult');
  it.each([
    [{ alpha: 0 }, 'alpha: must be a number > 0 or "inf", got 0'],
    [{ alpha: -2 }, 'alpha: must be a number > 0'],
    [{ alpha: NaN }, 'alpha: must be a number > 0'],
    [{ alpha: 1 }, 'alpha: α = 1 (KL divergence)'],
    [{ epsilon: 0 }, 'epsilon: must be a finite number > 0, got 0'],
    [{ epsilon: -1 }, 'epsilon: must be a finite number > 0'],
    [{ epsilon: Infinity }, 'epsilon: must be a finite number > 0'],
    [{ mechanism: 'gaussian', alpha: Infinity }, 'alpha: Gaussian noise cannot give α = ∞'],
    [{ mechanism: 'gaussian', alpha: 0.5 }, 'alpha: Gaussian calibration (Theorem 2) needs α > 1'],
    [{ mechanism: 'gaussian', method: 'wasserstein-inf' }, 'method: wasserstein-inf does not apply to gaussian'],
    [{ mechanism: 'exponential', method: 'pierquin' }, 'method: pierquin does not apply to exponential'],
    [{ method: 'pierquin', alpha: 0.5 }, 'method: pierquin does not apply to laplace at α = 0.5'],
  ] as [Partial<CalibrationSettings>, string][])('%o', (over, msg) => {
    const run = () => calibrate(s, { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1, ...over });
    expect(run).toThrow(InputError);
    expect(run).toThrow(msg);
  });
  it('built-in scenarios are all there', () => expect(BUILTIN_IDS).toEqual(['adult', 'heart', 'student-mat', 'student-por']));
});
