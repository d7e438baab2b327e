import { noiseOf } from '../kernels.js';
import { describe, expect, it } from 'vitest';
import { fromCounts, fromWeights } from '../../distribution/discrete.js';
import { DEGENERATE_PAIRS, randomAgreement, support } from '../../../test/supports.js';
import { exactRenyi, exactRenyiBoth, logMassIn } from '../../divergence/exactRenyi.js';
import { mixtureOf } from '../../divergence/mixture.js';
import { gaussianGridRule } from './gridRule.js';
import { seededUniform } from '../../sources/priors.js';

const both = <T>(p: T, q: T) => [
  [p, q],
  [q, p],
];

describe('gaussianGridRule (docs/math.md §8, grid rule)', () => {
  it('agrees with the plain evaluator within the two stated errors on dense and sparse supports, both directions', () => {
    let cases = 0,
      ran = 0;
    for (const gaps of ['interleaved', 'log-uniform'] as const) {
      const p = support(60, 3, gaps),
        q = support(60, 4, gaps);
      for (const scale of [0.05, 0.3, 2.3, 40])
        for (const alpha of [0.5, 2, 8, 50]) {
          const fast = exactRenyiBoth(p, q, noiseOf('gaussian', scale), alpha, { rtol: 1e-10 });
          const direct = gaussianGridRule(mixtureOf(p), mixtureOf(q), alpha, scale, 1e-10, true);
          cases++;
          if (direct) ran++;
          for (const [k, [a, b]] of both(p, q).entries()) {
            const oracle = exactRenyi(a, b, noiseOf('gaussian', scale), alpha, { rtol: 1e-10, evaluator: 'plain' });
            expect(fast[k].error).toBeLessThan(1e-8 * Math.max(1, Math.abs(fast[k].value)));
            expect(Math.abs(fast[k].value - oracle.value)).toBeLessThanOrEqual(fast[k].error + oracle.error);
            if (direct) {
              const value = direct[k].value / (alpha - 1),
                error = direct[k].error / Math.abs(alpha - 1);
              expect(Math.abs(value - oracle.value)).toBeLessThanOrEqual(error + oracle.error);
            }
          }
        }
    }
    // It declines only where atoms lie many σ apart (a mixture may vanish near the real line there).
    expect(ran).toBeGreaterThanOrEqual(cases / 2);
  });

  it('degenerate but valid input: one atom, a shared support, a 1e-300 weight, data near 10¹², α near 1 and 0 and at 200', () => {
    const cases = DEGENERATE_PAIRS;
    for (const [p, q] of cases)
      for (const alpha of [1.0001, 0.001, 200])
        for (const scale of [0.3, 50]) {
          const fast = exactRenyiBoth(p, q, noiseOf('gaussian', scale), alpha, { rtol: 1e-10 });
          for (const [k, [a, b]] of both(p, q).entries()) {
            const oracle = exactRenyi(a, b, noiseOf('gaussian', scale), alpha, { rtol: 1e-10, evaluator: 'plain' });
            expect(Number.isFinite(fast[k].value)).toBe(true);
            expect(Math.abs(fast[k].value - oracle.value)).toBeLessThanOrEqual(fast[k].error + oracle.error);
          }
        }
  });

  it('one atom against one atom: the closed form α·Δ²/2σ², within the stated error', () => {
    for (const alpha of [0.5, 2, 30])
      for (const sigma of [0.1, 1, 7]) {
        const r = gaussianGridRule(mixtureOf(fromCounts([0], [1])), mixtureOf(fromCounts([1], [1])), alpha, sigma, 1e-12, false);
        expect(r).not.toBeNull();
        const value = r![0].value / (alpha - 1);
        expect(Math.abs(value - alpha / (2 * sigma * sigma))).toBeLessThanOrEqual(r![0].error / Math.abs(alpha - 1) + 1e-15 * value);
      }
  });

  it('halves the panels it cannot certify, and fewer points than the adaptive quadrature on dense atoms', () => {
    const p = support(3000, 5, 'interleaved'),
      q = support(3000, 6, 'interleaved');
    const r = gaussianGridRule(mixtureOf(p), mixtureOf(q), 2, 1, 1e-12, false)!;
    const adaptive = exactRenyi(p, q, noiseOf('gaussian', 1), 2, { rtol: 1e-12, adaptive: true });
    expect(Math.abs(r[0].value - adaptive.value)).toBeLessThanOrEqual(r[0].error + adaptive.error);
    expect(r[0].nodes).toBeLessThan(adaptive.nodes);
  });

  it('weights e^{−740} below the largest near the point: the windowed sums are re-summed, not left in the subnormals', () => {
    const w = 3e-323;
    const xs = [0, 1000, 1001.7, 1003.1, 1004.9];
    const p = fromWeights(xs, [1, w, w, w, w]),
      q = fromWeights(xs, [0.5, 0.1, 0.1, 0.2, 0.1]);
    const r = gaussianGridRule(mixtureOf(p), mixtureOf(q), 0.01, 1, 1e-10, true)!;
    expect(r).not.toBeNull();
    for (const [k, [a, b]] of both(p, q).entries()) {
      const oracle = exactRenyi(a, b, noiseOf('gaussian', 1), 0.01, { rtol: 1e-10, evaluator: 'plain' });
      expect(Math.abs(r[k].value / (0.01 - 1) - oracle.value)).toBeLessThanOrEqual(r[k].error / 0.99 + oracle.error);
    }
  });

  it('atoms 10¹² σ apart and more: it declines at once (grid indices stay exact integers), and the accountant answers', () => {
    for (const [b, sigma, alpha] of [
      [365, 1e-12, 8],
      [1e12, 1e-3, 2],
      [1e9, 1e-5, 50],
    ]) {
      const p = fromWeights([0, b], [0.5, 0.5]),
        q = fromWeights([0, b], [0.3, 0.7]);
      expect(gaussianGridRule(mixtureOf(p), mixtureOf(q), alpha, sigma, 1e-10, true)).toBeNull();
      expect(Number.isNaN(exactRenyiBoth(p, q, noiseOf('gaussian', sigma), alpha, { rtol: 1e-10 })[0].value)).toBe(false);
    }
  });

  it('random supports (atoms 10⁻⁶ to 10 apart, weights down to 10⁻³⁰⁰), scales and orders: within the stated errors of the plain evaluator', () => {
    expect(randomAgreement(gaussianGridRule, 'gaussian')).toBeGreaterThan(20);
  }, 120_000);
});

