import { describe, expect, it } from 'vitest';
import { fromWeights } from '../distribution/discrete.js';
import { noiseOf } from '../mechanisms/kernels.js';
import { seededUniform } from '../sources/priors.js';
import { exactRenyi, logMassIn } from './exactRenyi.js';
import { isolatedAtoms } from './isolatedAtoms.js';
import { mixtureOf } from './mixture.js';

/** Atoms `gap`·(1 + a random share) apart, weights spread over `decades` decades. */
function law(rnd: () => number, xs: number[], decades: number) {
  return fromWeights(
    xs,
    xs.map(() => 10 ** (-decades * rnd())),
  );
}

describe('isolatedAtoms (docs/math.md §8, "Isolated atoms")', () => {
  it('atoms 40 to 2000 σ apart, whole line and intervals: within the stated errors of the adaptive quadrature on the plain evaluator', () => {
    const rnd = seededUniform(11);
    let certified = 0;
    for (let t = 0; t < 40; t++) {
      const n = 1 + Math.floor(rnd() * 12);
      const sigma = 0.01;
      const xs: number[] = [];
      for (let i = 0, x = 0; i < n; i++, x += sigma * (40 + rnd() * 1960)) xs.push(Math.round(x * 1000) / 1000);
      const p = law(rnd, xs, t % 3 === 0 ? 200 : 3),
        q = law(rnd, xs, 3);
      const alpha = [1.5, 2, 4, 8][t % 4];
      const g = noiseOf('gaussian', sigma);
      const span = xs[n - 1] - xs[0];
      const interval: [number, number] | undefined = t % 2 ? [xs[0] - 0.2 + rnd() * span * 0.5, xs[0] + span * (0.5 + rnd()) + 0.3] : undefined;
      const fast = exactRenyi(p, q, g, alpha, { interval });
      const plain = exactRenyi(p, q, g, alpha, { interval, evaluator: 'plain' });
      expect(Number.isFinite(plain.error), `case ${t}: the oracle certifies`).toBe(true);
      expect(Math.abs(fast.value - plain.value), `case ${t}`).toBeLessThanOrEqual(fast.error + plain.error);
      const mass = interval ? (x: number) => logMassIn(fromWeights([x], [1]), g, interval) : undefined;
      if (isolatedAtoms(mixtureOf(p), mixtureOf(q), alpha, g, 1e-12, true, mass)) certified++;
    }
    expect(certified).toBeGreaterThanOrEqual(30);
  });

  it('an atom about 38σ outside the interval, its mass below e^{−708}: the bracket in logs covers the truth (helper-59)', () => {
    const g = noiseOf('gaussian', 1);
    const d = fromWeights([0], [1]);
    for (const lo of [37.5, 37.9, 38, 38.2, 38.35, 38.5])
      for (const alpha of [2, 8]) {
        const r = exactRenyi(d, d, g, alpha, { interval: [lo, 60] });
        expect(r.error, `[${lo}, 60], α = ${alpha}`).toBeGreaterThanOrEqual(0);
        expect(Math.abs(r.value), `[${lo}, 60], α = ${alpha}`).toBeLessThanOrEqual(r.error);
      }
    const p = fromWeights([0, 200], [1, 1]),
      q = fromWeights([0, 200], [1, 4]);
    for (const lo of [37.9, 38.2, 38.6]) {
      const r = exactRenyi(p, q, g, 2, { interval: [lo, 200 - lo] });
      expect(Math.abs(r.value - Math.log(1.5625)), `[${lo}, ${200 - lo}]`).toBeLessThanOrEqual(r.error);
    }
  });

  it('declines where it cannot bracket: an atom the other law lacks, atoms a few σ apart, α ≤ 1', () => {
    const g = noiseOf('gaussian', 0.01);
    const P = mixtureOf(fromWeights([0, 1, 2], [1, 1, 1])),
      Q = mixtureOf(fromWeights([0, 2], [1, 1]));
    expect(isolatedAtoms(P, Q, 2, g, 1e-12, false)).toBeNull();
    expect(isolatedAtoms(Q, P, 2, g, 1e-12, false)).not.toBeNull(); // the numerator's atoms all in the other law
    expect(isolatedAtoms(P, P, 2, noiseOf('gaussian', 0.1), 1e-12, false)).toBeNull();
    expect(isolatedAtoms(P, P, 0.5, g, 1e-12, false)).toBeNull();
  });

  it('a heavy atom beside a light one (weights 10⁻²⁰⁰ apart, 60σ): still brackets the truth, or declines', () => {
    const g = noiseOf('gaussian', 0.01);
    const p = fromWeights([0, 0.6, 1.2], [1, 1e-200, 1e-3]),
      q = fromWeights([0, 0.6, 1.2], [1e-3, 1, 1]);
    for (const alpha of [2, 4]) {
      const fast = exactRenyi(p, q, g, alpha);
      const plain = exactRenyi(p, q, g, alpha, { evaluator: 'plain' });
      expect(Math.abs(fast.value - plain.value)).toBeLessThanOrEqual(fast.error + plain.error);
    }
  });
});
