import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBinaryMasses, fromWeights, type Discrete } from '../../distribution/discrete.js';
import { pairCoupling } from '../../coupling/pairs.js';
import { isFeasible, smallestFeasibleScale } from '../../numerics/smallestScale.js';
import { comonotoneMovesUp, logMomentUp } from '../../coupling/wInfWalk.js';
import { calibrationRule } from '../../calibrate/rules.js';

/** Random laws: 1–40 atoms on a grid of quarters, weights from 10⁻⁸ to 1. */
const law = fc.array(fc.tuple(fc.integer({ min: -40, max: 40 }), fc.double({ min: -8, max: 0, noNaN: true })), { minLength: 1, maxLength: 40 }).map((a) => {
  const byValue = new Map(a.map(([x, w]) => [x / 4, 10 ** w]));
  const xs = [...byValue.keys()].sort((p, q) => p - q);
  return fromWeights(
    xs,
    xs.map((x) => Number(byValue.get(x)!.toPrecision(6))),
  );
});

describe("Laplace theorem and coupled: the quick checks say 'holds' only where the full condition holds", () => {
  it('on random pairs, orders and scales: holdsAt true ⇒ the condition evaluated on π* is feasible; and it says so often', () => {
    let cheap = 0;
    fc.assert(
      fc.property(law, law, fc.constantFrom(1.5, 2, 5, 20), fc.double({ min: 0.5, max: 2.5, noNaN: true }), (p, q, alpha, lg) => {
        const pc = pairCoupling('p', ['a', 'b'], p, q);
        for (const method of ['theorem', 'coupled'] as const) {
          const rule = calibrationRule({ mechanism: 'laplace', method, alpha, epsilon: 1 });
          const b = 10 ** lg;
          if (!rule.holdsAt?.(pc, false, b)) continue;
          cheap++;
          const pr = rule.problem(pc, false);
          if ('zero' in pr) continue;
          expect(isFeasible(pr.evaluate(b))).toBe(true);
        }
      }),
      { numRuns: 300, seed: 20261204 },
    );
    expect(cheap).toBeGreaterThan(100);
  });
});

describe("the walk's bound on π*'s log-moment", () => {
  it('is never below the moment of the built coupling, and above it by less than 10⁻⁸ (relatively)', () => {
    fc.assert(
      fc.property(law, law, fc.double({ min: 0.01, max: 20, noNaN: true }), (p, q, t) => {
        const pc = pairCoupling('p', ['a', 'b'], p, q);
        const c = pc.coupling;
        let e = 0;
        for (let k = 0; k < c.mass.length; k++) e += c.mass[k] * Math.exp(t * Math.abs(c.x[k] - c.y[k]));
        const up = logMomentUp(comonotoneMovesUp(p, q), (d) => t * d);
        // The reference is summed in doubles too: within 10⁻¹³ of the exact moment.
        expect(up).toBeGreaterThanOrEqual(Math.log(e) - 1e-13 * (1 + Math.abs(Math.log(e))));
        expect(up - Math.log(e)).toBeLessThan(1e-8 * (1 + Math.abs(Math.log(e))));
      }),
      { numRuns: 400, seed: 4122026 },
    );
  });

  it("holds at scales just around each pair's own smallest feasible one only where its condition is feasible, and the walk decides many W∞ could not", () => {
    let byWalk = 0;
    fc.assert(
      fc.property(law, law, fc.constantFrom(1.5, 2, 5, 20), (p, q, alpha) => {
        const pc = pairCoupling('p', ['a', 'b'], p, q);
        for (const method of ['theorem', 'coupled'] as const) {
          const rule = calibrationRule({ mechanism: 'laplace', method, alpha, epsilon: 1 });
          const pr = rule.problem(pc, false);
          if ('zero' in pr) continue;
          const own = smallestFeasibleScale(pr).scale;
          for (const f of [0.999, 0.99999, 1 - 1e-7, 1 - 1e-8, 1 - 1e-9, 1, 1 + 1e-9, 1 + 1e-7, 1.00001, 1.001, 1.1]) {
            const b = own * f;
            if (!rule.holdsAt?.(pc, false, b)) continue;
            expect(isFeasible(pr.evaluate(b)), `${method} α=${alpha} at ${f}× its scale`).toBe(true);
            const wInfAlone = method === 'theorem' ? (alpha * pc.exactWInf) / b : Number.NaN;
            if (method === 'theorem' && !(wInfAlone * (1 + 1e-9) + 1e-9 <= alpha - 1)) byWalk++;
          }
        }
      }),
      { numRuns: 200, seed: 20261205 },
    );
    expect(byWalk).toBeGreaterThan(50);
  });
});

describe("the walk's moved masses where prefix sums straddle ½", () => {
  /** The comonotone coupling's exact mass per distance, on the laws' exact rational masses. */
  function exactMoves(p: Discrete, q: Discrete): Map<number, number> {
    const den = p.denominator * q.denominator;
    const a = p.numerators.map((n) => n * q.denominator),
      b = q.numerators.map((n) => n * p.denominator);
    const moved = new Map<number, bigint>();
    let i = 0,
      j = 0,
      ra = a[0],
      rb = b[0];
    while (i < a.length && j < b.length) {
      let m = ra;
      if (rb < m) m = rb;
      const d = Math.abs(p.values[i] - q.values[j]);
      moved.set(d, (moved.get(d) ?? 0n) + m);
      ra -= m;
      rb -= m;
      if (ra === 0n && ++i < a.length) ra = a[i];
      if (rb === 0n && ++j < b.length) rb = b[j];
    }
    return new Map([...moved].map(([d, m]) => [d, Number((m << 60n) / den) * 2 ** -60]));
  }

  it('a long prefix rounded past ½ while its true value is below: every distance keeps at least its exact mass', () => {
    // p: about ½ at 0, then 1000 masses of 3·2⁻⁵⁶ (each sum rounds up), a mass at 1001 taking the
    // computed prefix just past ½ while the true one stays 489.5 ulps below, the rest at 5000. q: a
    // mass between the true prefix and ½ at 0, the rest at 5000.
    const n = 1000;
    const tiny = 3 * 2 ** -56;
    const first = 0.5 - n * 2 ** -54 + 4 * 2 ** -54;
    let s = first;
    for (let k = 0; k < n; k++) s += tiny;
    let c = 2 ** -56;
    while (!(s + c > 0.5)) c += 2 ** -56;
    const units = (x: number) => BigInt(Math.round(x * 2 ** 56));
    const trueF = units(first) + BigInt(n) * 3n + units(c);
    const masses = [first, ...new Array<number>(n).fill(tiny), c, Number((1n << 56n) - trueF) * 2 ** -56];
    const p = fromBinaryMasses(
      masses.map((_, k) => (k === masses.length - 1 ? 5000 : k)),
      masses,
    );
    const g = Number((trueF + (1n << 55n)) / 2n) * 2 ** -56;
    const q = fromBinaryMasses([0, 5000], [g, 1 - g]);
    const up = comonotoneMovesUp(p, q);
    for (const [d, m] of exactMoves(p, q)) {
      const k = up.d.indexOf(d);
      expect(k >= 0 ? up.w[k] : 0, `distance ${d}`).toBeGreaterThanOrEqual(m);
    }
  });
});
