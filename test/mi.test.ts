import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromCounts, fromWeights } from '../src/distribution/discrete.js';
import { exactLaplaceDInf } from '../src/divergence/exactRenyi.js';
import { calibrateMI } from '../src/mi/calibrateMI.js';
import { discreteMutualInformation, exactMutualInformation } from '../src/mi/mutualInformation.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import type { Prior } from '../src/calibrate/scenario.js';

const twoPoints = (d: number): Prior => ({ name: 'p', conditionals: { a: fromCounts([0], [1]), b: fromCounts([d], [1]) }, probabilities: { a: 1, b: 1 } });

describe('mutual information I(Y; S)', () => {
  it('point masses: 0 when identical, log 2 when the noise cannot blur them, and symmetric', () => {
    const same: Prior = { name: 'p', conditionals: { a: fromCounts([3], [1]), b: fromCounts([3], [2]) } };
    expect(exactMutualInformation(same, { family: 'gaussian', scale: 1 }).value).toBeLessThan(1e-14);
    expect(exactMutualInformation(twoPoints(1), { family: 'gaussian', scale: 0.02 }).value).toBeCloseTo(Math.LN2, 12);
    expect(exactMutualInformation(twoPoints(1), { family: 'laplace', scale: 0.01 }).value).toBeCloseTo(Math.LN2, 10);
    expect(exactMutualInformation(twoPoints(-2), { family: 'laplace', scale: 1 }).value).toBeCloseTo(exactMutualInformation(twoPoints(2), { family: 'laplace', scale: 1 }).value, 13);
  });

  it('a Gaussian prior with every value its own secret gives I(Y; X) = ½ log(1 + τ²/σ²)', () => {
    // X ~ N(0, 1) on a fine grid; each grid value is a secret with its own probability.
    const xs = Array.from({ length: 241 }, (_, i) => -6 + i * 0.05);
    const ws = xs.map((x) => Math.exp(-x * x / 2));
    const prior: Prior = { name: 'gauss', conditionals: Object.fromEntries(xs.map((x, i) => [`x${i}`, fromCounts([x], [1])])), probabilities: Object.fromEntries(ws.map((w, i) => [`x${i}`, w])) };
    for (const sigma of [1, 2]) {
      const I = exactMutualInformation(prior, { family: 'gaussian', scale: sigma }).value;
      expect(I).toBeCloseTo(0.5 * Math.log(1 + 1 / sigma ** 2), 4);
    }
  });

  it('is below I(X; S) and below the ε-PP level’s ε·tanh(ε/2) (MATH.md §7)', () => {
    const hist = fc.array(fc.tuple(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 9 })), { minLength: 1, maxLength: 5 }).map((a) => fromCounts(a.map(([v]) => v), a.map(([, c]) => c)));
    fc.assert(
      fc.property(hist, hist, fc.double({ min: 0.3, max: 4, noNaN: true }), fc.double({ min: 0.1, max: 0.9, noNaN: true }), (p, q, b, pa) => {
        const prior: Prior = { name: 'r', conditionals: { a: p, b: q }, probabilities: { a: pa, b: 1 - pa } };
        const I = exactMutualInformation(prior, { family: 'laplace', scale: b });
        expect(I.value).toBeLessThanOrEqual(discreteMutualInformation(prior).value + 1e-12);
        const eps = Math.max(exactLaplaceDInf(p, q, b).value, exactLaplaceDInf(q, p, b).value);
        expect(I.value).toBeLessThanOrEqual(eps * Math.tanh(eps / 2) + 1e-12);
      }),
      { numRuns: 40 },
    );
  });

  it('the composition counterexample: each release leaks 0 nats about U⊕V, together 0.1736', () => {
    // U, V fair bits, g = U⊕V, M1 = U + N(0, 0.25), M2 = V + N(0, 0.25). Each M_i is independent of g.
    const s = 0.5;
    const phi = (z: number) => Math.exp(-(z * z) / (2 * s * s)) / (s * Math.sqrt(2 * Math.PI));
    const h = 0.004;
    let I = 0;
    for (let a = -3; a <= 4; a += h) for (let b = -3; b <= 4; b += h) {
      const p0 = 0.5 * (phi(a) * phi(b) + phi(a - 1) * phi(b - 1)); // g = 0
      const p1 = 0.5 * (phi(a - 1) * phi(b) + phi(a) * phi(b - 1)); // g = 1
      const m = 0.5 * (p0 + p1);
      if (p0 > 0) I += 0.5 * p0 * Math.log(p0 / m) * h * h;
      if (p1 > 0) I += 0.5 * p1 * Math.log(p1 / m) * h * h;
    }
    expect(I).toBeCloseTo(0.1736, 4);
    // one release alone: M1 | g is the same mixture ½N(0) + ½N(1) for g = 0 and 1
    const single: Prior = { name: 'one', conditionals: { g0: fromWeights([0, 1], [0.5, 0.5]), g1: fromWeights([0, 1], [0.5, 0.5]) } };
    expect(exactMutualInformation(single, { family: 'gaussian', scale: s }).value).toBeLessThan(1e-14);
  });
});

describe('MI calibration', () => {
  it('mi-exact: I ≤ ε at the scale, > ε just below; mi-variance is never smaller (random scenarios)', () => {
    const hist = fc.array(fc.tuple(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 1, max: 9 })), { minLength: 1, maxLength: 5 }).map((a) => fromCounts(a.map(([v]) => v), a.map(([, c]) => c)));
    fc.assert(
      fc.property(hist, hist, fc.constantFrom<'laplace' | 'gaussian'>('laplace', 'gaussian'), fc.double({ min: 0.005, max: 0.2, noNaN: true }), (p, q, mechanism, epsilon) => {
        const sc = { name: 'r', priors: [{ name: 'r', conditionals: { a: p, b: q } }] };
        const ex = calibrateMI(sc, { mechanism, method: 'mi-exact', epsilon });
        const va = calibrateMI(sc, { mechanism, method: 'mi-variance', epsilon });
        expect(va.scale).toBeGreaterThanOrEqual(ex.scale);
        if (ex.scale === 0) return;
        const at = (s: number) => exactMutualInformation(sc.priors[0], { family: mechanism, scale: s });
        const ok = at(ex.scale);
        expect(ok.value + ok.error).toBeLessThanOrEqual(epsilon * (1 + 1e-9));
        if (ex.scale < va.scale) expect(at(ex.scale * 0.999).value).toBeGreaterThan(epsilon);
      }),
      { numRuns: 25 },
    );
  });

  it('the built-in scenarios: no noise when I(X;S) ≤ ε, said plainly', () => {
    const r = calibrateMI(builtinScenario('adult'), { mechanism: 'gaussian', method: 'mi-exact', epsilon: 0.1 });
    expect(r.scale).toBe(0);
    expect(r.explanation).toMatch(/I\(X;S\) = .* ≤ ε for the data itself/);
  });
});
