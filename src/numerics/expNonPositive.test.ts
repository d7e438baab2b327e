import { describe, expect, it } from 'vitest';
import { EXP_NON_POSITIVE_ULPS, expNonPositive } from './expNonPositive.js';

const U = Number.EPSILON / 2;

describe('expNonPositive', () => {
  it('is within its proven bound of Math.exp (itself within 2 ulp) on [−64, 0], at table points and between', () => {
    let worst = 0;
    const check = (x: number) => {
      const a = expNonPositive(x),
        b = Math.exp(x);
      worst = Math.max(worst, Math.abs(a - b) / b);
    };
    for (let j = 0; j <= 64 * 32; j++) {
      const x = -j / 32;
      for (const d of [0, 1e-300, 2 ** -60, 1e-9, 1 / 64, 1 / 32 - 1e-12]) check(Math.max(-64, x - d));
    }
    // A deterministic scan of the whole range (golden-ratio steps).
    for (let i = 0; i < 200_000; i++) check(-64 * ((i * 0.6180339887498949) % 1));
    // Math.exp itself may be 2 ulp (4u) off the true value.
    expect(worst).toBeLessThan((EXP_NON_POSITIVE_ULPS + 4) * U);
    expect(worst).toBeGreaterThan(0); // it is not simply Math.exp
  });

  it('is exact at 0, Math.exp outside [−64, 0], NaN for NaN', () => {
    expect(expNonPositive(0)).toBe(1);
    expect(expNonPositive(-0)).toBe(1);
    for (const x of [-64.5, -700, -1e6, 1e-300, 1, 700]) expect(expNonPositive(x)).toBe(Math.exp(x));
    expect(expNonPositive(-Infinity)).toBe(0);
    expect(expNonPositive(Number.NaN)).toBeNaN();
  });
});
