import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { geometricBisection, narrowBracket, smallestFitting, smallestFittingByRatio, withinBracket } from './smallestScale.js';

const bisect = (fits: (s: number) => boolean, start: number) => geometricBisection(fits, start, 1e15)!;

describe('a bisection read off a narrowed bracket', () => {
  // A smooth power law, one with a kink (two checks, the larger binds), and one refined only until
  // it fits (its ratio stops just under 1 on the fitting side, as the boundary bound's does).
  const threshold = 2.6180339;
  const cases: [string, (s: number) => number, boolean][] = [
    ['power', (s) => (threshold / s) ** 2, true],
    ['kink', (s) => Math.max((threshold / s) ** 2, (0.9 * threshold) / s), true],
    ['lazy', (s) => (s >= threshold ? 1 - 1e-12 : (threshold / s) ** 1.5), false],
  ];
  it.each(cases)('%s: the same answer as the bisection alone, from far fewer evaluations', (_, ratio, fitValues) => {
    let alone = 0;
    const check = (s: number) => {
      alone++;
      return ratio(s) <= 1;
    };
    const want = bisect(check, 31);
    let narrowing = 0;
    const counted = (s: number) => {
      narrowing++;
      return ratio(s);
    };
    const bracket = narrowBracket(counted, 31, 1e-7, 14, fitValues ? {} : { fits: 40, fitValues: false });
    expect(bracket.fail).toBeLessThan(threshold);
    expect(bracket.fit).toBeGreaterThanOrEqual(threshold);
    let inside = 0;
    const got = bisect(
      withinBracket((s) => {
        inside++;
        return ratio(s) <= 1;
      }, bracket),
      31,
    );
    expect(got).toBe(want);
    expect(narrowing + inside).toBeLessThan(alone * 0.7);
  });

  it('a bracket that is wrong about nothing it did not evaluate: a non-monotone guess never decides', () => {
    // Every answer outside the bracket is one the check gave at a scale beyond it.
    const b = { fail: 1, fit: 2 };
    const fits = withinBracket(() => {
      throw new Error('evaluated outside');
    }, b);
    expect(fits(0.5)).toBe(false);
    expect(fits(3)).toBe(true);
    expect(smallestFitting((s) => s >= 3, 1)).toBeGreaterThanOrEqual(3);
  });

  it('smallestFittingByRatio: the answer of smallestFitting alone, for a level with a floor (earlier releases) and fitting ratios that are loose bounds; fewer evaluations over all', () => {
    let [total, totalAlone] = [0, 0];
    fc.assert(
      fc.property(
        fc.double({ min: 1e-4, max: 1e4, noNaN: true }),
        fc.double({ min: 0, max: 0.9, noNaN: true }),
        fc.double({ min: 0.5, max: 4, noNaN: true }),
        fc.double({ min: 1, max: 3, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        (root, floor, power, loose, start) => {
          // ratio = floor + (1 − floor)(root/s)^p: 1 at the root; a fitting scale reports up to `loose`× its value, capped at 1.
          const exact = (s: number) => floor + (1 - floor) * (root / s) ** power;
          let alone = 0;
          const want = smallestFitting((s) => {
            alone++;
            return exact(s) <= 1;
          }, start);
          let calls = 0;
          const got = smallestFittingByRatio((s) => {
            calls++;
            const r = exact(s);
            return r <= 1 ? Math.min(1, r * loose) : r;
          }, start);
          expect(got).toBe(want);
          // The narrowing's 30 evaluations at most; the bisection then evaluates only steps it would take alone.
          expect(calls).toBeLessThanOrEqual(alone + 30);
          total += calls;
          totalAlone += alone;
        },
      ),
      { numRuns: 200, seed: 11 },
    );
    expect(total).toBeLessThan(0.6 * totalAlone);
  });

  it('smallestFittingByRatio with a guess: the same answer, in three evaluations where the guess is it; a wrong guess changes nothing', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-4, max: 1e4, noNaN: true }),
        fc.double({ min: 0.5, max: 4, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        fc.double({ min: -1e-5, max: 1e-5, noNaN: true }),
        (root, power, start, off) => {
          const ratio = (s: number) => (root / s) ** power;
          const want = smallestFittingByRatio(ratio, start)!;
          let calls = 0;
          const counted = (s: number) => {
            calls++;
            return ratio(s);
          };
          expect(smallestFittingByRatio(counted, start, 1e-6, 30, want)).toBe(want);
          expect(calls).toBe(3); // 10³⁰⁰, the guess, the bisection's last failing end
          // Any other guess (a scale a little off, the root itself, a search from elsewhere) leaves the answer as it was.
          for (const g of [want * (1 + off), root, want * 2, smallestFittingByRatio(ratio, start * 3)!])
            expect(smallestFittingByRatio(ratio, start, 1e-6, 30, g)).toBe(want);
        },
      ),
      { numRuns: 200, seed: 12 },
    );
  });

  it('smallestFittingByRatio: null where no scale fits, after one evaluation, however flat or unbounded the ratio', () => {
    for (const r of [1.01, 2, 800, 1e300, Infinity, Number.NaN]) {
      let calls = 0;
      expect(
        smallestFittingByRatio(() => {
          calls++;
          return r;
        }),
      ).toBeNull();
      expect(calls).toBe(1);
    }
  });

  it('smallestFittingByRatio: where every scale fits (the data within the budget), the floor 10⁻³⁰⁰ in a few evaluations', () => {
    for (const fit of [0, 0.5, 1]) {
      let calls = 0;
      const got = smallestFittingByRatio(() => {
        calls++;
        return fit;
      });
      expect(got).toBeLessThanOrEqual(1e-300);
      expect(got).toBeGreaterThan(0);
      expect(calls).toBeLessThanOrEqual(16);
      // The answer of the bisection alone, which evaluates about a thousand halvings.
      expect(got).toBe(smallestFitting(() => true));
    }
  });

  it('smallestFittingByRatio: a flat, unbounded failing ratio never leads the search past 10³⁰⁰', () => {
    // Fits only above 10²⁹⁰, failing far below with a ratio of ∞: the secant would step beyond every double.
    let largest = 0;
    const got = smallestFittingByRatio((s) => {
      largest = Math.max(largest, s);
      return s >= 1e290 ? 0.5 : Infinity;
    });
    expect(got).toBeGreaterThanOrEqual(1e290);
    expect(got).toBeLessThan(1e290 * (1 + 1e-6));
    expect(largest).toBeLessThanOrEqual(1e300);
  });
});
