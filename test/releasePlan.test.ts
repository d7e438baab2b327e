import { describe, expect, it } from 'vitest';
import { release, releaseColumn, type PointReleaseResult, type ReleaseResult } from '../src/release/release.js';
import { coordinateNoise } from '../src/release/noise.js';
import { drawWindows } from '../src/release/windows.js';
import { fromCounts } from '../src/distribution/discrete.js';
import { pointLaw } from '../src/distribution/points.js';
import { seededSource } from './seeded.js';

// The same laws on ℝ, once as numbers and once as vectors of length 1.
const onR = { name: 'r', priors: [{ name: 'p', conditionals: { a: fromCounts([0, 1, 3], [3, 2, 1]), b: fromCounts([0, 1, 3], [1, 2, 3]) } }] };
const asVectors = {
  name: 'r',
  priors: [{ name: 'p', conditionals: { a: pointLaw([[0], [1], [3]], { counts: [3, 2, 1] }), b: pointLaw([[0], [1], [3]], { counts: [1, 2, 3] }) } }],
};

describe('one release for every kind: a number is a vector of length 1', () => {
  it('the same laws as numbers and as 1-vectors give the same scale, error bars and draws', () => {
    for (const mechanism of ['laplace', 'gaussian'] as const)
      for (const opts of [{ count: 3 }, { count: 2, perRelease: true }, { delta: 1e-6 }, { scale: 0.7 }]) {
        const settings = { mechanism, method: 'best', alpha: 2, epsilon: 0.1 } as const;
        const r = release(onR, settings, 1, { ...opts, random: seededSource(9n) }) as ReleaseResult;
        const v = release(asVectors, settings, [1], { ...opts, random: seededSource(9n) }) as PointReleaseResult;
        expect(r.scale).toBeGreaterThan(0);
        expect(v.scale).toBe(r.scale);
        expect(v.halfWidths).toEqual([r.halfWidth]);
        expect(v.values.map((x) => x[0])).toEqual(r.values);
        expect(v.intervals.map((x) => x[0])).toEqual(r.intervals);
        expect(v.guarantee).toBe(r.guarantee);
      }
  });

  it("a column's rows and a 1-vector column's rows get the same draws; missing rows are counted alike", () => {
    const settings = { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 } as const;
    const c = releaseColumn(onR, settings, [1, null, 3], { random: seededSource(4n) });
    const v = releaseColumn(asVectors, settings, [[1], [null], [3]], { random: seededSource(4n) });
    expect(v.missing).toBe(1);
    expect(c.missing).toBe(1);
    expect(v.values.map((x) => (x === null ? null : (x as number[])[0]))).toEqual(c.values);
  });

  it('a given scale on a vector is drawn at each weighted coordinate scale and says so', () => {
    const P = pointLaw(
      [
        [0, 0],
        [1, 2],
      ],
      { counts: [3, 1] },
    );
    const Q = pointLaw(
      [
        [0, 0],
        [1, 2],
      ],
      { counts: [1, 3] },
    );
    const s = { name: 'v', priors: [{ name: 'p', conditionals: { a: P, b: Q } }] };
    const r = release(s, { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1, coordinateScales: [1, 3] }, [1, 2], { scale: 2 }) as PointReleaseResult;
    expect(r.halfWidths[1]).toBeGreaterThanOrEqual(3 * r.halfWidths[0]);
    expect(r.guarantee).toMatch(/given b = 2 \(coordinate i at wᵢ·b, w = 1, 3\).*ledger checked\.$/);
  });

  it('coordinateNoise rounds each weighted scale up and draws nothing at scale 0', () => {
    const n = coordinateNoise({ mechanism: 'laplace' }, 0.1, [1, 3], 0.95);
    // Laplace half-width at 95%: b·ln 20, at 3·0.1 rounded up (0.30000000000000004).
    expect(n.halfWidths[1]).toBeGreaterThanOrEqual(0.30000000000000004 * Math.log(20));
    const zero = coordinateNoise({ mechanism: 'laplace' }, 0, [1, 3], 0.95);
    expect(zero.draw([5, 7], seededSource(1n))).toEqual([5, 7]);
    expect(zero.intervals([5, 7])).toEqual([
      [5, 5],
      [7, 7],
    ]);
  });

  it('checks shared by every kind: integers for geometric noise in a column too, count against releases for vectors', () => {
    const geometric = { mechanism: 'geometric', method: 'best', alpha: 2, epsilon: 1 } as const;
    expect(() => releaseColumn(onR, geometric, [1, 2.5], { scale: 2 })).toThrow(/not whole numbers.*geometric/);
    expect(releaseColumn(onR, geometric, [1, 3], { scale: 2, random: seededSource(2n) }).values.every(Number.isInteger)).toBe(true);
    const laplace = { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 0.1 } as const;
    expect(() => release(asVectors, { ...laplace, releases: 3 }, [1])).toThrow(/releases \(3\) and count \(1\) disagree/);
    expect(() => release(onR, { ...laplace, releases: 3 }, 1)).toThrow(/releases \(3\) and count \(1\) disagree/);
    // A column calibrated for N releases says so.
    expect(releaseColumn(onR, { ...laplace, releases: 3 }, [1, 3]).guarantee).toContain('the 3 releases together');
  });

  it('window counts: the family’s half-width with no window yet, a bad scale refused by name', () => {
    expect(drawWindows([], 'laplace', 2).halfWidth).toBeCloseTo(2 * Math.log(20), 12);
    expect(() => drawWindows([3], 'laplace', -1)).toThrow(/scale/);
    expect(() => drawWindows([3], 'laplace', 1, { confidence: 2 })).toThrow(/confidence/);
  });
});
