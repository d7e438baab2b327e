import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { release, samplerFor } from '../src/release/release.js';
import { logTruncatedCdf, truncatedInterval } from '../src/release/interval.js';
import { calibrateTruncated } from '../src/release/truncated.js';
import { mechanismNoise } from '../src/calibrate/mechanismNoise.js';
import { logMassIn } from '../src/divergence/exactRenyi.js';
import { pointMass } from '../src/distribution/discrete.js';
import { drawRelease } from '../src/sampling/samplers.js';
import { sqrtCost } from '../src/conditions/costs.js';
import type { CalibrationSettings } from '../src/calibrate/rules.js';
import { seededSource } from './seeded.js';
import { pointLaw } from '../src/distribution/points.js';
import type { PointReleaseResult } from '../src/release/release.js';

const heart = builtinScenario('heart');
// Draws per coverage check, and the check's tolerance: four standard errors of the observed share
// (seeded draws, so deterministic). The half-widths themselves are checked exactly against each
// noise's CDF (src/mechanisms/halfWidth.test.ts, to 1e-9) and the samplers' laws by KS tests
// (test/samplers.test.ts); these draws check the release path that assembles the intervals.
const N = 25_000;
const tolerance = (c: number) => 4 * Math.sqrt((c * (1 - c)) / N);
const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

/** Share of the intervals that hold the true value. */
const coverage = (x: number, intervals: readonly (readonly [number, number])[]) => intervals.filter(([lo, hi]) => lo <= x && x <= hi).length / intervals.length;

