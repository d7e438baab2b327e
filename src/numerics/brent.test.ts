import { describe, expect, it } from 'vitest';
import { NumericalError } from '../errors.js';
import { brentBracket } from './brent.js';
import { smallestFeasibleScale } from './smallestScale.js';

describe('brentBracket', () => {
  it('returns a labelled bracket around the root within tolerance', () => {
    const f = (x: number) => 2 - x * x; // > 0 below √2: "infeasible" side first
    const br = brentBracket(f, 0, 3);
    expect(f(br.infeasible)).toBeGreaterThan(0);
    expect(f(br.feasible)).toBeLessThanOrEqual(0);
    expect(br.feasible).toBeGreaterThanOrEqual(Math.SQRT2);
    expect(br.feasible - br.infeasible).toBeLessThan(1e-14);
    expect(br.iterations).toBeLessThan(20);
  });

  it('fails loudly without a sign change or on NaN', () => {
    expect(() => brentBracket((x) => x * x + 1, -1, 1)).toThrow(NumericalError);
    expect(() => brentBracket(() => NaN, 0, 1)).toThrow(NumericalError);
  });
});

describe('smallestFeasibleScale', () => {
  it('never returns an infeasible scale, even when the bracket ends coincide', () => {
    // s ≥ 1/3 exactly: value 1/s ≤ 3, rounding can make the closed form fail by an ulp
    const sol = smallestFeasibleScale({
      evaluate: (s) => ({ value: 1 / s, error: 4 * Number.EPSILON * (1 / s), target: 3, sense: 'le' }),
      lower: 1 / 3,
      upper: 1 / 3,
    });
    expect(1 / sol.scale + (4 * Number.EPSILON) / sol.scale).toBeLessThanOrEqual(3);
    expect(sol.scale / (1 / 3) - 1).toBeLessThan(1e-12);
  });
});
