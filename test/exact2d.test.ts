// The exact accountant on ℝ² (docs/math.md §12, "Exact in two dimensions"): checked against closed
// forms, the factorisation of product laws, and an independent tensor quadrature.
import { describe, expect, it } from 'vitest';
import { laplaceGapRule2d } from '../src/mechanisms/laplace/gapRule2d.js';
import { laplaceGapRule } from '../src/mechanisms/laplace/gapRule.js';
import { laplaceRdp } from '../src/conditions/pierquin.js';
import type { Mixture2 } from '../src/divergence/mixture.js';
import { pointLaw } from '../src/distribution/points.js';
import { vectorRenyi2d } from './quadrature2d.js';

/** A law on ℝ² from atoms [a, c] and weights (normalised here). */
function law(atoms: [number, number][], weights: number[]): Mixture2 {
  const total = weights.reduce((x, y) => x + y, 0);
  return {
    a: Float64Array.from(atoms, (p) => p[0]),
    c: Float64Array.from(atoms, (p) => p[1]),
    logw: Float64Array.from(weights, (w) => Math.log(w / total)),
  };
}

/** The same law as the oracle reads it. */
const asPoints = (m: Mixture2) =>
  pointLaw(
    Array.from(m.a, (a, k) => [a, m.c[k]]),
    { weights: Array.from(m.logw, Math.exp) },
  );

/** D_α both ways, value and certified error, from the 2-D rule. */
function levels(P: Mixture2, Q: Mixture2, alpha: number, b: [number, number]) {
  const r = laplaceGapRule2d(P, Q, alpha, b, 1e-9, true);
  expect(r).not.toBeNull();
  return r!.map((x) => ({ value: x.value / (alpha - 1), error: x.error / (alpha - 1) }));
}

/** A small deterministic generator (tests only). */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('the exact accountant on ℝ² (Laplace)', () => {
  it('two point masses: the shift divergence of each coordinate, summed (product noise)', () => {
    for (const alpha of [1.5, 2, 5, 16])
      for (const [b1, b2] of [
        [1, 1],
        [0.7, 3],
        [5, 0.2],
      ] as [number, number][]) {
        const [pq, qp] = levels(law([[0, 0]], [1]), law([[1, 2]], [1]), alpha, [b1, b2]);
        const closed = laplaceRdp(alpha, 1 / b1) + laplaceRdp(alpha, 2 / b2);
        for (const x of [pq, qp]) {
          expect(Math.abs(x.value - closed), `α=${alpha} b=${b1},${b2}`).toBeLessThanOrEqual(x.error + 1e-12 * closed);
          expect(x.error).toBeLessThan(1e-7 * closed);
        }
      }
  });

  it('product laws: the integral factorises into the two one-dimensional ones', () => {
    const u = lcg(7);
    for (let trial = 0; trial < 6; trial++) {
      const side = () => Array.from({ length: 2 + Math.floor(u() * 4) }, () => Math.round(u() * 80) / 10);
      const [xs1, ys1, xs2, ys2] = [side(), side(), side(), side()];
      const w = (n: number) => Array.from({ length: n }, () => 0.1 + u());
      const [wx1, wy1, wx2, wy2] = [w(xs1.length), w(ys1.length), w(xs2.length), w(ys2.length)];
      const product = (xs: number[], ys: number[], wx: number[], wy: number[]) =>
        law(
          xs.flatMap((x) => ys.map((y): [number, number] => [x, y])),
          wx.flatMap((a) => wy.map((c) => a * c)),
        );
      const oneD = (xs: number[], wx: number[]) => {
        const order = xs.map((_, i) => i).sort((i, j) => xs[i] - xs[j]);
        const x: number[] = [],
          logw: number[] = [];
        const total = wx.reduce((a, c) => a + c, 0);
        for (const i of order) {
          if (x.length && x[x.length - 1] === xs[i]) logw[logw.length - 1] = Math.log(Math.exp(logw[logw.length - 1]) + wx[i] / total);
          else {
            x.push(xs[i]);
            logw.push(Math.log(wx[i] / total));
          }
        }
        return { x: Float64Array.from(x), logw: Float64Array.from(logw) };
      };
      const alpha = [1.5, 2, 4][trial % 3];
      const b: [number, number] = [0.3 + 2 * u(), 0.3 + 2 * u()];
      const two = laplaceGapRule2d(product(xs1, ys1, wx1, wy1), product(xs2, ys2, wx2, wy2), alpha, b, 1e-9, true)!;
      const first = laplaceGapRule(oneD(xs1, wx1), oneD(xs2, wx2), alpha, b[0], 1e-10, true)!;
      const second = laplaceGapRule(oneD(ys1, wy1), oneD(ys2, wy2), alpha, b[1], 1e-10, true)!;
      for (const k of [0, 1]) {
        const sum = first[k].value + second[k].value;
        expect(Math.abs(two[k].value - sum), `trial ${trial}`).toBeLessThanOrEqual(two[k].error + first[k].error + second[k].error);
      }
    }
  });

  it('correlated laws, a value released twice, atoms many scales apart: within the error of an independent tensor quadrature', () => {
    const u = lcg(11);
    const cases: { P: Mixture2; Q: Mixture2; b: [number, number] }[] = [];
    for (let trial = 0; trial < 4; trial++) {
      const atoms = () => Array.from({ length: 3 + Math.floor(u() * 4) }, (): [number, number] => [Math.round(u() * 60) / 10, Math.round(u() * 40) / 10]);
      const pa = atoms(),
        qa = atoms();
      cases.push({
        P: law(
          pa,
          pa.map(() => 0.1 + u()),
        ),
        Q: law(
          qa,
          qa.map(() => 0.1 + u()),
        ),
        b: [0.4 + u(), 0.4 + u()],
      });
    }
    // One value released twice (the diagonal), and gaps of a few hundred scales in both coordinates.
    cases.push({
      P: law(
        [
          [0, 0],
          [2, 2],
          [5, 5],
        ],
        [1, 2, 1],
      ),
      Q: law(
        [
          [0, 0],
          [3, 3],
          [5, 5],
        ],
        [2, 1, 1],
      ),
      b: [1.5, 0.8],
    });
    cases.push({
      P: law(
        [
          [0, 0],
          [30, 20],
        ],
        [1, 1],
      ),
      Q: law(
        [
          [0, 0],
          [30, 20],
        ],
        [1, 3],
      ),
      b: [0.1, 0.1],
    });
    for (const { P, Q, b } of cases)
      for (const alpha of [1.5, 2, 5]) {
        const [pq, qp] = levels(P, Q, alpha, b);
        const k1 = { family: 'laplace', scale: b[0] },
          k2 = { family: 'laplace', scale: b[1] };
        const truth = [vectorRenyi2d(asPoints(P), asPoints(Q), k1, k2, alpha), vectorRenyi2d(asPoints(Q), asPoints(P), k1, k2, alpha)];
        // The oracle is accurate to about 10⁻⁹ relative on such cases.
        expect(Math.abs(pq.value - truth[0]), `α=${alpha}`).toBeLessThanOrEqual(pq.error + 1e-8 * Math.max(1, truth[0]));
        expect(Math.abs(qp.value - truth[1]), `α=${alpha}`).toBeLessThanOrEqual(qp.error + 1e-8 * Math.max(1, truth[1]));
      }
  });

  it('declines where a gap would need more than 512 panels, rather than integrate for minutes', () => {
    expect(laplaceGapRule2d(law([[0, 0]], [1]), law([[0, 1e5]], [1]), 2, [1, 1], 1e-9, true)).toBeNull();
  });
});
