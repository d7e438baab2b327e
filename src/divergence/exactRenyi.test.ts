import { noiseOf } from '../mechanisms/kernels.js';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { laplaceRdp } from '../conditions/pierquin.js';
import { fromCounts, fromWeights, type Discrete } from '../distribution/discrete.js';
import { discreteRenyi, exactRenyi } from './exactRenyi.js';
import { exactLaplaceDInf } from '../mechanisms/laplace/dInf.js';
import { mixtureLogDensityPlain } from '../mechanisms/kernels.js';
import { mixtureOf } from './mixture.js';
import type { NoiseFamily } from '../mechanisms/kernels.js';

const point = (x: number) => fromCounts([x], [1]);
const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

/** Independent check: composite Simpson with the plain evaluator, segments split at every atom (kinks). */
function simpson(p: Discrete, q: Discrete, family: NoiseFamily, scale: number, alpha: number, lo: number, hi: number, n = 20000): number {
  const cuts = [...new Set([lo, ...p.values, ...q.values, hi])].sort((a, b) => a - b);
  let total = 0;
  for (let c = 0; c + 1 < cuts.length; c++) {
    const [a, b] = [cuts[c], cuts[c + 1]];
    const ys = new Float64Array(n + 1).map((_, i) => a + ((b - a) * i) / n);
    const lp = mixtureLogDensityPlain(mixtureOf(p), noiseOf(family, scale), ys);
    const lq = mixtureLogDensityPlain(mixtureOf(q), noiseOf(family, scale), ys);
    let s = 0;
    for (let i = 0; i <= n; i++) s += (i === 0 || i === n ? 1 : i % 2 ? 4 : 2) * Math.exp(alpha * lp[i] + (1 - alpha) * lq[i]);
    total += (s * (b - a)) / n / 3;
  }
  return Math.log(total) / (alpha - 1);
}

const histogram = fc
  .array(fc.tuple(fc.integer({ min: -8, max: 8 }), fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 6 })
  .filter((a) => a.some(([, c]) => c > 0))
  .map((a) =>
    fromCounts(
      a.map(([v]) => v / 2),
      a.map(([, c]) => c),
    ),
  );

