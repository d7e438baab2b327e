import { noiseOf } from '../src/mechanisms/kernels.js';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applicableMethods, calibrate, type CalibrationSettings, type Mechanism } from '../src/calibrate/calibrate.js';
import type { Scenario } from '../src/distribution/scenario.js';
import { fromCounts, fromWeights } from '../src/distribution/discrete.js';
import { exactEvaluation } from '../src/conditions/exact.js';
import { exactRenyi } from '../src/divergence/exactRenyi.js';
import { nearBound } from '../src/mechanisms/exactRule.js';
import { isFeasible } from '../src/numerics/smallestScale.js';
import { builtinScenario } from '../src/scenarios/builtin.js';

const histogram = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 5 })
  .filter((a) => a.some(([, c]) => c > 0))
  .map((a) => ({ values: a.map(([v]) => v), counts: a.map(([, c]) => c) }));
const scenarioArb = fc
  .tuple(histogram, histogram)
  .map(([p, q]): Scenario => ({ name: 'r', priors: [{ name: 'p', conditionals: { a: fromCounts(p.values, p.counts), b: fromCounts(q.values, q.counts) } }] }))
  .filter((s) => {
    const c = s.priors[0].conditionals;
    return c.a.values.join() !== c.b.values.join() || c.a.masses.join() !== c.b.masses.join();
  });

const run = (s: Scenario, mechanism: Mechanism, method: CalibrationSettings['method'], alpha: number, epsilon: number) =>
  calibrate(s, { mechanism, method, alpha, epsilon });

