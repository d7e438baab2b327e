import { describe, expect, it } from 'vitest';
import { scaledSums } from './scaledSums.js';

describe('scaledSums', () => {
  it('sums v·e^g for exponents far beyond the double range, in any order, each sum on its own', () => {
    const s = scaledSums(2);
    for (const g of [800, 1500, -2000, 1499]) s.add(0, g, 2, 1, 0.5);
    s.add(1, -1e6, 3, 0, 0);
    // 2e^1500(1 + e^−1) + 2e^800 + …: the log is 1500 + log 2 + log1p(e^−1) up to e^−700.
    expect(s.M[0] + Math.log(s.T[0])).toBeCloseTo(1500 + Math.log(2) + Math.log1p(Math.exp(-1)), 12);
    expect(s.E[0] / s.T[0]).toBeCloseTo(0.5, 12);
    expect(s.R[0] / s.T[0]).toBeCloseTo(0.25, 12);
    expect(s.M[1] + Math.log(s.T[1])).toBeCloseTo(-1e6 + Math.log(3), 6);
  });

  it('ignores e^−∞ terms and starts empty', () => {
    const s = scaledSums(1);
    s.add(0, -Infinity, 5, 5, 5);
    expect([s.M[0], s.T[0], s.E[0], s.R[0]]).toEqual([-Infinity, 0, 0, 0]);
    s.add(0, 0, 1, 0, 0);
    expect(s.T[0]).toBe(1);
  });
});
