import { describe, expect, it } from 'vitest';
import { normalQuantile } from './normalQuantile.js';

describe('normalQuantile', () => {
  it('matches tabulated quantiles to its published relative error', () => {
    // Φ⁻¹ values from high-precision tables.
    const known: [number, number][] = [
      [0.975, 1.959963984540054],
      [0.995, 2.5758293035489004],
      [0.84134474606854293, 1],
      [0.001, -3.090232306167814],
      [1e-10, -6.361340902404056],
    ];
    for (const [p, x] of known) expect(Math.abs(normalQuantile(p) / x - 1)).toBeLessThan(1.2e-9);
    expect(normalQuantile(0.5)).toBe(0);
  });
  it('is antisymmetric and refuses p outside (0, 1)', () => {
    for (const p of [0.01, 0.2, 0.4]) expect(normalQuantile(1 - p)).toBeCloseTo(-normalQuantile(p), 9);
    expect(() => normalQuantile(1)).toThrow(RangeError);
    expect(() => normalQuantile(Number.NaN)).toThrow(RangeError);
  });
});
