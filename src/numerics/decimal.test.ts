import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { precisionDown, precisionUp } from './decimal.js';

describe('directed decimal texts', () => {
  it('precisionUp reads back ≥ x and precisionDown ≤ x, each within one unit of the p-th digit', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 1, max: 12 }), (x, p) => {
        const up = Number(precisionUp(x, p)),
          down = Number(precisionDown(x, p));
        expect(up).toBeGreaterThanOrEqual(x);
        expect(down).toBeLessThanOrEqual(x);
        if (x !== 0) expect(Math.abs(up - down)).toBeLessThanOrEqual(Math.abs(x) * 2 * 10 ** (1 - p) * (1 + 1e-12) + Number.MIN_VALUE);
      }),
      { numRuns: 2000 },
    );
  });
  it('keeps toPrecision where it already rounds the right way, and steps the last digit where not', () => {
    expect(precisionUp(0.0009999704186, 6)).toBe('0.000999971');
    expect((0.0009999704186).toPrecision(6)).toBe('0.000999970');
    expect(precisionUp(0.5, 3)).toBe('0.500');
    expect(precisionDown(1.1609418149, 3)).toBe('1.16');
    expect(precisionUp(1.1609418149, 3)).toBe('1.17');
    expect(precisionUp(-1.1609418149, 3)).toBe('-1.16');
  });
});
