import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalUp, precisionDown, precisionUp } from './decimal.js';

describe('directed decimal texts', () => {
  it('precisionUp reads back ≥ x and precisionDown ≤ x, each within one unit of the p-th digit', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 1, max: 12 }), (x, p) => {
        const up = Number(precisionUp(x, p)),
          down = Number(precisionDown(x, p));
        expect(up).toBeGreaterThanOrEqual(x);
        expect(down).toBeLessThanOrEqual(x);
        // At most one unit of the p-th significant digit apart (two where x sits on a power of ten).
        if (Math.abs(x) > 1e-300 && Number.isFinite(up - down))
          expect(up - down).toBeLessThanOrEqual(2 * 10 ** (Math.floor(Math.log10(Math.abs(x))) - p + 1) * (1 + 1e-9));
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
    // One digit, just below a power of ten: 9 one place lower, not 0.
    expect(precisionDown(9.99999e-5, 1)).toBe('0.00009');
    expect(precisionDown(99999.99, 1)).toBe('9e+4');
    expect(precisionUp(-9.9999951e-5, 1)).toBe('-0.00009');
    // Exactly, not as read back: 0.1 is below the double 0.1, and 1.48e-323 below the subnormal 3·2^−1074.
    expect(decimalUp(0.1, 3)).toBe('1.01e-1');
    expect(decimalUp(0.5, 3)).toBe('5.00e-1');
    expect(precisionUp(1.5e-323, 3)).toBe('1.49e-323');
    expect(decimalUp(4.27695419262048e288, 1)).toBe('5e+288');
  });
});
