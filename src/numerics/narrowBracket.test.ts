import { describe, expect, it } from 'vitest';
import { geometricBisection, narrowBracket, smallestFitting, withinBracket } from './smallestScale.js';

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
});