describe('exactRenyi', () => {
  it('point masses: Laplace gives Mironov’s R_α(Δ/b), Gaussian αΔ²/(2σ²)', () => {
    for (const a of [1.01, 1.5, 2, 5, 20, 100])
      for (const s of [0.05, 0.3, 1, 10]) {
        const L = exactRenyi(point(0), point(1.5), noiseOf('laplace', s), a);
        expect(Math.abs(L.value - laplaceRdp(a, 1.5 / s))).toBeLessThanOrEqual(L.error + 1e-14 * L.value);
        expect(rel(L.value, laplaceRdp(a, 1.5 / s))).toBeLessThan(1e-11);
        const G = exactRenyi(point(0), point(1.5), noiseOf('gaussian', s), a);
        const g = (a * 2.25) / (2 * s * s);
        expect(Math.abs(G.value - g)).toBeLessThanOrEqual(G.error + 1e-14 * g);
        // 1e-11 relative, or the floor of double precision: ∫ computed to a few ulp moves D by u/(α − 1)
        // (at α = 1.01, σ = 10, ∫ ≈ 1 + 10⁻⁴ and 10 ulp of it are 2·10⁻¹¹ of D).
        expect(Math.abs(G.value - g)).toBeLessThan(Math.max(1e-11 * g, (16 * Number.EPSILON) / (a - 1)));
      }
  });

  it('α ∈ (0,1): Gaussian point masses still give αΔ²/(2σ²)', () => {
    for (const a of [0.1, 0.5, 0.9])
      for (const s of [0.1, 1, 5]) {
        const G = exactRenyi(point(0), point(2), noiseOf('gaussian', s), a);
        expect(rel(G.value, (a * 4) / (2 * s * s))).toBeLessThan(1e-11);
      }
  });

  it('agrees with dense Simpson integration on mixtures (independent check)', () => {
    const p = fromWeights([0, 1, 2.5], [0.2, 0.5, 0.3]);
    const q = fromWeights([0.5, 1, 4], [0.6, 0.1, 0.3]);
    for (const [family, scale] of [
      ['laplace', 0.7],
      ['gaussian', 0.8],
      ['laplace', 3],
    ] as [NoiseFamily, number][]) {
      for (const a of [0.5, 2, 4]) {
        const e = exactRenyi(p, q, noiseOf(family, scale), a);
        const lo = -60 * scale * a,
          hi = 4 + 60 * scale * a;
        expect(rel(e.value, simpson(p, q, family, scale, a, lo, hi))).toBeLessThan(1e-8);
      }
    }
  });

  it('fast and plain evaluators give the same divergence', () => {
    const p = fromWeights([0, 1e-3, 7, 7e4], [1e-12, 0.5, 0.3, 0.2 - 1e-12]);
    const q = fromWeights([0, 3, 7e4 + 1], [0.4, 0.4, 0.2]);
    for (const family of ['laplace', 'gaussian'] as NoiseFamily[]) {
      const f = exactRenyi(p, q, noiseOf(family, 2), 3);
      const pl = exactRenyi(p, q, noiseOf(family, 2), 3, { evaluator: 'plain' });
      expect(rel(f.value, pl.value)).toBeLessThan(1e-11);
    }
  });

  it('large random supports, atoms 10⁻⁶ to 10 noise scales apart: fast = plain oracle within their stated errors', () => {
    let seed = 7;
    const u = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 2 ** 32;
    };
    const support = (k: number, scale: number) => {
      const xs: number[] = [];
      let x = 0;
      for (let i = 0; i < k; i++) {
        xs.push(x);
        x += scale * 10 ** (-6 + 7 * u()); // gaps from 1e-6 to 10 scales
      }
      return fromWeights(
        xs,
        xs.map(() => 0.01 + u()),
      );
    };
    for (const [family, scale] of [
      ['laplace', 1],
      ['gaussian', 1],
    ] as [NoiseFamily, number][]) {
      for (const alpha of [0.5, 2, 6]) {
        const p = support(300, scale),
          q = support(300, scale);
        const f = exactRenyi(p, q, noiseOf(family, scale), alpha, { rtol: 1e-10 });
        const pl = exactRenyi(p, q, noiseOf(family, scale), alpha, { rtol: 1e-10, evaluator: 'plain' });
        expect(f.error).toBeLessThan(1e-8 * Math.max(1, Math.abs(f.value)));
        expect(Math.abs(f.value - pl.value)).toBeLessThanOrEqual(f.error + pl.error);
      }
    }
  });

  it('properties: D ≥ 0, D(P‖P) = 0, non-decreasing in α, ≤ D_α of the data (fast-check)', () => {
    fc.assert(
      fc.property(
        histogram,
        histogram,
        fc.constantFrom<NoiseFamily>('laplace', 'gaussian'),
        fc.double({ min: 0.2, max: 5, noNaN: true }),
        (p, q, family, scale) => {
          const noise = noiseOf(family, scale);
          let prev = -Infinity;
          for (const a of [0.3, 0.7, 1.5, 3, 8]) {
            const d = exactRenyi(p, q, noise, a);
            expect(d.value).toBeGreaterThanOrEqual(-d.error);
            expect(d.value).toBeGreaterThanOrEqual(prev - 2 * d.error - 1e-12);
            prev = d.value;
            const data = discreteRenyi(p, q, a);
            expect(d.value).toBeLessThanOrEqual(data.value + d.error + data.error);
          }
          expect(Math.abs(exactRenyi(p, p, noise, 2).value)).toBeLessThan(1e-12);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('exactLaplaceDInf', () => {
  it('point masses: Δ/b', () => {
    expect(exactLaplaceDInf(point(0), point(3), 2).value).toBeCloseTo(1.5, 13);
  });
  it('matches a dense-grid search of the log-ratio', () => {
    fc.assert(
      fc.property(histogram, histogram, fc.double({ min: 0.3, max: 3, noNaN: true }), (p, q, b) => {
        const d = exactLaplaceDInf(p, q, b);
        const ys = new Float64Array(40001).map((_, i) => -20 + i * 0.001);
        const lp = mixtureLogDensityPlain(mixtureOf(p), noiseOf('laplace', b), ys);
        const lq = mixtureLogDensityPlain(mixtureOf(q), noiseOf('laplace', b), ys);
        let grid = -Infinity;
        for (let i = 0; i < ys.length; i++) grid = Math.max(grid, lp[i] - lq[i]);
        // the grid contains every atom (multiples of 0.5), so it attains the sup exactly
        expect(Math.abs(d.value - grid)).toBeLessThan(1e-9);
        // and no grid point exceeds it
        expect(grid).toBeLessThanOrEqual(d.value + d.error + 1e-12);
      }),
      { numRuns: 60 },
    );
  });
});

describe('noise a millionth of the atoms’ spacing', () => {
  // Log-densities of 10¹¹–10¹³ nats: their rounding alone exceeds any tolerance, so no panel width
  // certifies. The bisection stops at its panel budget (a few thousand panels per atom) with an
  // honest infinite error, instead of doubling to 2·10⁶ panels (6·10⁷ nodes, gigabytes).
  const p = fromWeights([-2.4536, -0.146, 0.215, 0.7238], [0.5, 2, 3, 0.5]);
  const q = fromWeights([-2.2013, -1.557, -1.5, -1.0, 0.1], [1e9, 0.5, 1e-9, 2, 1e-9]);
  it('gives up within its budget, and a converging case keeps its certificate', () => {
    const atoms = 9;
    for (const sigma of [1e-5, 1e-6]) {
      const r = exactRenyi(p, q, noiseOf('gaussian', sigma), 2);
      expect(r.error).toBe(Infinity);
      expect(r.nodes).toBeLessThanOrEqual(21 * 2 * (20_000 + 2_000 * atoms));
    }
    const ok = exactRenyi(p, q, noiseOf('gaussian', 1e-4), 2);
    expect(ok.error / ok.value).toBeLessThan(1e-12);
    expect(ok.nodes).toBeLessThan(21 * 1_000);
  });
});
