import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { maximalCoupling, robustShare } from './windows.js';

/** A probability vector from positive weights. */
const law = (w: number[]) => {
  const z = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / z);
};

describe('robustShare: a coupling of rows known within a relative η', () => {
  it('scaled by keep, its margins lie below any true rows within η; with the lost mass it covers them', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 5 })
          .chain((k) =>
            fc.tuple(
              fc.array(fc.double({ min: 1e-6, max: 1, noNaN: true }), { minLength: k, maxLength: k }),
              fc.array(fc.double({ min: 1e-6, max: 1, noNaN: true }), { minLength: k, maxLength: k }),
              fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 2 * k, maxLength: 2 * k }),
              fc.constantFrom(1e-12, 1e-6, 1e-3),
            ),
          ),
        ([wp, wq, theta, eta]) => {
          const k = wp.length;
          const p = law(wp),
            q = law(wq);
          // Computed rows: the true ones moved by at most η/2 relatively.
          const pc = p.map((x, z) => x * (1 + (theta[z] * eta) / 2));
          const qc = q.map((x, z) => x * (1 + (theta[k + z] * eta) / 2));
          const steps = maximalCoupling(pc, qc, true);
          const { keep, lost } = robustShare(pc, qc, steps, eta);
          const rows = pc.map((x, z) => Math.min(x, qc[z]));
          const cols = rows.slice();
          let total = 0;
          for (const st of steps) {
            total += st.p;
            if (st.u < 0) continue;
            rows[st.u] += st.p;
            cols[st.v] += st.p;
          }
          for (let z = 0; z < k; z++) {
            expect(keep * rows[z]).toBeLessThanOrEqual(p[z]);
            expect(keep * cols[z]).toBeLessThanOrEqual(q[z]);
          }
          expect(keep).toBeLessThanOrEqual(1);
          expect(keep * total + lost).toBeGreaterThanOrEqual(1);
          // The charge is of the order of η, not more.
          expect(lost).toBeLessThan(4 * eta + 1e-12);
        },
      ),
      { numRuns: 300 },
    );
  });
});
