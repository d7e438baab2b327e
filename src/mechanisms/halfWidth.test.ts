import { describe, expect, it } from 'vitest';
import { absCost, etaPower, sqrtCost } from '../conditions/costs.js';
import { REGISTRY } from './registry.js';

const o = { cost: absCost, eta: etaPower(1) };

/** P(|Z| ≤ x) for a symmetric density, by composite Simpson on [0, x] (an independent check). */
function coverage(density: (z: number) => number, x: number, n = 20_000): number {
  const h = x / n;
  let s = density(0) + density(x);
  for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * density(i * h);
  return (2 * s * h) / 3;
}

describe('halfWidth: the ±x that holds a given share of the noise, rounded up', () => {
  it('Laplace and Gaussian: covers at least the share, and barely more', () => {
    for (const scale of [0.01, 1, 37.5])
      for (const p of [0.5, 0.95, 0.999]) {
        const lx = REGISTRY.laplace.halfWidth(scale, p, o);
        const lap = coverage((z) => Math.exp(-Math.abs(z) / scale) / (2 * scale), lx);
        expect(lap).toBeGreaterThanOrEqual(p - 1e-12);
        expect(lap).toBeLessThan(p + 1e-9);
        const gx = REGISTRY.gaussian.halfWidth(scale, p, o);
        const gau = coverage((z) => Math.exp(-(z * z) / (2 * scale * scale)) / (scale * Math.sqrt(2 * Math.PI)), gx);
        expect(gau).toBeGreaterThanOrEqual(p - 1e-12);
        expect(gau).toBeLessThan(p + 1e-7);
      }
    expect(REGISTRY.gaussian.halfWidth(1, 0.95, o)).toBeCloseTo(1.959964, 5);
    // Near 1 the upper quantile is read from the lower tail, where (1 − c)/2 keeps its digits.
    expect(REGISTRY.gaussian.halfWidth(1, 1 - 2 ** -53, o)).toBeGreaterThan(8.2);
  });
  it('exponential mechanism: Laplace for c = |z|, the Gamma tail for c = √|z|', () => {
    expect(REGISTRY.exponential.halfWidth(2, 0.95, o)).toBe(REGISTRY.laplace.halfWidth(2, 0.95, o));
    const eta = 1.5;
    const x = REGISTRY.exponential.halfWidth(1 / eta, 0.95, { cost: sqrtCost, eta: etaPower(1) });
    const v = eta * Math.sqrt(x);
    // P(|Z| > x) = e^{−v}(1 + v) at v = η√x: at most 5%, and not by much.
    expect(Math.exp(-v) * (1 + v)).toBeLessThanOrEqual(0.05);
    expect(Math.exp(-v) * (1 + v)).toBeGreaterThan(0.05 * (1 - 1e-9));
  });
});
