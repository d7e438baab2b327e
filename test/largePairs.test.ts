import { describe, expect, it } from 'vitest';
import { calibrate } from '../src/calibrate/calibrate.js';
import { account } from '../src/account/account.js';
import { exactLevels } from '../src/calibrate/points.js';
import { fromCounts } from '../src/distribution/discrete.js';
import { baseCoupling, TRANSPORT_MAX_ARCS, transportable, wInfPoints } from '../src/coupling/points.js';
import { atomsOf, pointLaw, type PointLaw, type PointScenario } from '../src/distribution/points.js';
import { conditionalCoupling, knotheCouplings } from '../src/coupling/knothe.js';

// Pairs of laws too large for a transport (K·L above `TRANSPORT_MAX_ARCS`) are bounded over
// couplings found by sorting: valid, never a dense K·L array. Here Q is P moved by (100, 200), so
// the sorted coupling is that move and every bound must equal the one of two points that far apart.
const side = 2100;
const shift = [100, 200] as const;
const atoms = Array.from({ length: side }, (_, k) => [k % 50, Math.floor(k / 50)]);
const counts = atoms.map((_, k) => 1 + (k % 3));
const P = pointLaw(atoms, { counts });
const Q = pointLaw(
  atoms.map(([x, y]) => [x + shift[0], y + shift[1]]),
  { counts },
);
const scenario = (a: PointLaw, b: PointLaw): PointScenario => ({ name: 'large', priors: [{ name: 'p', conditionals: { a, b } }] });
/** `large` is `small` up to the rounding charged over the coupling's 2 100 pieces, never below it. */
const near = (large: number, small: number) => {
  expect(large).toBeGreaterThanOrEqual(small);
  expect(large / small - 1).toBeLessThan(1e-9);
};
const points = scenario(pointLaw([[0, 0]], { counts: [1] }), pointLaw([[shift[0], shift[1]]], { counts: [1] }));

describe('pairs too large for a transport', () => {
  it('are recognised by their atom pairs', () => {
    expect(atomsOf(P) * atomsOf(Q)).toBeGreaterThan(TRANSPORT_MAX_ARCS);
    expect(transportable(P, Q)).toBe(false);
  });

  it('are coupled by sorting, with exact marginals, saying why', () => {
    const c = baseCoupling(P, Q, { kind: 'l1', weights: [1, 1] });
    expect(c.how).toMatch(/exceed the 4000000 a transport is solved on/);
    const fromP = new Float64Array(atomsOf(P)),
      fromQ = new Float64Array(atomsOf(Q));
    for (let k = 0; k < c.mass.length; k++) {
      fromP[c.p[k]] += c.mass[k];
      fromQ[c.q[k]] += c.mass[k];
    }
    for (let i = 0; i < fromP.length; i++) {
      expect(fromP[i]).toBeCloseTo(P.masses[i], 14);
      expect(fromQ[i]).toBeCloseTo(Q.masses[i], 14);
    }
    expect(wInfPoints(P, Q, { kind: 'l1', weights: [1, 1] })).toBe(shift[0] + shift[1]);
  });

  it('calibrate and account as the two points the move makes them', () => {
    for (const method of ['coupled', 'wasserstein-inf'] as const) {
      const large = calibrate(scenario(P, Q), { mechanism: 'laplace', method, alpha: 2, epsilon: 1 });
      const small = calibrate(points, { mechanism: 'laplace', method, alpha: 2, epsilon: 1 });
      near(large.scale, small.scale);
    }
    const b = calibrate(scenario(P, Q), { mechanism: 'gaussian', method: 'coupled', alpha: 2, epsilon: 1 }).scale;
    near(b, calibrate(points, { mechanism: 'gaussian', method: 'coupled', alpha: 2, epsilon: 1 }).scale);
    // Two releases of both coordinates: coupled bounds (exact accounting on ℝ² takes one).
    const releases = [
      { mechanism: 'laplace' as const, scale: 150 },
      { mechanism: 'laplace' as const, scale: 200 },
    ];
    const large = account(scenario(P, Q), releases, { alphas: [2, 5] }).rows;
    const small = account(points, releases, { alphas: [2, 5] }).rows;
    large.forEach((r, k) => {
      expect(r.method).toBe('coupled');
      near(r.divergence, small[k].divergence);
    });
  });
});

