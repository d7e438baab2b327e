import { describe, expect, it } from 'vitest';
import { gaussLegendre } from './gaussLegendre.js';

describe('gaussLegendre', () => {
  it('integrates monomials of degree ≤ 2n−1 exactly on [−1, 1], and not degree 2n', () => {
    for (let n = 1; n <= 16; n++) {
      const { nodes, weights } = gaussLegendre(n);
      const rule = (k: number) => nodes.reduce((s, x, i) => s + weights[i] * x ** k, 0);
      for (let k = 0; k <= 2 * n - 1; k++) expect(Math.abs(rule(k) - (k % 2 ? 0 : 2 / (k + 1)))).toBeLessThan(2e-15);
      expect(Math.abs(rule(2 * n) - 2 / (2 * n + 1))).toBeGreaterThan(1e-12);
    }
  });
  it('nodes increase and are symmetric, weights positive', () => {
    for (let n = 1; n <= 16; n++) {
      const { nodes, weights } = gaussLegendre(n);
      for (let i = 0; i < n; i++) {
        expect(nodes[i] + nodes[n - 1 - i]).toBe(0);
        expect(weights[i]).toBeGreaterThan(0);
        if (i) expect(nodes[i]).toBeGreaterThan(nodes[i - 1]);
      }
    }
  });
  it('refuses orders it does not compute', () => {
    expect(() => gaussLegendre(0)).toThrow(/n must be/);
    expect(() => gaussLegendre(2.5)).toThrow(/n must be/);
  });
});