describe('error bars: the interval holds the true value with the stated probability over the noise', () => {
  const cases: [string, CalibrationSettings, number][] = [
    ['laplace', { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }, 0.95],
    ['gaussian', { mechanism: 'gaussian', method: 'theorem', alpha: 2, epsilon: 1 }, 0.9],
    ['exponential |z|', { mechanism: 'exponential', method: 'theorem', alpha: 2, epsilon: 1 }, 0.95],
    ['exponential √|z|', { mechanism: 'exponential', method: 'theorem', alpha: 2, epsilon: 1, cost: sqrtCost }, 0.8],
  ];
  for (const [name, settings, confidence] of cases)
    it(`${name}: coverage over ${N} draws within four standard errors of ${confidence}`, () => {
      const r = release(heart, settings, 1.4, { count: N, perRelease: true, confidence, random: seededSource(BigInt(name.length)) });
      expect(r.confidence).toBe(confidence);
      expect(r.halfWidth).toBeGreaterThan(0);
      expect(r.intervals).toHaveLength(N);
      r.intervals.forEach(([lo, hi], i) => {
        expect(lo).toBeLessThan(r.values[i] - r.halfWidth! * (1 - 1e-12));
        expect(hi).toBeGreaterThan(r.values[i] + r.halfWidth! * (1 - 1e-12));
      });
      expect(Math.abs(coverage(1.4, r.intervals) - confidence)).toBeLessThan(tolerance(confidence));
    });

  it(`truncated Laplace: the exact interval of the truncated law; coverage over ${N} draws within four standard errors`, () => {
    const settings: CalibrationSettings = { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 };
    const interval: [number, number] = [0, 2];
    const scale = calibrateTruncated(heart, settings, interval).scale;
    const noise = mechanismNoise(settings, scale);
    const x = 1.8; // near the upper end, where the truncated law is far from symmetric
    const c = 0.95;
    const random = seededSource(11n);
    const sampler = samplerFor(settings, scale);
    // x ∈ interval(y) ⟺ (1 − c)/2 ≤ G_y(x) ≤ (1 + c)/2 with G_y(x) = P(Y ≤ y | x): checked on the
    // released intervals for 300 draws, then the coverage of that event over all draws.
    const G = (y: number) => Math.exp(logMassIn(pointMass(x), noise, [0, y]).value - logMassIn(pointMass(x), noise, interval).value);
    const ys = Array.from({ length: N }, () => drawRelease(x, sampler, { random, truncate: interval }));
    const inBand = (y: number) => G(y) >= (1 - c) / 2 && G(y) <= (1 + c) / 2;
    let asymmetric = 0;
    for (const y of ys.slice(0, 300)) {
      const [lo, hi] = truncatedInterval(y, noise, interval, c);
      // Away from the band's edges (a relative 1e-6), membership agrees exactly.
      const g = G(y);
      if (Math.abs(g - (1 - c) / 2) > 1e-6 && Math.abs(g - (1 + c) / 2) > 1e-6) expect(lo <= x && x <= hi).toBe(inBand(y));
      if (Math.abs(hi - y - (y - lo)) > 0.01 * (hi - lo)) asymmetric++;
    }
    expect(asymmetric).toBeGreaterThan(0);
    expect(Math.abs(ys.filter(inBand).length / N - c)).toBeLessThan(tolerance(c));
    // The library's release returns the same intervals.
    const r = release(heart, settings, x, { truncate: interval, confidence: c, random: seededSource(12n) });
    expect(r.halfWidth).toBeNull();
    // …within the range heart's laws take (their atoms: 0 to 6.2).
    expect(r.intervals[0]).toEqual(truncatedInterval(r.values[0], noise, interval, c, [0, 6.2]));
  });

  // The exact set within a support [s0, s1]: a(x) ≤ G_y(x) ≤ a(x) + c with the tail share a(x)
  // ramping from 0 at s0 to 1 − c at s1 over three noise scales (src/release/interval.ts).
  const share = (x: number, c: number, [s0, s1]: [number, number], r: number) =>
    ((1 - c) / 2) * (Math.min(1, Math.max(0, (x - s0) / r)) + 1 - Math.min(1, Math.max(0, (s1 - x) / r)));
  for (const family of ['laplace', 'gaussian'] as const)
    it(`truncated ${family}: coverage over 10⁵ draws within 0.5% of c for true values at and inside the truncation's ends and the support's; every interval finite`, () => {
      const settings: CalibrationSettings = { mechanism: family, method: 'theorem', alpha: 2, epsilon: 1 };
      const s = 0.5;
      const noise = mechanismNoise(settings, s);
      const interval: [number, number] = [0, 2];
      const support: [number, number] = [-0.5, 2.5];
      const c = 0.9;
      const sampler = samplerFor(settings, s);
      const random = seededSource(BigInt(family.length));
      // The closed-form G the interval uses, against the certified quadrature (independent).
      const quadrature = (x: number, y: number) => logMassIn(pointMass(x), noise, [0, y]).value - logMassIn(pointMass(x), noise, interval).value;
      for (const x of [-0.5, 0, 1, 2, 2.5])
        for (const y of [1e-6, 0.3, 1, 1.9, 2]) expect(logTruncatedCdf(noise, interval, y, x)[0]).toBeCloseTo(quadrature(x, y), 9);
      // The support's low end and the truncation's (Laplace), the truncation's high end and the support's (Gaussian), and the middle.
      for (const x of family === 'laplace' ? [-0.5, 0, 1] : [1, 2, 2.5]) {
        const ys = Array.from({ length: 100_000 }, () => drawRelease(x, sampler, { random, truncate: interval }));
        const a = share(x, c, support, 3 * s);
        const member = (y: number) => {
          const g = Math.exp(logTruncatedCdf(noise, interval, y, x)[0]);
          return g >= a && g <= a + c;
        };
        // The intervals hold x exactly when it is in the set (300 draws; every interval finite, within the support)…
        for (const y of ys.slice(0, 300)) {
          const [lo, hi] = truncatedInterval(y, noise, interval, c, support);
          expect(lo >= -0.5 && hi <= 2.5 && lo <= hi).toBe(true);
          const g = Math.exp(logTruncatedCdf(noise, interval, y, x)[0]);
          if (Math.abs(g - a) > 1e-7 && Math.abs(g - a - c) > 1e-7) expect(lo <= x && x <= hi, `x = ${x}, y = ${y}`).toBe(member(y));
        }
        // …and the set holds x with probability c.
        expect(Math.abs(ys.filter(member).length / ys.length - c), `x = ${x}`).toBeLessThan(0.005);
      }
    }, 120_000);

  it('truncated interval ends: G at each end sits at its level, the end rounded outward', () => {
    const settings: CalibrationSettings = { mechanism: 'gaussian', method: 'exact', alpha: 2, epsilon: 1 };
    const noise = mechanismNoise(settings, 0.3);
    const interval: [number, number] = [0, 2];
    for (const y of [0.05, 1, 1.95]) {
      const [lo, hi] = truncatedInterval(y, noise, interval, 0.9);
      const G = (x: number) => Math.exp(logMassIn(pointMass(x), noise, [0, y]).value - logMassIn(pointMass(x), noise, interval).value);
      if (Number.isFinite(lo)) {
        expect(G(lo)).toBeGreaterThan(0.95);
        expect(G(lo)).toBeLessThan(0.95 + 1e-6);
      }
      if (Number.isFinite(hi)) {
        expect(G(hi)).toBeLessThan(0.05);
        expect(G(hi)).toBeGreaterThan(0.05 - 1e-6);
      }
      expect(lo).toBeLessThan(hi);
    }
  });

  it('vector releases: one interval per coordinate at its own scale, each covering its coordinate', () => {
    const P = pointLaw(
      [
        [12, 40],
        [13, 45],
      ],
      { counts: [5, 3] },
    );
    const Q = pointLaw(
      [
        [12, 38],
        [14, 45],
      ],
      { counts: [2, 3] },
    );
    const s = { name: 'v', priors: [{ name: 'p', conditionals: { a: P, b: Q } }] };
    const settings = { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1, coordinateScales: [1, 3] } as const;
    const r = release(s, settings, [12, 40], { count: 20_000, perRelease: true, confidence: 0.9, random: seededSource(5n) }) as PointReleaseResult;
    expect(r.halfWidths[1] / r.halfWidths[0]).toBeCloseTo(3, 9);
    expect(r.halfWidths[0]).toBeGreaterThanOrEqual(r.scale * Math.log(10));
    for (const i of [0, 1]) {
      const share = r.intervals.filter(
        (iv, k) => iv[i][0] <= [12, 40][i] && [12, 40][i] <= iv[i][1] && r.values[k][i] - iv[i][0] >= r.halfWidths[i] * (1 - 1e-12),
      ).length;
      expect(Math.abs(share / 20_000 - 0.9)).toBeLessThan(0.01);
    }
    const half = release(heart, { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }, 1.4, { confidence: 0.5, random: seededSource(3n) });
    expect(half.halfWidth).toBeCloseTo(half.scale * Math.LN2, 12);
    expect(() => release(heart, { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }, 1.4, { confidence: 1 })).toThrow(/\(0, 1\)/);
  });

  it('CLI: --confidence on calibrate and release; the JSON puts an interval beside each value', () => {
    const run = (...a: string[]) => spawnSync(process.execPath, [BIN, ...a], { encoding: 'utf8' });
    const j = JSON.parse(run('release', '--scenario', 'heart', '--value', '1.4', '--count', '2', '--confidence', '0.9', '--json').stdout);
    expect(j.confidence).toBe(0.9);
    expect(j.releases).toHaveLength(2);
    for (const { value, interval } of j.releases) {
      expect(interval[0]).toBeLessThan(value - j.halfWidth * (1 - 1e-12));
      expect(interval[1]).toBeGreaterThan(value + j.halfWidth * (1 - 1e-12));
    }
    const t = run('calibrate', '--scenario', 'heart', '--method', 'theorem', '--confidence', '0.5');
    expect(t.stdout).toMatch(/± \(0\.5\)/);
    const c = JSON.parse(run('calibrate', '--scenario', 'heart', '--method', 'theorem', '--json').stdout);
    expect(c.confidence).toBe(0.95);
    expect(c.results[0].halfWidth).toBeGreaterThanOrEqual(c.results[0].scale * Math.log(20));
    const bad = run('release', '--scenario', 'heart', '--value', '1.4', '--confidence', '95');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^error: --confidence: must be in \(0, 1\), got '95'/);
  });

  it('a truncated column release never prints a row value in its refusal', async () => {
    const { releaseColumn } = await import('../src/release/release.js');
    const settings: CalibrationSettings = { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 };
    let message = '';
    try {
      releaseColumn(heart, settings, [1, 2, 97.25], { truncate: [0, 6] });
    } catch (e) {
      message = String((e as Error).message);
    }
    expect(message).toMatch(/its value is not shown/);
    expect(message).not.toMatch(/97/);
  });
});

describe('truncated intervals assume what is public: the laws’ atoms and the truncation interval', () => {
  it('a true value above the atoms but inside the truncation interval is covered at the stated rate', () => {
    const settings: CalibrationSettings = { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 };
    const r = release(heart, settings, 8, { truncate: [0, 30], count: 2000, perRelease: true, confidence: 0.9, random: seededSource(21n) });
    expect(r.note).toMatch(/outside every secret's law/);
    expect(Math.abs(coverage(8, r.intervals) - 0.9)).toBeLessThan(4 * Math.sqrt((0.9 * 0.1) / 2000));
    const outside = release(heart, settings, 40, { truncate: [0, 50], count: 1, confidence: 0.9, random: seededSource(22n) });
    expect(outside.note).not.toMatch(/do not cover/); // 40 lies in the truncation interval [0, 50]
  });
  it('a bar far below any double’s digits prints ten digits, never an internal error', () => {
    const r = spawnSync(process.execPath, [BIN, 'release', '--scenario', 'heart', '--value', '1', '--epsilon', '1e100'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });
});
