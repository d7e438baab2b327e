import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.js';
import { fromCounts, fromWeights, mean } from './discrete.js';

describe('fromCounts / fromWeights', () => {
  it('sorts, merges duplicate values and drops zero mass', () => {
    const d = fromCounts([3, 1, 3, 2], [1, 2, 3, 0]);
    expect([...d.values]).toEqual([1, 3]);
    expect(d.numerators).toEqual([2n, 4n]);
    expect(d.denominator).toBe(6n);
    expect([...d.masses]).toEqual([1 / 3, 2 / 3]);
    expect(mean(d)).toBeCloseTo(7 / 3, 15);
  });

  it('reads float weights as the decimals they print as', () => {
    const d = fromWeights([0, 1, 2], [0.1, 0.2, 0.7]);
    expect(d.numerators).toEqual([1n, 2n, 7n]);
    expect(d.denominator).toBe(10n);
    expect(d.masses[0] + d.masses[1] + d.masses[2]).toBeCloseTo(1, 15);
    expect(fromWeights([5], [1e-300]).masses[0]).toBe(1);
  });

  it.each([
    [() => fromCounts([1, 2], [1, -1]), 'distribution.counts[1]: count -1 is not a non-negative integer'],
    [() => fromCounts([1, 2], [1, 1.5]), 'distribution.counts[1]: count 1.5 is not a non-negative integer'],
    [() => fromCounts([1, 2], [0, 0]), 'distribution.counts: counts sum to zero; at least one must be positive'],
    [() => fromCounts([1, 2], [1]), 'distribution.counts: has 1 entries but values has 2'],
    [() => fromWeights([1, NaN], [1, 1]), 'distribution.values[1]: value NaN is not a finite number'],
    [() => fromWeights([1, Infinity], [1, 1]), 'distribution.values[1]: value Infinity is not a finite number'],
    [() => fromWeights([1, 2], [1, -0.5]), 'distribution.weights[1]: weight -0.5 is negative'],
    [() => fromWeights([1, 2], [1, Infinity]), 'distribution.weights[1]: weight Infinity is not a finite number'],
    [() => fromWeights([1, 2], [0, 0]), 'distribution.weights: weights sum to zero; at least one must be positive'],
    [() => fromWeights([], []), 'distribution.values: needs at least one value'],
  ])('rejects bad input %#', (make, message) => {
    expect(make).toThrow(InputError);
    expect(make).toThrow(message);
  });
});
