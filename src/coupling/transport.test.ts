import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  baseCoupling,
  comboCosts,
  lexicographicCoupling,
  couplingCost,
  distance,
  distances,
  optimalCoupling,
  pairDiffs,
  separableCosts,
  wInfPoints,
} from '../coupling/points.js';
import { pointLaw } from '../distribution/points.js';
import { bottleneck } from './bottleneck.js';
import { transportPlan, treeFlows } from './transport.js';

/** All permutations of 0..n−1 (brute force for equal masses: optimal plans are permutations, Birkhoff). */
function permutations(n: number): number[][] {
  if (n === 1) return [[0]];
  return permutations(n - 1).flatMap((p) => Array.from({ length: n }, (_, k) => [...p.slice(0, k), n - 1, ...p.slice(k)]));
}

const pointsArb = (n: number, d: number) =>
  fc.array(fc.array(fc.integer({ min: -20, max: 20 }), { minLength: d, maxLength: d }), { minLength: n, maxLength: n });

describe('optimal transport (network simplex) and W∞ (bottleneck)', () => {
  it('equals brute force over permutations for equal masses, with exact integer flows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 1000 }), (n, seed) => {
        let s = seed;
        const rnd = () => {
          s = (s * 1103515245 + 12345) % 2 ** 31;
          return (s / 2 ** 31) * 10;
        };
        const cost = Array.from({ length: n }, () => Array.from({ length: n }, rnd));
        const plan = transportPlan(Array(n).fill(3), Array(n).fill(3), (i, j) => cost[i][j]);
        const brute = Math.min(...permutations(n).map((p) => p.reduce((t, j, i) => t + 3 * cost[i][j], 0)));
        expect(plan.cost).toBeCloseTo(brute, 9);
        const rows = new Array(n).fill(0),
          cols = new Array(n).fill(0);
        plan.flow.forEach((f, k) => {
          expect(Number.isInteger(f)).toBe(true);
          rows[plan.i[k]] += f;
          cols[plan.j[k]] += f;
        });
        expect(rows).toEqual(Array(n).fill(3));
        expect(cols).toEqual(Array(n).fill(3));
      }),
      { numRuns: 60 },
    );
  });

  it('W∞ by max-flow equals the brute-force bottleneck assignment', () => {
    fc.assert(
      fc.property(pointsArb(5, 2), pointsArb(5, 2), (xs, ys) => {
        const P = pointLaw(xs, { counts: [1, 1, 1, 1, 1] });
        const Q = pointLaw(ys, { counts: [1, 1, 1, 1, 1] });
        const norm = { kind: 'l2' as const, weights: [1, 1] };
        const d = (i: number, j: number) => Math.hypot(xs[i][0] - ys[j][0], xs[i][1] - ys[j][1]);
        // Duplicated atoms are merged by the law; brute force on the raw atoms gives the same W∞.
        const brute = Math.min(...permutations(5).map((p) => Math.max(...p.map((j, i) => d(i, j)))));
        expect(wInfPoints(P, Q, norm)).toBeCloseTo(brute, 12);
        expect(bottleneck([2, 1], [1, 2], (i, j) => Math.abs([0, 10][i] - [1, 4][j]))).toBe(6);
      }),
      { numRuns: 40 },
    );
  });

  it('W∞ of laws with unequal masses: the distance matrix gives the threshold the pair function gives, and wInfPoints is that threshold', () => {
    fc.assert(
      fc.property(pointsArb(7, 2), pointsArb(5, 2), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 12, maxLength: 12 }), (xs, ys, m) => {
        const P = pointLaw(xs, { counts: m.slice(0, 7) });
        const Q = pointLaw(ys, { counts: m.slice(7) });
        for (const norm of [
          { kind: 'l1' as const, weights: [1, 2.5] },
          { kind: 'l2' as const, weights: [3, 1] },
        ]) {
          const K = P.masses.length,
            L = Q.masses.length;
          // Masses over one denominator: nᵢ/D_P and mⱼ/D_Q as nᵢ·D_Q and mⱼ·D_P.
          const a = P.numerators.map((x) => Number(x * Q.denominator));
          const b = Q.numerators.map((x) => Number(x * P.denominator));
          const byPair = bottleneck(a, b, (i, j) => distance(P, Q, i, j, norm));
          const matrix = distances(P, Q, norm);
          expect(matrix.length).toBe(K * L);
          expect(bottleneck(a, b, matrix)).toBe(byPair);
          expect(wInfPoints(P, Q, norm)).toBe(byPair);
          expect(wInfPoints(P, Q, norm)).toBe(byPair); // the second call reads the first's answer
        }
      }),
      { numRuns: 40 },
    );
  });

  it('the base coupling is the optimal plan for the norm (its square for ℓ₂), solved once per pair of laws and norm', () => {
    const P = pointLaw(
      [
        [0, 0],
        [1, 3],
        [4, 1],
      ],
      { counts: [2, 1, 3] },
    );
    const Q = pointLaw(
      [
        [1, 1],
        [3, 0],
      ],
      { counts: [4, 1] },
    );
    for (const norm of [
      { kind: 'l1' as const, weights: [1, 2] },
      { kind: 'l2' as const, weights: [1, 2] },
    ]) {
      const c = baseCoupling(P, Q, norm);
      const d = distances(P, Q, norm);
      const direct = optimalCoupling(P, Q, norm.kind === 'l1' ? d : d.map((x) => x ** 2));
      expect([c.p, c.q, c.mass]).toEqual([direct.p, direct.q, direct.mass]);
      expect(baseCoupling(P, Q, norm)).toBe(c);
      expect(baseCoupling(P, Q, { ...norm, weights: [2, 1] })).not.toBe(c);
    }
  });

  it('the OT coupling has exact marginals and is never worse than the lexicographic comonotone coupling', () => {
    fc.assert(
      fc.property(pointsArb(7, 2), pointsArb(5, 2), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 12, maxLength: 12 }), (xs, ys, w) => {
        const P = pointLaw(xs, { weights: w.slice(0, 7).map((x) => x / 10) });
        const Q = pointLaw(ys, { counts: w.slice(7) });
        const norm = { kind: 'l1' as const, weights: [1, 2] };
        const cost = (i: number, j: number) => distance(P, Q, i, j, norm) ** 2;
        const ot = optimalCoupling(P, Q, cost);
        const lex = lexicographicCoupling(P, Q);
        expect(couplingCost(ot, cost)).toBeLessThanOrEqual(couplingCost(lex, cost) * (1 + 1e-12) + 1e-12);
        const rows = new Float64Array(P.masses.length),
          cols = new Float64Array(Q.masses.length);
        ot.mass.forEach((m, k) => {
          rows[ot.p[k]] += m;
          cols[ot.q[k]] += m;
        });
        expect(Array.from(rows, (r, i) => r - P.masses[i]).every((e) => Math.abs(e) < 1e-14)).toBe(true);
        expect(Array.from(cols, (c, j) => c - Q.masses[j]).every((e) => Math.abs(e) < 1e-14)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

describe('transport costs as a matrix, and separable costs from per-coordinate tables', () => {
  it('separableCosts are the same doubles as the pair-by-pair sum, in coordinate order', () => {
    const coordArb = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ min: -5, max: 5, noNaN: true }));
    const lawArb = fc.array(fc.array(coordArb, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(lawArb, lawArb, fc.subarray([0, 1, 2], { minLength: 1 }), (ps, qs, coords) => {
        const P = pointLaw(ps, { counts: ps.map(() => 1) }),
          Q = pointLaw(qs, { counts: qs.map(() => 1) });
        const f = (c: number, d: number) => Math.log1p(d * (c + 1)) + d * d;
        const got = separableCosts(P, Q, coords, f);
        const K = P.masses.length,
          L = Q.masses.length;
        expect(got.length).toBe(K * L);
        for (let i = 0; i < K; i++)
          for (let j = 0; j < L; j++) {
            let e = 0;
            for (const c of coords) e += f(c, Math.abs(P.points[i * 3 + c] - Q.points[j * 3 + c]));
            expect(Object.is(got[i * L + j], e)).toBe(true);
          }
      }),
      { numRuns: 200 },
    );
  });

  it('difference combinations: each pair reads the same double separableCosts gives it; too many combinations is null', () => {
    const lawArb = fc.array(fc.array(fc.integer({ min: -6, max: 6 }), { minLength: 2, maxLength: 2 }), { minLength: 1, maxLength: 15 });
    fc.assert(
      fc.property(lawArb, lawArb, fc.subarray([0, 1], { minLength: 1 }), (ps, qs, coords) => {
        const P = pointLaw(ps, { counts: ps.map(() => 1) }),
          Q = pointLaw(qs, { counts: qs.map(() => 1) });
        const f = (c: number, d: number) => Math.expm1(d / (c + 2)) + 0.1 * d;
        const pd = pairDiffs(P, Q, Infinity);
        expect(pd).not.toBeNull();
        const byCombo = comboCosts(pd!, coords, f);
        const byPair = separableCosts(P, Q, coords, f);
        expect(pd!.arc.length).toBe(byPair.length);
        expect(Array.from(byPair, (x, k) => Object.is(byCombo[pd!.arc[k]], x)).every(Boolean)).toBe(true);
        expect(pairDiffs(P, Q, pd!.combos - 1)).toBeNull();
      }),
      { numRuns: 200 },
    );
    // Real-valued coordinates with many distinct values on both sides: not looked for.
    const many = Array.from({ length: 300 }, (_, k) => [k / 7, 1]);
    const M = pointLaw(many, { counts: many.map(() => 1) });
    expect(pairDiffs(M, M, Infinity)).toBeNull();
  });

  it('a cost matrix gives the plan of the same costs as a function, and is not written', () => {
    const P = pointLaw(
        [
          [0, 0],
          [1, 3],
          [2, 1],
          [4, 4],
        ],
        { counts: [3, 1, 2, 2] },
      ),
      Q = pointLaw(
        [
          [0, 1],
          [3, 3],
          [1, 1],
        ],
        { counts: [2, 3, 3] },
      );
    const fn = (i: number, j: number) => distance(P, Q, i, j, { kind: 'l2', weights: [1, 2] }) ** 2;
    const m = Float64Array.from({ length: 12 }, (_, k) => fn(Math.floor(k / 3), k % 3));
    const copy = Float64Array.from(m);
    const [a, b] = [optimalCoupling(P, Q, fn), optimalCoupling(P, Q, m)];
    expect([Array.from(b.p), Array.from(b.q), Array.from(b.mass)]).toEqual([Array.from(a.p), Array.from(a.q), Array.from(a.mass)]);
    expect(m).toEqual(copy);
    expect(() => transportPlan([1, 1], [2], new Float64Array(3))).toThrow(/3 costs for 2·1 arcs/);
  });
});

describe('laws whose masses have no common denominator below 2⁵³: the rounded solve, its tree made exact', () => {
  it('treeFlows recomputes a solved tree’s flows exactly: on the masses it was solved for, the plan’s own', () => {
    const masses = fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(masses, masses, fc.integer({ min: 0, max: 1000 }), (a0, b0, seed) => {
        // Equal totals: the difference goes to the last sink (kept positive by padding a source).
        const [a, b] = [[...a0], [...b0]];
        const d = a.reduce((s, x) => s + x, 0) - b.reduce((s, x) => s + x, 0);
        if (d >= 0) b.push(d + 1);
        else a.push(-d);
        if (d >= 0) a[0] += 1;
        let s = seed;
        const cost = () => {
          s = (s * 1103515245 + 12345) % 2 ** 31;
          return s / 2 ** 31;
        };
        const c = Array.from({ length: a.length }, () => Array.from({ length: b.length }, cost));
        const plan = transportPlan(a, b, (i, j) => c[i][j]);
        const exact = treeFlows(plan.basis, a.length, b.length, [...a.map(BigInt), ...b.map((x) => -BigInt(x)), 0n]);
        expect(exact).not.toBeNull();
        const byArc = (i: Int32Array, j: Int32Array, f: readonly (number | bigint)[]) => new Map(Array.from(i, (x, k) => [`${x},${j[k]}`, Number(f[k])]));
        expect(byArc(exact!.i, exact!.j, exact!.flow)).toEqual(byArc(plan.i, plan.j, Array.from(plan.flow)));
      }),
      { numRuns: 100, seed: 3 },
    );
  });

  it('treeFlows refuses a tree whose flows for the new masses would fall below 0', () => {
    // Optimal for a = (2, 1), b = (1, 2): 0→0, 0→1, 1→1; for a = (1, 2), b = (2, 1) that tree would send −1 on 0→1.
    const c = [
      [0, 1],
      [5, 0],
    ];
    const plan = transportPlan([2, 1], [1, 2], (i, j) => c[i][j]);
    expect(treeFlows(plan.basis, 2, 2, [2n, 1n, -1n, -2n, 0n])).not.toBeNull();
    expect(treeFlows(plan.basis, 2, 2, [1n, 2n, -2n, -1n, 0n])).toBeNull();
  });

  it('treeFlows refuses what is not a spanning tree with balanced supplies (else its flows would miss a marginal)', () => {
    // Too few arcs (a forest), and balances that do not sum to 0.
    expect(treeFlows({ treeArcs: Int32Array.of(0, 3, 5), flow: new Float64Array(3) }, 2, 2, [3n, 2n, -1n, -4n, 0n])).toBeNull();
    expect(treeFlows({ treeArcs: Int32Array.of(0, 1, 3, 4), flow: new Float64Array(4) }, 2, 2, [3n, 2n, -1n, -3n, 0n])).toBeNull();
  });

  it('optimalCoupling of laws with floating-point masses: exact marginals (to one rounding per mass), never costlier than the lexicographic coupling', () => {
    const law = fc
      .array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 }), fc.double({ min: 0.01, max: 1, noNaN: true })), {
        minLength: 2,
        maxLength: 7,
      })
      .map((xs) =>
        pointLaw(
          xs.map(([x, y]) => [x, y]),
          { weights: xs.map((t) => t[2]) },
        ),
      );
    let solved = 0;
    fc.assert(
      fc.property(law, law, (P, Q) => {
        const cost = distances(P, Q, { kind: 'l1', weights: [1, 1] });
        const c = optimalCoupling(P, Q, cost);
        if (!c.how.startsWith('optimal transport (network simplex on the masses rounded')) return;
        solved++;
        const [rows, cols] = [new Float64Array(P.masses.length), new Float64Array(Q.masses.length)];
        c.mass.forEach((m, k) => {
          expect(m).toBeGreaterThan(0);
          rows[c.p[k]] += m;
          cols[c.q[k]] += m;
        });
        for (const [i, r] of rows.entries()) expect(Math.abs(r - P.masses[i])).toBeLessThanOrEqual(16 * Number.EPSILON * P.masses[i]);
        for (const [j, r] of cols.entries()) expect(Math.abs(r - Q.masses[j])).toBeLessThanOrEqual(16 * Number.EPSILON * Q.masses[j]);
        const at = (i: number, j: number) => cost[i * Q.masses.length + j];
        expect(couplingCost(c, at)).toBeLessThanOrEqual(couplingCost(lexicographicCoupling(P, Q), at) * (1 + 1e-12) + 1e-15);
      }),
      { numRuns: 100, seed: 4 },
    );
    expect(solved).toBeGreaterThan(50);
  });
});
