import { describe, expect, it } from 'vitest';
import { gk21Points, gk21Sums } from './gaussKronrod.js';

/** ∫_0^1 y^n dy through the rules, with h = log(y^n) (y > 0 on the nodes). */
function rules(n: number) {
  const pts = new Float64Array(21);
  gk21Points(0, 1, pts, 0);
  return gk21Sums(
    pts.map((y) => n * Math.log(y)),
    0,
    0,
    1,
    0,
  );
}

describe('Gauss–Kronrod 21 constants', () => {
  it('Kronrod is exact to degree 31, Gauss to degree 19', () => {
    for (let n = 0; n <= 31; n++) expect(rules(n).kronrod).toBeCloseTo(1 / (n + 1), 14);
    for (let n = 0; n <= 19; n++) expect(rules(n).gauss).toBeCloseTo(1 / (n + 1), 14);
    expect(Math.abs(rules(21).gauss - 1 / 22)).toBeGreaterThan(1e-12); // not beyond its degree
  });
  it('nodes are increasing', () => {
    const pts = new Float64Array(21);
    gk21Points(-3, 5, pts, 0);
    for (let i = 1; i < 21; i++) expect(pts[i]).toBeGreaterThan(pts[i - 1]);
  });
});