describe('coupled and exact methods (docs/math.md §4)', () => {
  it('exact ≤ coupled ≤ min(theorem, pierquin) on random scenarios (Laplace and Gaussian)', () => {
    fc.assert(
      fc.property(scenarioArb, fc.double({ min: 1.2, max: 6, noNaN: true }), fc.double({ min: 0.2, max: 2, noNaN: true }), (s, a, e) => {
        for (const mech of ['laplace', 'gaussian'] as const) {
          const [th, pq, cp, ex] = (['theorem', 'pierquin', 'coupled', 'exact'] as const).map((m) => run(s, mech, m, a, e).scale);
          expect(cp).toBeLessThanOrEqual(Math.min(th, pq) * (1 + 1e-12));
          expect(ex).toBeLessThanOrEqual(cp);
          if (mech === 'gaussian') expect(cp).toBe(th); // the coupled bound is Theorem 2 for Gaussian noise
        }
      }),
      { numRuns: 25 },
    );
  });

  it('at the exact scale the exact divergence is ≤ ε (both directions) and at 0.999× it is > ε', () => {
    fc.assert(
      fc.property(
        scenarioArb,
        fc.constantFrom<'laplace' | 'gaussian'>('laplace', 'gaussian'),
        fc.constantFrom(0.5, 1.5, 3),
        fc.double({ min: 0.2, max: 2, noNaN: true }),
        (s, mech, a, e) => {
          if (mech === 'gaussian' && a < 1) return;
          const r = run(s, mech, 'exact', a, e);
          if (r.scale === 0) {
            expect(r.explanation).toMatch(/data processing|Proposition 1/);
            expect(r.binding).toBeNull();
            return;
          }
          const { a: p, b: q } = s.priors[0].conditionals;
          const at = exactEvaluation(p, q, noiseOf(mech, r.scale), a, e, false);
          // certified by the exact check, or (where exact = bound, e.g. point masses) by the bound,
          // with the exact value then within its error of ε
          const settings = { mechanism: mech, method: 'exact' as const, alpha: a, epsilon: e };
          const bound = Math.min(
            ...applicableMethods(settings)
              .filter((m) => m !== 'exact')
              .map((m) => run(s, mech, m, a, e).scale),
          );
          expect(isFeasible(at) || (r.scale === bound && at.value - at.error <= e)).toBe(true);
          const below = exactEvaluation(p, q, noiseOf(mech, r.scale * 0.999), a, e, false);
          expect(below.value).toBeGreaterThan(e);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('Laplace α = ∞: exact is the ε-PP level, never above W∞/ε', () => {
    const s = builtinScenario('heart');
    const ex = run(s, 'laplace', 'exact', Infinity, 1);
    const song = run(s, 'laplace', 'wasserstein-inf', Infinity, 1);
    expect(ex.scale).toBeGreaterThan(0);
    expect(ex.scale).toBeLessThanOrEqual(song.scale);
  });

  it('no noise when the data already meets the budget, said with the prior it relies on', () => {
    const r = run(builtinScenario('adult'), 'laplace', 'exact', 2, 1);
    expect(r.scale).toBe(0);
    expect(r.explanation).toMatch(/data processing: D_α\(P_X‖Q_X\) = .* ≤ ε .*prior 'empirical'/);
  });

  it('ordered pairs check one direction only, so never need more noise', () => {
    const base = builtinScenario('student-mat');
    const ordered = { ...base, ordered: true };
    for (const mech of ['laplace', 'gaussian'] as const) {
      // Up to the search's resolution (relative 1e-10): the two directions share one panel set, the
      // one direction has its own, so their certified error bounds (and last digits) differ.
      expect(run(ordered, mech, 'exact', 2, 0.5).scale).toBeLessThanOrEqual(run(base, mech, 'exact', 2, 0.5).scale * (1 + 1e-9));
    }
    // And strictly less where the other direction binds.
    const oneWay = run({ ...builtinScenario('heart'), ordered: true, pairs: [['1', '0']] }, 'laplace', 'exact', 2, 0.5).scale;
    expect(oneWay).toBeLessThan(run(builtinScenario('heart'), 'laplace', 'exact', 2, 0.5).scale * (1 - 1e-6));
  });

  it('best picks the smallest applicable method and names it', () => {
    const r = run(builtinScenario('heart'), 'laplace', 'best', 3, 0.5);
    expect(r.method).toBe('best');
    expect(r.candidates!.map((c) => c.method)).toEqual(['theorem', 'pierquin', 'wasserstein-inf', 'coupled', 'exact']);
    expect(r.scale).toBe(Math.min(...r.candidates!.map((c) => c.scale)));
    expect(r.winner).toBe('exact');
    const g = run(builtinScenario('heart'), 'gaussian', 'best', 3, 0.5);
    expect(g.candidates!.map((c) => c.method)).toEqual(['theorem', 'pierquin', 'coupled', 'exact']);
  });

  it('exponential mechanism with c = |z| is Laplace with b = θ for every method', () => {
    const s = builtinScenario('student-por');
    for (const m of ['theorem', 'coupled', 'exact', 'wasserstein-inf'] as const) {
      expect(run(s, 'exponential', m, 2.5, 0.7).scale).toBeCloseTo(run(s, 'laplace', m, 2.5, 0.7).scale, 12);
    }
  });
});

describe('near pairs (docs/math.md §4): one exact evaluation bounds pairs whose laws are within e^{±δ} of it', () => {
  it('the bound is never below the exact level of the near pair, and within its shift of the reference, α = 1.5, 2, 8, both directions', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 3, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 3, maxLength: 8 }),
        fc.double({ min: -0.01, max: 0.01, noNaN: true }),
        fc.double({ min: 0.2, max: 3, noNaN: true }),
        (a, c, tilt, scale) => {
          const n = Math.min(a.length, c.length);
          const values = Array.from({ length: n }, (_, k) => k);
          const p0 = fromWeights(values, a.slice(0, n)),
            q0 = fromWeights(values, c.slice(0, n));
          // The near pair: each mass tilted by e^{±tilt·k}, renormalised.
          const p = fromWeights(
              values,
              a.slice(0, n).map((w, k) => w * Math.exp(tilt * k)),
            ),
            q = fromWeights(
              values,
              c.slice(0, n).map((w, k) => w * Math.exp(-tilt * k)),
            );
          const noise = noiseOf('laplace', scale);
          for (const alpha of [1.5, 2, 8]) {
            const ref = [exactRenyi(p0, q0, noise, alpha), exactRenyi(q0, p0, noise, alpha)];
            const level = Math.max(...ref.map((r) => r.value + r.error));
            const bound = nearBound({ p: p0, q: q0, scale, level }, p, q, alpha, false);
            for (const [x, y] of [
              [p, q],
              [q, p],
            ]) {
              const d = exactRenyi(x, y, noise, alpha);
              expect(d.value - d.error).toBeLessThanOrEqual(bound);
            }
            // Equal laws: the bound is the reference's own level.
            expect(nearBound({ p: p0, q: q0, scale, level }, p0, q0, alpha, false)).toBeCloseTo(level, 12);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
