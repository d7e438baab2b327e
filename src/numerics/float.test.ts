import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bitLength, nextUp, ratioToNumber, toDecimal } from './float.js';

describe('float helpers', () => {
  it('nextUp steps one ulp up', () => {
    expect(nextUp(1)).toBe(1 + Number.EPSILON);
    expect(nextUp(0)).toBe(Number.MIN_VALUE);
    expect(nextUp(-1)).toBeGreaterThan(-1);
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }), (x) => nextUp(x) > x));
  });

  it('toDecimal recovers the printed decimal exactly', () => {
    expect(toDecimal(0.1)).toEqual({ digits: 1n, exponent: -1 });
    expect(toDecimal(1.5e-300)).toEqual({ digits: 15n, exponent: -301 });
    expect(toDecimal(2e21)).toEqual({ digits: 2n, exponent: 21 });
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const { digits, exponent } = toDecimal(x);
        expect(Number(`${digits}e${exponent}`)).toBe(x === 0 ? 0 : x);
      }),
    );
  });

  it('ratioToNumber is correctly rounded for huge integers', () => {
    const big = 10n ** 400n;
    expect(ratioToNumber(big, 3n * big)).toBeCloseTo(1 / 3, 15);
    expect(ratioToNumber(1n, 10n ** 320n) / 1e-320).toBeCloseTo(1, 2); // subnormal: fewer digits
    expect(ratioToNumber(7n, 10n ** 300n) / 7e-300).toBeCloseTo(1, 14);
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 1n << 200n }), fc.bigInt({ min: 1n, max: 1n << 200n }), (a, b) => {
        const r = ratioToNumber(a, a + b);
        const exact = Number((a * 10n ** 30n) / (a + b)) / 1e30;
        expect(Math.abs(r - exact)).toBeLessThanOrEqual(1e-15 * exact + 1e-30);
      }),
    );
  });

  it('bitLength counts the binary digits (and a sign), next to powers of two and at random', () => {
    for (let e = 0; e < 2100; e++)
      for (const d of [-1n, 0n, 1n]) {
        const n = (1n << BigInt(e)) + d;
        expect(bitLength(n)).toBe(n === 0n ? 0 : n.toString(2).length);
        expect(bitLength(-n)).toBe(n === 0n ? 0 : (-n).toString(2).length);
      }
    fc.assert(fc.property(fc.bigInt({ min: -(1n << 3000n), max: 1n << 3000n }), (n) => bitLength(n) === (n === 0n ? 0 : n.toString(2).length)));
  });
});
