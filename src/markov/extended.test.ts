import { describe, expect, it } from 'vitest';
import { addExt, dyadic, exponentOf, extArray, pow2, setExt, toDouble, toLog } from './extended.js';

describe('extended-range numbers m·2^e', () => {
  it('exponentOf is ⌊log₂⌋ exactly, at and next to powers of two', () => {
    for (const k of [-1022, -500, -1, 0, 1, 52, 1023]) {
      expect(exponentOf(pow2(k))).toBe(k);
      if (k > -1022) expect(exponentOf(pow2(k) * (1 - 2 ** -53))).toBe(k - 1);
    }
    expect(exponentOf(0.75)).toBe(-1);
  });

  it('setExt normalises any double exactly, subnormals included', () => {
    const x = extArray(3);
    setExt(x, 0, 3, 10);
    setExt(x, 1, 5e-324, 0);
    setExt(x, 2, 0, 7);
    expect([x.m[0], x.e[0]]).toEqual([1.5, 11]);
    expect([x.m[1], x.e[1]]).toEqual([1, -1074]);
    expect([toDouble(x, 0), toDouble(x, 1), toDouble(x, 2)]).toEqual([3 * 1024, 5e-324, 0]);
    expect(toLog(x, 2)).toBe(-Infinity);
  });

  it('adds far beyond the double range, dropping only what is below 2^−998 of the sum', () => {
    const x = extArray(1);
    addExt(x, 0, 1, -5000);
    addExt(x, 0, 1, -5000);
    expect([x.m[0], x.e[0]]).toEqual([1, -4999]);
    addExt(x, 0, 1.5, -4999);
    expect([x.m[0], x.e[0]]).toEqual([1.25, -4998]);
    addExt(x, 0, 1, -6000); // 2^−1002 of the sum: dropped
    expect([x.m[0], x.e[0]]).toEqual([1.25, -4998]);
    addExt(x, 0, 1, 0); // 2^4998 times larger: the old value is dropped
    expect([x.m[0], x.e[0]]).toEqual([1, 0]);
    expect(toLog(x, 0)).toBe(0);
  });

  it('keeps the mantissa in [1, 2) when two mantissas near 2 add', () => {
    const x = extArray(1);
    setExt(x, 0, 2 - 2 ** -52, 0);
    addExt(x, 0, 2 - 2 ** -52, 0);
    expect(x.m[0]).toBeLessThan(2);
    expect(toDouble(x, 0)).toBe(4 - 2 ** -51);
  });

  it('dyadic gives the exact value of a double', () => {
    expect(dyadic(0.75)).toEqual({ m: 6755399441055744n, e: -53 });
    expect(dyadic(5e-324)).toEqual({ m: 1n, e: -1074 });
    const { m, e } = dyadic(0.1);
    expect(Number(m) * 2 ** e).toBe(0.1);
  });
});