describe('Knothe–Rosenblatt couplings too large to build', () => {
  // A private group's shape: P's units at (0, v), Q's at (v, 0). Each order couples one law's whole
  // conditional to each of the other's many values: 2 500 × 2 500 items, past `KNOTHE_MAX_ITEMS`.
  const n = 2500;
  const A = pointLaw(
    Array.from({ length: n }, (_, v) => [0, v + 1]),
    { counts: Array.from({ length: n }, (_, v) => 1 + (v % 2)) },
  );
  const B = pointLaw(
    Array.from({ length: n }, (_, v) => [v + 1, 0]),
    { counts: Array.from({ length: n }, (_, v) => 1 + (v % 3)) },
  );

  it('are left out, and the pair is bounded over the lexicographic coupling', () => {
    expect(conditionalCoupling(A, B, [0, 1])).toBeNull();
    expect(conditionalCoupling(A, B, [1, 0])).toBeNull();
    expect(knotheCouplings(A, B)).toEqual([]);
    const r = calibrate(scenario(A, B), { mechanism: 'laplace', method: 'coupled', alpha: 2, epsilon: 1 });
    expect(r.explanation).toMatch(/lexicographic comonotone coupling; 2500 × 2500 atom pairs exceed/);
    // The account of that release reads the same coupling: within the budget the calibration certified.
    const level = account(scenario(A, B), [{ mechanism: 'laplace', scale: r.scale }], { alphas: [2] }).rows[0].divergence;
    expect(level).toBeLessThanOrEqual(1);
  });
});

describe('exact accounting on ℝ² where its work would explode', () => {
  // 900 atoms per law on a grid 10 apart: at b = 0.1 the rule's slices times their cost pass its
  // bound (the rule took 7 s here, and minutes on adult's age and fnlwgt at b = 1); at b = 1 it runs.
  const n = 30;
  const grid = (dx: number) =>
    pointLaw(
      Array.from({ length: n * n }, (_, k) => [(k % n) * 10 + dx, Math.floor(k / n) * 10 + dx]),
      { counts: Array(n * n).fill(1) },
    );
  const [A, B] = [grid(0), grid(3)];

  it('declines, and the account keeps its coupled bound', () => {
    expect(exactLevels(A, B, [{ mechanism: 'laplace', scale: 0.1 }], [1, 1], 2)).toBeNull();
    expect(exactLevels(A, B, [{ mechanism: 'laplace', scale: 1 }], [1, 1], 2)).not.toBeNull();
    const at = (scale: number) => account(scenario(A, B), [{ mechanism: 'laplace', scale }], { alphas: [2] }).rows[0].method;
    expect(at(0.1)).toBe('coupled');
    expect(at(1)).toBe('exact');
  });
});

describe('two releases of one value where exact accounting on ℝ² would take too long', () => {
  it('keeps the tightest other bound instead of climbing to a scale where the rule runs', () => {
    // 800 atoms 20 apart against the same moved by 1, α = 1.01: at the coupled scale the diagonal's
    // work passes its bound (the search used to climb to b ≈ 4.87 over 20 minutes).
    const vs = Array.from({ length: 800 }, (_, k) => k * 20);
    const s = {
      name: 'diagonal',
      priors: [
        {
          name: 'p',
          conditionals: {
            a: fromCounts(
              vs,
              vs.map(() => 1),
            ),
            b: fromCounts(
              vs.map((v) => v + 1),
              vs.map(() => 1),
            ),
          },
        },
      ],
    };
    const settings = { mechanism: 'laplace' as const, alpha: 1.01, epsilon: 1, releases: 2 };
    const exact = calibrate(s, { ...settings, method: 'exact' });
    const coupled = calibrate(s, { ...settings, method: 'coupled' });
    expect(exact.explanation).toMatch(/Exact on ℝ² declined at the tightest other bound’s scale/);
    expect(exact.scale / coupled.scale - 1).toBeLessThan(1e-9);
  });
});