/**
 * The upper tail Φ(−z) for z ≥ 0: erf's Taylor series below 1 (terms at most e^{1/2}, so about 10⁻¹⁶
 * absolute), the continued fraction φ(z)/(z + 1/(z + 2/(z + …))) beyond (relative 10⁻¹⁵).
 */
function upperTail(z: number): number {
  if (z < 1) {
    const t = z / Math.SQRT2;
    let term = t,
      sum = t;
    for (let n = 1; n < 60; n++) {
      term *= (-t * t) / n;
      sum += term / (2 * n + 1);
    }
    return 0.5 - sum / Math.sqrt(Math.PI);
  }
  let f = z;
  for (let k = 4000; k >= 1; k--) f = z + k / f;
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI) / f;
}

/** log P(x + N(0, σ²) ∈ [lo, hi]) from the tails, never subtracting numbers near 1. */
function logAtomMass(x: number, lo: number, hi: number, sigma: number): number {
  const [a, b] = [(lo - x) / sigma, (hi - x) / sigma];
  if (a >= 0) return Math.log(upperTail(a) - upperTail(b));
  if (b <= 0) return Math.log(upperTail(-b) - upperTail(-a));
  return Math.log1p(-upperTail(-a) - upperTail(b));
}

describe('gaussianGridRule over an interval (a truncated release, docs/math.md §5)', () => {
  it("one atom's mass in [LO, HI]: Φ((HI − x)/σ) − Φ((LO − x)/σ) within the stated error, at an end and inside", () => {
    for (const [x, lo, hi, sigma] of [
      [0, -1, 1, 1],
      [60, 0, 60, 0.09375],
      [0.3, 0, 1, 0.2],
      [2, 0, 1, 0.5],
      [-1, 0, 3, 0.7],
      [5, 4.9, 5.05, 0.01],
    ]) {
      const m = logMassIn(fromCounts([x], [1]), noiseOf('gaussian', sigma), [lo, hi]);
      const truth = logAtomMass(x, lo, hi, sigma);
      expect(Math.abs(m.value - truth), `${x} in [${lo}, ${hi}] at σ = ${sigma}`).toBeLessThanOrEqual(m.error + 1e-14);
      const r = gaussianGridRule(mixtureOf(fromCounts([x], [1])), mixtureOf(fromCounts([x], [1])), 1, sigma, 1e-12, false, [lo, hi]);
      expect(r, 'the grid rule certifies one atom').not.toBeNull();
    }
  });

  it('a mixture with an atom a million σ away: its share, not its quadrature, decides the error', () => {
    const m = logMassIn(fromCounts([0, 1e6], [1, 1]), noiseOf('gaussian', 1), [-5, 5]);
    expect(Math.abs(m.value - (Math.log(0.5) + logAtomMass(0, -5, 5, 1)))).toBeLessThanOrEqual(m.error + 1e-14);
    expect(m.error).toBeLessThan(1e-11);
    // Many atoms spread over 10⁴σ, weights 1 to 10⁻³⁰⁰: the sum of the terms, each within its error.
    const xs = Array.from({ length: 40 }, (_, i) => -5000 + 250 * i + (i % 3) * 0.37);
    const ws = xs.map((_, i) => 10 ** -(i * 7.5));
    const t = logMassIn(fromWeights(xs, ws), noiseOf('gaussian', 3), [-40, 60]);
    const terms = xs.map((x, i) => Math.log(ws[i] / ws.reduce((a, w) => a + w, 0)) + logAtomMass(x, -40, 60, 3));
    const top = Math.max(...terms);
    const truth = top + Math.log(terms.reduce((a, l) => a + Math.exp(l - top), 0));
    expect(Math.abs(t.value - truth)).toBeLessThanOrEqual(t.error + 1e-13);
    expect(t.error).toBeLessThan(1e-11);
  });

  it('an interval a few hundred ulps wide at a huge σ: the mass (below e^{−708} of its bound) is summed in logs (helper-59)', () => {
    for (const sigma of [1e15, 1e18, 1e20])
      for (const w of [1e-290, 1e-305]) {
        const m = logMassIn(fromCounts([0], [1]), noiseOf('gaussian', sigma), [-w, w]);
        // φ is flat across the interval to a relative (w/σ)²: the mass is its width times φ(0)/σ.
        const truth = Math.log(2 * w) - Math.log(sigma) - 0.5 * Math.log(2 * Math.PI);
        expect(Math.abs(m.value - truth), `σ = ${sigma}, ±${w}`).toBeLessThanOrEqual(m.error + 1e-13);
      }
  });

  it('an atom whose mass no rule certifies (σ = 10⁻²⁰ at 10¹², σ below 10⁻¹⁵⁰) counts by its bound alone: never NaN, never a false certificate (helper-60)', () => {
    const cases: [number[], number[], number, [number, number], number][] = [
      [[0, 1e12], [1, 2], 1e-20, [1e12, 1e12 + 64], Math.log(2 / 3)],
      [[-1, 1e12], [1, 2], 1e-20, [-1, 1e12], Math.log(0.5)],
      [[0], [1], 1e-140, [-1e-140, 1e-140], Math.log(0.6826894921370859)],
      [[0], [1], 1e-160, [-1e-160, 1e-160], Math.log(0.6826894921370859)],
    ];
    for (const [xs, ws, sigma, interval, truth] of cases) {
      const m = logMassIn(fromWeights(xs, ws), noiseOf('gaussian', sigma), interval);
      expect(Number.isNaN(m.value) || Number.isNaN(m.error), `${xs} at σ = ${sigma}`).toBe(false);
      expect(Math.abs(m.value - truth), `${xs} at σ = ${sigma}`).toBeLessThanOrEqual(m.error + 1e-13);
    }
  });

  it("noise far below the atoms' spacing: masses certified, divergences bracket the truth or say they cannot (never NaN, never a false zero)", () => {
    const p = fromCounts([0, 1], [1, 1]),
      q = fromCounts([0, 1], [1, 2]);
    const truth = Math.log(0.5 ** 2 / (1 / 3) + 0.5 ** 2 / (2 / 3)); // D₂ of the atoms: the noise is negligible
    for (const sigma of [1e-10, 1e-20, 1e-100, 1e-300]) {
      const g = noiseOf('gaussian', sigma);
      const m = logMassIn(p, g, [-5, 5]);
      expect(Math.abs(m.value), `mass at σ = ${sigma}`).toBeLessThanOrEqual(m.error);
      expect(m.error).toBeLessThan(1e-13);
      for (const opts of [{}, { interval: [-5, 5] as [number, number] }, { interval: [-5, 5] as [number, number], adaptive: true }, { adaptive: true }]) {
        const d = exactRenyi(p, q, g, 2, opts);
        expect(Math.abs(d.value - truth), `σ = ${sigma}, ${JSON.stringify(opts)}`).toBeLessThanOrEqual(d.error + 1e-12);
      }
    }
    expect(() => logMassIn(p, noiseOf('gaussian', 0), [-5, 5])).toThrow(/scale must be > 0/);
  });

  it('two mixtures over an interval: within the stated errors of the plain evaluator, the rule certifying most cases', () => {
    let ran = 0;
    const rnd = seededUniform(7);
    const atoms = (n: number) => Array.from({ length: n }, () => Math.round(rnd() * 20) / 2);
    for (let t = 0; t < 60; t++) {
      const p = fromCounts(
        atoms(1 + (t % 6)),
        Array.from({ length: 1 + (t % 6) }, () => 1 + Math.floor(rnd() * 5)),
      );
      const q = fromCounts(
        atoms(1 + ((t + 3) % 5)),
        Array.from({ length: 1 + ((t + 3) % 5) }, () => 1 + Math.floor(rnd() * 5)),
      );
      const sigma = 0.2 + rnd() * 4,
        a = -3 + rnd() * 12;
      const interval: [number, number] = [a, a + 0.5 + rnd() * 12];
      const alpha = [0.5, 2, 3, 1.5, 8][t % 5];
      const fast = exactRenyi(p, q, noiseOf('gaussian', sigma), alpha, { interval });
      const plain = exactRenyi(p, q, noiseOf('gaussian', sigma), alpha, { interval, evaluator: 'plain' });
      expect(Math.abs(fast.value - plain.value), `case ${t}`).toBeLessThanOrEqual(fast.error + plain.error);
      if (gaussianGridRule(mixtureOf(p), mixtureOf(q), alpha, sigma, 1e-12, false, interval)) ran++;
    }
    expect(ran).toBeGreaterThanOrEqual(45);
  });
});
