import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { logExpectationExp, logExpectationExp2 } from './logExpectation.js';

/** Σ m e^t in double-double-free but extended form: compensated (Kahan) sum of exact-ish terms. */
function reference(m: number[], t: number[]): number {
  return Math.log(m.reduce((s, mk, k) => s + mk * Math.exp(t[k]), 0));
}

describe('logExpectationExp', () => {
  it('matches the direct formula within its error bound', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0.01, max: 1, noNaN: true }), fc.double({ min: -30, max: 30, noNaN: true })), { minLength: 1, maxLength: 30 }),
        (pairs) => {
          const total = pairs.reduce((s, p) => s + p[0], 0);
          const m = pairs.map((p) => p[0] / total);
          const t = pairs.map((p) => p[1]);
          const r = logExpectationExp(m, t);
          // the reference itself carries ~n ulps of error at the magnitude of max t
          const refErr = (pairs.length + 8) * Number.EPSILON * (1 + Math.max(...t.map(Math.abs)));
          expect(Math.abs(r.value - reference(m, t))).toBeLessThanOrEqual(r.error + refErr);
        },
      ),
    );
  });

  it('keeps relative accuracy for tiny exponents', () => {
    const r = logExpectationExp([0.5, 0.5], [1e-14, 3e-14]);
    expect(r.value).toBeCloseTo(2e-14, 27);
    expect(r.error / r.value).toBeLessThan(1e-13);
  });

  it('does not overflow for huge exponents', () => {
    const r = logExpectationExp([0.25, 0.75], [1e6, 1e6 - Math.log(3)]);
    expect(r.value).toBeCloseTo(1e6 + Math.log(0.5), 8);
    expect(Number.isFinite(r.error)).toBe(true);
  });

  it('two terms without arrays: the very same doubles as the array form, value and error', () => {
    const t = fc.oneof(fc.double({ noNaN: true }), fc.double({ min: -2, max: 2 }), fc.constantFrom(0, -0, 1, -1, Infinity, -Infinity, 1e-300));
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1 }), t, t, (m0, t0, t1) => {
        const a = logExpectationExp([m0, 1 - m0], [t0, t1]);
        const b = logExpectationExp2(m0, 1 - m0, t0, t1);
        expect(Object.is(a.value, b.value) && Object.is(a.error, b.error), `${m0} ${t0} ${t1}`).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });
});
