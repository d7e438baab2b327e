import { noiseOf } from '../src/mechanisms/kernels.js';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calibrate } from '../src/calibrate/calibrate.js';
import { audit, auditEmpirical } from '../src/audit/audit.js';
import { fromCounts, fromWeights } from '../src/distribution/discrete.js';
import type { InputError } from '../src/errors.js';
import { laplaceRdp } from '../src/conditions/pierquin.js';
import { calibrateEpsDelta, renyiBudgetFor } from '../src/calibrate/epsDelta.js';
import { accountPointsOnPool, pairAccount, robustnessPoints, type DirectionTask } from '../src/account/points.js';
import { account, nextReleaseScale } from '../src/account/account.js';
import { budgetLevel } from '../src/account/budget.js';
import { coupledBound, pairExponent } from '../src/calibrate/points.js';
import { conditionalCoupling } from '../src/coupling/knothe.js';
import { release } from '../src/release/release.js';
import { miBoundsPoints } from '../src/mi/points.js';
import { calibrateMI } from '../src/mi/calibrate.js';
import { atomsOf, pointLaw, type PointLaw, type PointScenario } from '../src/distribution/points.js';
import { twoReleaseRenyiAt, vectorRenyi2d } from './quadrature2d.js';
import { UCI_DIR } from './uci.js';
import { runInProcess as inProcess } from './inProcess.js';

const scenario = (P: PointLaw, Q: PointLaw): PointScenario => ({ name: 'v', priors: [{ name: 'p', conditionals: { a: P, b: Q } }] });
const P = pointLaw(
  [
    [12, 40],
    [13, 45],
    [9, 40],
  ],
  { counts: [5, 3, 2] },
);
const Q = pointLaw(
  [
    [12, 38],
    [14, 45],
    [9, 50],
  ],
  { counts: [2, 3, 5] },
);

/** The field and reason of the InputError `f` throws, or 'no error'. */
const err = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return `${(e as InputError).path}: ${(e as InputError).reason}`;
  }
  return 'no error';
};

/** Random 2-D laws on a small integer grid (coordinates 0…max, up to `atoms` atoms, counts 1–5). */
const smallLaw = (max: number, atoms: number) =>
  fc.array(fc.tuple(fc.integer({ min: 0, max }), fc.integer({ min: 0, max }), fc.integer({ min: 1, max: 5 })), { minLength: 1, maxLength: atoms }).map((xs) =>
    pointLaw(
      xs.map(([a, b]) => [a, b]),
      { counts: xs.map((x) => x[2]) },
    ),
  );

describe('vector queries (docs/math.md §12)', () => {
  it('the 2-D oracle matches closed forms for point masses (Gaussian αΔ²/2σ², Laplace Σ R_α)', () => {
    const a = pointLaw([[0, 0]], { counts: [1] }),
      b = pointLaw([[1, 2]], { counts: [1] });
    expect(vectorRenyi2d(a, b, noiseOf('gaussian', 1), noiseOf('gaussian', 2), 3)).toBeCloseTo((3 * (1 + 1)) / 2, 8);
    expect(vectorRenyi2d(a, b, noiseOf('laplace', 1), noiseOf('laplace', 1), 2)).toBeCloseTo(laplaceRdp(2, 1) + laplaceRdp(2, 2), 8);
  });

  it('d = 1 is the scalar calibration, number for number', () => {
    const a = pointLaw([[1], [2], [4]], { counts: [3, 2, 5] });
    const b = pointLaw([[2], [3]], { counts: [1, 1] });
    for (const mechanism of ['laplace', 'gaussian'] as const)
      for (const method of ['theorem', 'coupled', 'exact', 'best'] as const) {
        const v = calibrate(scenario(a, b), { mechanism, method, alpha: 2, epsilon: 0.5 });
        const s = calibrate(
          { name: 'v', priors: [{ name: 'p', conditionals: { a: fromCounts([1, 2, 4], [3, 2, 5]), b: fromCounts([2, 3], [1, 1]) } }] },
          { mechanism, method, alpha: 2, epsilon: 0.5 },
        );
        expect(v.scale).toBe(s.scale);
      }
  });

  it('every 2-D scale is certified against an independent 2-D quadrature (never under), both directions', () => {
    for (const [mechanism, family] of [
      ['laplace', 'laplace'],
      ['gaussian', 'gaussian'],
    ] as const)
      for (const method of ['theorem', 'pierquin', 'coupled'] as const)
        for (const w of [
          [1, 1],
          [1, 3],
        ]) {
          const r = calibrate(scenario(P, Q), { mechanism, method, alpha: 2, epsilon: 1, coordinateScales: w });
          const k1 = noiseOf(family, w[0] * r.scale),
            k2 = noiseOf(family, w[1] * r.scale);
          expect(vectorRenyi2d(P, Q, k1, k2, 2)).toBeLessThanOrEqual(1 + 1e-7);
          expect(vectorRenyi2d(Q, P, k1, k2, 2)).toBeLessThanOrEqual(1 + 1e-7);
        }
  });

  it('random small 2-D laws: coupled ≤ theorem, and the coupled scale holds by quadrature', () => {
    const law = smallLaw(6, 4);
    fc.assert(
      fc.property(law, law, fc.constantFrom('laplace', 'gaussian'), (a, b, mechanism) => {
        const s = scenario(a, b);
        const coupled = calibrate(s, { mechanism, method: 'coupled', alpha: 3, epsilon: 0.5 });
        const theorem = calibrate(s, { mechanism, method: 'theorem', alpha: 3, epsilon: 0.5 });
        expect(coupled.scale).toBeLessThanOrEqual(theorem.scale * (1 + 1e-9));
        if (coupled.scale > 0) {
          const k = noiseOf(mechanism, coupled.scale);
          expect(vectorRenyi2d(a, b, k, k, 3)).toBeLessThanOrEqual(0.5 * (1 + 1e-7));
          expect(vectorRenyi2d(b, a, k, k, 3)).toBeLessThanOrEqual(0.5 * (1 + 1e-7));
        }
      }),
      { numRuns: 15, seed: 7 },
    );
  });

  it('the account of a calibrated vector release fits its ε, whole or coordinate by coordinate (what a ledger checks)', () => {
    const law = (d: number) =>
      fc
        .array(fc.tuple(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: d, maxLength: d }), fc.integer({ min: 1, max: 6 })), {
          minLength: 1,
          maxLength: 6,
        })
        .map((xs) =>
          pointLaw(
            xs.map((x) => x[0]),
            { counts: xs.map((x) => x[1]) },
          ),
        );
    const cases = fc
      .integer({ min: 2, max: 3 })
      .chain((d) =>
        fc.tuple(
          law(d),
          law(d),
          fc.constantFrom('laplace', 'gaussian'),
          fc.constantFrom(1.5, 2, 5, Infinity),
          fc.constantFrom('best', 'coupled', 'theorem'),
          fc.constantFrom(0.3, 1, 2),
        ),
      );
    fc.assert(
      fc.property(cases, ([a, b, mechanism, alpha, method, epsilon]) => {
        if (mechanism === 'gaussian' && alpha === Infinity) return;
        const s = scenario(a, b);
        const r = calibrate(s, { mechanism, method, alpha, epsilon });
        if (!(r.scale > 0)) return;
        const whole = account(s, [{ mechanism, scale: r.scale }], { alphas: [alpha] });
        expect(whole.rows[0].divergence).toBeLessThanOrEqual(epsilon);
        const byCoordinate = a.d === 2 ? [[1], [0]] : [[2], [0, 1]];
        const parts = account(
          s,
          byCoordinate.map((coordinates) => ({ mechanism, scale: r.scale, coordinates })),
          { alphas: [alpha] },
        );
        expect(parts.rows[0].divergence).toBe(whole.rows[0].divergence);
      }),
      { numRuns: 120, seed: 11 },
    );
  });

  it('N Gaussian releases of a vector: the single-release scale times √N; Laplace N releases need more than one', () => {
    const one = calibrate(scenario(P, Q), { mechanism: 'gaussian', method: 'coupled', alpha: 2, epsilon: 1 }).scale;
    const four = calibrate(scenario(P, Q), { mechanism: 'gaussian', method: 'coupled', alpha: 2, epsilon: 1, releases: 4 }).scale;
    expect(four / (2 * one) - 1).toBeLessThan(1e-8);
    expect(four).toBeGreaterThanOrEqual(2 * one * (1 - 1e-12));
    const l1 = calibrate(scenario(P, Q), { mechanism: 'laplace', method: 'coupled', alpha: 2, epsilon: 1 }).scale;
    const l3 = calibrate(scenario(P, Q), { mechanism: 'laplace', method: 'coupled', alpha: 2, epsilon: 1, releases: 3 });
    expect(l3.scale).toBeGreaterThan(l1);
    expect(l3.releases).toBe(3);
  });

  it('(ε, δ) targets through the best Rényi order, certified at that order by the 2-D quadrature', () => {
    const r = calibrateEpsDelta(scenario(P, Q), { mechanism: 'gaussian', method: 'coupled', epsilon: 2, delta: 1e-6, alphas: [2, 4, 8] });
    expect([2, 4, 8]).toContain(r.alpha);
    const k = noiseOf('gaussian' as const, r.scale);
    expect(vectorRenyi2d(P, Q, k, k, r.alpha)).toBeLessThanOrEqual(r.renyiEpsilon * (1 + 1e-7));
    for (const a of [2, 4, 8].filter((x) => renyiBudgetFor(2, 1e-6, x) > 0))
      expect(r.scale).toBeLessThanOrEqual(
        calibrate(scenario(P, Q), { mechanism: 'gaussian', method: 'coupled', alpha: a, epsilon: renyiBudgetFor(2, 1e-6, a) }).scale,
      );
  });

  it('a vector release with an (ε, δ) target draws at the (ε, δ) calibration, its progress reported as a column’s is', () => {
    let last = [0, 0];
    const r = release(scenario(P, Q), { mechanism: 'gaussian', method: 'coupled', alpha: 2, epsilon: 2, coordinateScales: [1, 2] }, [1, 1], {
      delta: 1e-6,
      alphas: [2, 4, 8],
      onProgress: (done, total) => {
        last = [done, total];
      },
    });
    const c = calibrateEpsDelta(scenario(P, Q), {
      mechanism: 'gaussian',
      method: 'coupled',
      coordinateScales: [1, 2],
      epsilon: 2,
      delta: 1e-6,
      alphas: [2, 4, 8],
    });
    expect(r.scale).toBe(c.scale);
    expect(last[1]).toBeGreaterThan(0);
    expect(last[0]).toBe(last[1]);
  });

  it('audit: the certified bound passes the calibrated scale, fails below it, and is never below the true D_α (2-D quadrature); Laplace on ℝ² is exact', () => {
    // Laplace noise on two coordinates has the exact accountant on ℝ² (docs/math.md §12); Gaussian the coupled bound.
    const methods = { laplace: 'exact', gaussian: 'coupled' } as const;
    for (const mechanism of ['laplace', 'gaussian'] as const) {
      const method = methods[mechanism];
      const at = (scale: number, alphas = [2]) => audit(scenario(P, Q), { mechanism, scale, alphas, epsilon: 1, delta: 1e-6 });
      for (const alpha of [5, 2]) {
        const c = calibrate(scenario(P, Q), { mechanism, method, alpha, epsilon: 1 }).scale;
        for (const r of at(c * (1 + 1e-9), [alpha])) expect(r.slack, `${mechanism} α=${alpha}`).toBeGreaterThanOrEqual(0);
      }
      const cal = calibrate(scenario(P, Q), { mechanism, method, alpha: 2, epsilon: 1 }).scale;
      expect(at(cal * 0.9).some((r) => r.slack < 0)).toBe(true);
      for (const f of [0.5, 1, 3]) {
        const k = noiseOf(mechanism, cal * f);
        const [ab, ba] = at(cal * f, [2, 5]).filter((r) => r.alpha === 5);
        const truth = [vectorRenyi2d(P, Q, k, k, 5), vectorRenyi2d(Q, P, k, k, 5)];
        expect(ab.divergence + ab.error, `${mechanism} ×${f}`).toBeGreaterThanOrEqual(truth[0] * (1 - 1e-7));
        expect(ba.divergence + ba.error, `${mechanism} ×${f}`).toBeGreaterThanOrEqual(truth[1] * (1 - 1e-7));
        if (mechanism === 'laplace') {
          // Exact: the audited value is the quadrature's, to the oracle's accuracy.
          expect(ab.divergence / truth[0], `×${f}`).toBeCloseTo(1, 7);
          expect(ba.divergence / truth[1], `×${f}`).toBeCloseTo(1, 7);
          expect(ab.certificate).toBe('bernstein-ellipse');
        }
      }
    }
    // Laplace α = ∞: the W∞ coupling's largest ℓ₁ displacement over b, never below the true sup log-ratio.
    const inf = audit(scenario(P, Q), { mechanism: 'laplace', scale: 2, alphas: [Infinity], epsilon: 1, delta: 1e-6 });
    expect(inf[0].certificate).toBe('coupled-bound');
    expect(inf[0].divergence).toBeGreaterThan(0);
    expect(() => audit(scenario(P, Q), { mechanism: 'laplace', scale: 1, alphas: [0.5], epsilon: 1, delta: 1e-6 })).toThrow(/α > 1/);
  });

  it("a pair's two directions share its coupled bound (|Δ| alone sets the noise's divergence); the data's own D_α stays per direction", () => {
    const releases = [
      { mechanism: 'laplace' as const, scale: 0.7 },
      { mechanism: 'laplace' as const, scale: 1.1 },
    ];
    const [ab, ba] = pairAccount(P, Q, releases, [1, 1], [2, 5], false);
    const alone = pairAccount(Q, P, releases, [1, 1], [2, 5], true)[0];
    for (let k = 0; k < 2; k++) {
      expect(ab[k].how).toBe('coupled');
      // The reverse reads the forward's coupling: the same bound, bit for bit.
      expect(ba[k].value).toBe(ab[k].value);
      // Solved on its own, the reverse direction reaches the same optimum to the transport's tolerance.
      expect(Math.abs(alone[k].value / ba[k].value - 1)).toBeLessThan(1e-6);
    }
    // At a scale where the data's own D_α binds in one direction only, the directions differ.
    const big = [{ mechanism: 'laplace' as const, scale: 1e-3 }];
    const P2 = pointLaw(
      [
        [12, 40],
        [13, 45],
        [9, 40],
      ],
      { counts: [1, 3, 6] },
    );
    const [f, r] = pairAccount(P, P2, big, [1, 1], [2], false);
    expect([f[0].how, r[0].how]).toEqual(['data-processing', 'data-processing']);
    expect(f[0].value).not.toBe(r[0].value);
  });

  it('account on a pool: one task per pair gives the rows of one thread, ordered or not', async () => {
    const conds = {
      a: pointLaw(
        [
          [0, 0],
          [1, 2],
          [3, 1],
        ],
        { counts: [1, 2, 3] },
      ),
      b: pointLaw(
        [
          [1, 1],
          [2, 2],
        ],
        { counts: [2, 1] },
      ),
      c: pointLaw(
        [
          [0, 9],
          [2, 0],
          [1, 1],
        ],
        { counts: [1, 1, 4] },
      ),
    };
    const releases = [{ mechanism: 'laplace' as const, scale: 1 }];
    const tasks: boolean[] = [];
    const arcs: number[] = [];
    const pool = {
      threads: 3,
      runTask: async (t: DirectionTask) => {
        tasks.push(t.ordered);
        arcs.push(atomsOf(t.P) * atomsOf(t.Q));
        // Later tasks finish first: the rows must still come back in the pairs' order.
        await new Promise((r) => setTimeout(r, 10 - 5 * tasks.length));
        return { vector: pairAccount(t.P, t.Q, t.releases, t.w, t.alphas, t.ordered) };
      },
    };
    // `ordered` as a plain-JS caller might pass it (truthy, not `true`) as well as the booleans.
    for (const ordered of [false, true, 1 as unknown as boolean]) {
      const sc: PointScenario = {
        name: 's',
        ordered,
        priors: [{ name: 'p', conditionals: conds }],
        pairs: [
          ['a', 'b'],
          ['a', 'c'],
        ],
      };
      tasks.length = 0;
      arcs.length = 0;
      const one = account(sc, releases, { alphas: [2, 5] });
      const many = await accountPointsOnPool(pool, sc, releases, { alphas: [2, 5] });
      expect(many.rows).toEqual(one.rows);
      // One task per pair whose transports the waves need, each whole (both directions or one).
      expect(tasks.length).toBeGreaterThan(0);
      expect(tasks.every((t) => t === !!ordered)).toBe(true);
      // A wave's pairs are queued largest first.
      expect(arcs).toEqual([...arcs].sort((x, y) => y - x));
    }
  });

  it('an account solves transports only for pairs that can bind: its rows are the largest transport bound over every pair, or below it, and the naive sums are the same', () => {
    const law = smallLaw(8, 6);
    fc.assert(
      fc.property(fc.array(law, { minLength: 3, maxLength: 5 }), fc.constantFrom('laplace', 'gaussian'), (laws, mechanism) => {
        const conditionals = Object.fromEntries(laws.map((l, i) => [`s${i}`, l]));
        const sc: PointScenario = { name: 's', priors: [{ name: 'p', conditionals }] };
        const releases = [
          { mechanism, scale: 2, coordinates: [0] },
          { mechanism, scale: 3, coordinates: [1] },
        ];
        const alphas = mechanism === 'laplace' ? [2, 5, Infinity] : [2, 5];
        const got = account(sc, releases, { alphas });
        // Every pair's transport account, as before the waves.
        const names = Object.keys(conditionals);
        const all = names.flatMap((a, i) => names.slice(i + 1).flatMap((b) => pairAccount(conditionals[a], conditionals[b], releases, [1, 1], alphas, false)));
        alphas.forEach((alpha, k) => {
          const top = Math.max(...all.map((d) => d[k].value));
          expect(got.rows[k].divergence).toBeLessThanOrEqual(top);
          expect(got.rows[k].naiveSum).toBe(Math.max(...all.map((d) => d[k].naive)));
          if (alpha === Infinity) expect(got.rows[k].divergence).toBe(top);
        });
      }),
      { numRuns: 40, seed: 5 },
    );
  });

  it('a search that only asks whether releases fit (budgetLevel fitsOnly) answers as the full account does, and a solved pair is never above its cheap bound', () => {
    const law = smallLaw(8, 6);
    let [fitting, refused, tighter] = [0, 0, 0];
    fc.assert(
      fc.property(
        fc.array(law, { minLength: 2, maxLength: 4 }),
        fc.constantFrom('laplace', 'gaussian'),
        fc.boolean(),
        fc.double({ min: 0.8, max: 1.25, noNaN: true }),
        fc.boolean(),
        fc.constantFrom(0, 1e-9, 1e-4),
        (laws, mechanism, coordinates, near, ordered, massError) => {
          const conditionals = Object.fromEntries(laws.map((l, i) => [`s${i}`, l]));
          const sc: PointScenario = { name: 's', priors: [{ name: 'p', conditionals }], ...(ordered ? { ordered } : {}), ...(massError ? { massError } : {}) };
          // Two releases of the whole vector, or (a source ledger's) one release per coordinate.
          const groups = coordinates
            ? [
                { mechanism, scale: 2, count: 1, coordinates: [0] },
                { mechanism, scale: 3, count: 1, coordinates: [1] },
              ]
            : [
                { mechanism, scale: 2, count: 1 },
                { mechanism, scale: 3, count: 1 },
              ];
          const alphas = mechanism === 'laplace' ? [2, 5, Infinity] : [1.5, 10];
          const full = budgetLevel(sc, groups, { alphas, epsilon: 1e9 });
          // A budget at the full level's neighbourhood, and at each order's level exactly, where the answers could part by a bit.
          for (const epsilon of [full.level * near, ...full.accounting.rows.map((r) => r.divergence)]) {
            if (!(epsilon > 0) || !Number.isFinite(epsilon)) continue;
            const b = { alphas, epsilon };
            const want = budgetLevel(sc, groups, b).fits;
            expect(budgetLevel(sc, groups, b, true).fits).toBe(want);
            if (want) fitting++;
            else refused++;
          }
          // Per pair, the account is never above the Knothe–Rosenblatt couplings' bound (the cheap one).
          if (!coordinates) {
            const names = Object.keys(conditionals);
            const releases = groups.map(({ count: _c, ...r }) => r);
            for (const [i, a] of names.entries())
              for (const bName of names.slice(i + 1)) {
                const [P, Q] = [conditionals[a], conditionals[bName]];
                const pair: PointScenario = { name: 'p', priors: [{ name: 'p', conditionals: { [a]: P, [bName]: Q } }] };
                const got = account(pair, releases, { alphas });
                alphas.forEach((alpha, k) => {
                  if (alpha === Infinity) return;
                  const knothe = (X: PointLaw, Y: PointLaw) =>
                    Math.min(
                      ...[
                        [0, 1],
                        [1, 0],
                      ].map((order) => {
                        const c = coupledBound(conditionalCoupling(X, Y, order)!, (p, q) => pairExponent(X, Y, p, q, releases, [1, 1], alpha), alpha);
                        return c.value + c.error;
                      }),
                    );
                  const transport = Math.max(...pairAccount(P, Q, releases, [1, 1], [alpha], false).map((d) => d[0].value));
                  if (Math.max(knothe(P, Q), knothe(Q, P)) < transport) tighter++;
                  expect(got.rows[k].divergence).toBeLessThanOrEqual(Math.max(knothe(P, Q), knothe(Q, P)));
                });
              }
          }
        },
      ),
      { numRuns: 60, seed: 9 },
    );
    // Both answers were met.
    expect(fitting).toBeGreaterThan(10);
    expect(refused).toBeGreaterThan(10);
    // Some pair's Knothe–Rosenblatt bound was below its transport's: the account read the smaller.
    expect(tighter).toBeGreaterThan(0);
  });

  it('the next release where only a Knothe–Rosenblatt coupling keeps the past within ε (the transport fell back to the lexicographic one): a scale, checked by the joint account', () => {
    // Float weights with masses near 10⁻¹⁴: the rounded transport leaves a flow below 0 and the lexicographic coupling stands.
    const P = pointLaw(
      [
        [3, 0],
        [2, 2],
        [1, 1],
        [1, 0],
        [1, 3],
        [2, 0],
        [1, 3],
        [0, 2],
        [1, 0],
      ],
      {
        weights: [
          2.85584029275924e-14, 6.979894340038299e-14, 6.351348161697388e-14, 2.4966061115264893e-14, 0.9648104906082153, 0.249395489692688, 0.7348242998123169,
          3.752595484256745e-14, 0.6942911148071289,
        ],
      },
    );
    const Q = pointLaw(
      [
        [0, 2],
        [1, 3],
        [0, 3],
        [0, 2],
        [3, 0],
        [0, 3],
        [2, 1],
      ],
      {
        weights: [
          0.5089194774627686, 0.03666186332702637, 3.027498126029968e-14, 0.6606671810150146, 3.466356098651886e-14, 0.6717487573623657, 0.624642014503479,
        ],
      },
    );
    const sc: PointScenario = { name: 'f', priors: [{ name: 'p', conditionals: { s0: P, s1: Q } }] };
    const past = [{ mechanism: 'laplace' as const, scale: 1 }];
    const next = nextReleaseScale(sc, past, { mechanism: 'laplace' }, { alpha: 2, epsilon: 1.5 });
    expect(next.scale).toBeGreaterThan(0);
    const joint = account(sc, [...past, { mechanism: 'laplace', scale: next.scale }], { alphas: [2] });
    expect(joint.rows[0].divergence).toBeLessThanOrEqual(1.5);
  });

  it('a scale so small that every coupled pair costs ∞ (a search down to 10⁻³⁰⁰ where the data itself fits): the account reads the data’s own D_α, no NaN cost', () => {
    const sc: PointScenario = {
      name: 's',
      ordered: true,
      priors: [
        {
          name: 'p',
          conditionals: {
            s0: pointLaw([[1, 5]], { counts: [1] }),
            s1: pointLaw(
              [
                [4, 3],
                [1, 5],
              ],
              { counts: [2, 2] },
            ),
          },
        },
      ],
    };
    const groups = [
      { mechanism: 'laplace' as const, scale: 8, count: 1 },
      { mechanism: 'gaussian' as const, scale: 7e-301, count: 1 },
    ];
    const l = budgetLevel(sc, groups, { alphas: [2], epsilon: 1 });
    expect(l.level).toBeCloseTo(Math.log(2), 12);
    expect(l.accounting.rows[0].method).toBe('data-processing');
  });

  it('account: two Gaussian releases are one at σ_eff = (σ₁⁻² + σ₂⁻²)^{−1/2}, bounded above the 2-D quadrature', () => {
    const [s1, s2] = [1.5, 2.5];
    const eff = 1 / Math.sqrt(1 / s1 ** 2 + 1 / s2 ** 2);
    const joint = account(
      scenario(P, Q),
      [
        { mechanism: 'gaussian', scale: s1 },
        { mechanism: 'gaussian', scale: s2 },
      ],
      { alphas: [2, 5], delta: 1e-6 },
    );
    for (const r of joint.rows) {
      const one = audit(scenario(P, Q), { mechanism: 'gaussian', scale: eff, alphas: [r.alpha], epsilon: 1, delta: 1e-6 });
      const worst = Math.max(...one.map((x) => x.divergence + x.error));
      expect(Math.abs(r.divergence / worst - 1), `α=${r.alpha}`).toBeLessThan(1e-9);
      const k = noiseOf('gaussian' as const, eff);
      expect(r.divergence).toBeGreaterThanOrEqual(Math.max(vectorRenyi2d(P, Q, k, k, r.alpha), vectorRenyi2d(Q, P, k, k, r.alpha)) * (1 - 1e-7));
      expect(r.understated).toBeNull();
    }
    expect(joint.epsilonDelta?.delta).toBe(1e-6);
    // Laplace releases: the joint bound at α = ∞ is the W∞ move times Σ 1/b; a Gaussian one has none.
    const lap = account(
      scenario(P, Q),
      [
        { mechanism: 'laplace', scale: 2 },
        { mechanism: 'laplace', scale: 2 },
      ],
      { alphas: [Infinity] },
    ).rows[0];
    const single = audit(scenario(P, Q), { mechanism: 'laplace', scale: 1, alphas: [Infinity], epsilon: 1, delta: 1e-6 });
    expect(lap.divergence).toBeCloseTo(Math.max(...single.map((x) => x.divergence + x.error)), 12);
  });

  it('account: mixed releases over many orders in one call (shared couplings and warm starts) stay above the joint quadrature', () => {
    // d = 1: the two releases of one vector are the 2-D release the scalar oracle integrates.
    const values = [[0], [1], [2.5], [4]];
    const p1 = pointLaw(values, { counts: [4, 3, 2, 1] }),
      q1 = pointLaw(values, { counts: [1, 2, 3, 4] });
    const d = (m: PointLaw) => fromCounts(Array.from(m.points), Array.from(m.numerators, Number));
    const releases = [
      { mechanism: 'laplace' as const, scale: 1.5 },
      { mechanism: 'laplace' as const, scale: 2.5 },
    ];
    const alphas = [1.5, 2, 3, 5, 10];
    const joint = account(scenario(p1, q1), releases, { alphas });
    const k1 = noiseOf('laplace' as const, 1.5),
      k2 = noiseOf('laplace' as const, 2.5);
    // The quadrature on three of the orders, both directions, in one pass over its grid.
    const checked = [1.5, 3, 10];
    const oracle = twoReleaseRenyiAt(d(p1), d(q1), k1, k2, checked);
    for (const r of joint.rows) {
      const k = checked.indexOf(r.alpha);
      if (k >= 0) expect(r.divergence, `α=${r.alpha}`).toBeGreaterThanOrEqual(Math.max(oracle.pq[k], oracle.qp[k]) * (1 - 1e-7));
      // Each order alone gives a bound as tight (to the transport's tolerance): nothing carried over loosens it.
      const alone = account(scenario(p1, q1), releases, { alphas: [r.alpha] }).rows[0];
      expect(Math.abs(r.divergence / alone.divergence - 1), `α=${r.alpha}`).toBeLessThan(1e-6);
    }
  });

  it('next release: no past is the calibration (Laplace: exact on ℝ²); after Gaussian σ₁ it is the σ₂ with σ₁⁻² + σ₂⁻² = σ⁻²; within ε by quadrature', () => {
    const sc = scenario(P, Q);
    for (const alpha of [2, 5]) {
      // Laplace with nothing released yet: the same exact condition on ℝ² as the exact calibration.
      const lap = nextReleaseScale(sc, [], { mechanism: 'laplace' }, { alpha, epsilon: 1 });
      const cal = calibrate(sc, { mechanism: 'laplace', method: 'exact', alpha, epsilon: 1 });
      expect(Math.abs(lap.scale / cal.scale - 1), `α=${alpha}`).toBeLessThan(1e-6);
      expect(lap.binding).not.toBeNull();
      expect(lap.method).toBe('exact');
      // Gaussian: two releases are one at σ_eff, so the second's σ₂ completes the first's precision.
      const one = nextReleaseScale(sc, [], { mechanism: 'gaussian' }, { alpha, epsilon: 1 }).scale;
      const s1 = 2 * one;
      const s2 = nextReleaseScale(sc, [{ mechanism: 'gaussian', scale: s1 }], { mechanism: 'gaussian' }, { alpha, epsilon: 1 }).scale;
      expect(Math.abs(1 / s1 ** 2 + 1 / s2 ** 2 - 1 / one ** 2) * one ** 2, `α=${alpha}`).toBeLessThan(1e-6);
      const k = noiseOf('gaussian' as const, 1 / Math.sqrt(1 / s1 ** 2 + 1 / s2 ** 2));
      expect(Math.max(vectorRenyi2d(P, Q, k, k, alpha), vectorRenyi2d(Q, P, k, k, alpha))).toBeLessThanOrEqual(1);
    }
    // Mixed: after a Laplace release the Gaussian one keeps the joint account within ε, and 1% less noise would not.
    const past = [{ mechanism: 'laplace' as const, scale: 20 }];
    const g = nextReleaseScale(sc, past, { mechanism: 'gaussian' }, { alpha: 3, epsilon: 1 }).scale;
    const at = (s: number) => account(sc, [...past, { mechanism: 'gaussian', scale: s }], { alphas: [3] }).rows[0].divergence;
    expect(at(g)).toBeLessThanOrEqual(1 + 1e-9);
    expect(at(0.99 * g)).toBeGreaterThan(1);
    // No noise where the data itself is within ε (data processing), refusals by name.
    const same = pointLaw(
      [
        [12, 40],
        [13, 45],
        [9, 40],
      ],
      { counts: [3, 3, 4] },
    );
    const close = scenario(P, same);
    const dataLevel = Math.max(...audit(close, { mechanism: 'laplace', scale: 0, alphas: [2], epsilon: 1, delta: 1e-6 }).map((r) => r.divergence + r.error));
    expect(nextReleaseScale(close, [], { mechanism: 'laplace' }, { alpha: 2, epsilon: dataLevel * 1.001 })).toEqual({
      scale: 0,
      binding: null,
      method: 'data-processing',
    });
    expect(nextReleaseScale(close, [], { mechanism: 'laplace' }, { alpha: 2, epsilon: dataLevel * 0.999 }).scale).toBeGreaterThan(0);
    expect(err(() => nextReleaseScale(sc, [{ mechanism: 'laplace', scale: 0.01 }], { mechanism: 'laplace' }, { alpha: 2, epsilon: 0.5 }))).toMatch(
      /^epsilon: /,
    );
    expect(err(() => nextReleaseScale(sc, [], { mechanism: 'gaussian' }, { alpha: Infinity, epsilon: 1 }))).toMatch(/^alpha: /);
    // α = ∞ (Laplace): W∞·(Σ 1/b) ≤ ε, so 1/b_next = ε/W∞ − 1/b_past.
    const inf1 = nextReleaseScale(sc, [], { mechanism: 'laplace' }, { alpha: Infinity, epsilon: 1 }).scale;
    const inf2 = nextReleaseScale(sc, [{ mechanism: 'laplace', scale: 2 * inf1 }], { mechanism: 'laplace' }, { alpha: Infinity, epsilon: 1 }).scale;
    expect(inf2 / (2 * inf1)).toBeCloseTo(1, 8);
  });

  it("contamination: the box corners' adversaries stay within ε by quadrature; λ = 0 is the class; atoms outside the box refused", () => {
    const sc = scenario(P, Q);
    const box: [number, number][] = [
      [8, 15],
      [36, 52],
    ];
    const mix = (m: PointLaw, lam: number, corner: number[]) => {
      const points = Float64Array.from([...m.points, ...corner]);
      const masses = Float64Array.from([...Array.from(m.masses, (x) => (1 - lam) * x), lam]);
      return { points, masses };
    };
    const corners = [
      [box[0][0], box[1][0]],
      [box[0][1], box[1][1]],
      [box[0][0], box[1][1]],
      [box[0][1], box[1][0]],
    ];
    for (const mechanism of ['laplace', 'gaussian'] as const) {
      // Each family's tightest method on ℝ², as the robustness report reads it: Laplace exact, Gaussian coupled.
      const s = { mechanism, method: mechanism === 'laplace' ? ('exact' as const) : ('coupled' as const), alpha: 2, epsilon: 1 };
      const plain = calibrate(sc, s).scale;
      const robust = calibrate(sc, { ...s, contamination: { lambda: 0.05, domain: box[0], box } });
      expect(robust.scale).toBeGreaterThan(plain);
      expect(robust.explanation).toMatch(/moved anywhere in the box \[8, 15\] × \[36, 52\]/);
      expect(calibrate(sc, { ...s, contamination: { lambda: 0, domain: box[0], box } }).scale).toBe(plain);
      const k = noiseOf(mechanism, robust.scale);
      // The extreme adversaries move λ of each conditional's mass to opposite corners of the box.
      // (Opposite corners, both ways: the largest channel divergence between the moved masses.)
      let worst = 0;
      for (const [a, b] of [
        [corners[0], corners[1]],
        [corners[1], corners[0]],
        [corners[2], corners[3]],
        [corners[3], corners[2]],
      ])
        worst = Math.max(worst, vectorRenyi2d(mix(P, 0.05, a), mix(Q, 0.05, b), k, k, 2));
      expect(worst, mechanism).toBeLessThanOrEqual(1 + 1e-9);
      // A second coordinate that never varies and a box of width ~0 there: the scalar contaminated calibration.
      const flat = (m: PointLaw) => ({
        ...m,
        d: 2,
        points: Float64Array.from(
          Array.from(
            m.points.filter((_, i) => i % 2 === 0),
            (x) => [x, 40],
          ).flat(),
        ),
      });
      const one = (m: PointLaw) => fromCounts(Array.from(m.points.filter((_, i) => i % 2 === 0)), Array.from(m.numerators, Number));
      const thin = calibrate(scenario(flat(P), flat(Q)), {
        ...s,
        contamination: { lambda: 0.05, domain: box[0], box: [box[0], [40, 40 + 1e-12]] },
      }).scale;
      const scalar = calibrate(
        { name: 's', priors: [{ name: 'p', conditionals: { a: one(P), b: one(Q) } }] },
        { ...s, contamination: { lambda: 0.05, domain: box[0] } },
      ).scale;
      expect(Math.abs(thin / scalar - 1), mechanism).toBeLessThan(1e-6);
      // The robustness report at the robust scale finds the class within ε up to λ = 0.05 (its own
      // transport re-solve may land a hair apart), and at the class's own scale much less.
      const report = robustnessPoints(sc, { mechanism, scale: robust.scale * (1 + 1e-9), alpha: 2, epsilon: 1, box });
      expect(report.largestLambda, mechanism).toBeGreaterThan(0.05 * (1 - 1e-6));
      expect(report.largestLambda, mechanism).toBeLessThan(0.05 * (1 + 1e-3));
      expect(robustnessPoints(sc, { mechanism, scale: plain * (1 + 1e-9), alpha: 2, epsilon: 1, box }).largestLambda).toBeLessThan(0.01);
    }
    const s = { mechanism: 'laplace' as const, method: 'coupled' as const, alpha: 2, epsilon: 1 };
    expect(
      err(() =>
        calibrate(sc, {
          ...s,
          contamination: {
            lambda: 0.05,
            domain: [8, 15],
            box: [
              [8, 15],
              [36, 49],
            ],
          },
        }),
      ),
    ).toMatch(/^domain: coordinate 2 of a value of secret 'b' \(prior 'p'\) is 50, outside \[36, 49\]/);
    expect(err(() => calibrate(sc, { ...s, contamination: { lambda: 0.05, domain: [8, 15], box: [[8, 15]] } }))).toMatch(
      /^domain: needs one LO,HI range per coordinate \(2\), got 1/,
    );
  });

  it('MI for vectors: the per-coordinate bound holds by 2-D quadrature, is met with equality, and one coordinate is the scalar calibration', () => {
    const sc = scenario(P, Q);
    for (const mechanism of ['gaussian', 'laplace'] as const) {
      const r = calibrateMI(sc, { mechanism, method: 'best', epsilon: 0.05 });
      expect(r).toMatchObject({ guarantee: 'mi', winner: 'mi-variance', dimension: 2 });
      // The bound is the sum of the coordinates' scalar bounds, so it meets ε (to its rounding) at the scale.
      const one = (c: number) => {
        const m = pointLaw(Array.from({ length: 3 }, (_, k) => [P.points[2 * k + c]]).concat(Array.from({ length: 3 }, (_, k) => [Q.points[2 * k + c]])), {
          weights: [...Array.from(P.masses, (x) => x / 2), ...Array.from(Q.masses, (x) => x / 2)],
        });
        return fromWeights(Array.from(m.points), Array.from(m.masses));
      };
      const bound = [0, 1].reduce((a, c) => {
        const x = one(c);
        const mean = x.values.reduce((s, v, k) => s + v * x.masses[k], 0);
        const v = x.values.reduce((s, y, k) => s + x.masses[k] * (y - mean) ** 2, 0);
        const mad = x.values.reduce((s, y, k) => s + x.masses[k] * Math.abs(y - mean), 0);
        return a + (mechanism === 'gaussian' ? 0.5 * Math.log1p(v / r.scale ** 2) : Math.log1p(mad / r.scale));
      }, 0);
      expect(bound).toBeLessThanOrEqual(0.05 * (1 + 1e-12));
      expect(bound).toBeGreaterThan(0.05 * (1 - 1e-9));
      // The true I(Y; S) ≤ Σ π_s D_α(P_s,Y ‖ M_Y) for α > 1 (D_α grows with α; D_1 = KL), by 2-D quadrature.
      const M = { points: Float64Array.from([...P.points, ...Q.points]), masses: Float64Array.from([...P.masses, ...Q.masses], (x) => x / 2) };
      const k = noiseOf(mechanism, r.scale);
      const mi = 0.5 * vectorRenyi2d(P, M, k, k, 1.001) + 0.5 * vectorRenyi2d(Q, M, k, k, 1.001);
      expect(mi, mechanism).toBeLessThanOrEqual(0.05);
      // The audit's MI row at that scale: the same bound, ε (to its rounding), above the quadrature.
      const row = miBoundsPoints(sc, { mechanism, scale: r.scale })[0];
      expect(row.how).toBe('max-entropy');
      expect(Math.abs(row.atMost / 0.05 - 1)).toBeLessThan(1e-9);
      expect(row.atMost).toBeGreaterThanOrEqual(mi);
      // No noise: the data's own I(X; S) (the secrets' supports differ: log 2).
      expect(miBoundsPoints(sc, { mechanism, scale: 0 })[0]).toMatchObject({ how: 'data-processing' });
      expect(miBoundsPoints(sc, { mechanism, scale: 0 })[0].atMost).toBeCloseTo(Math.LN2, 12);
    }
    // One coordinate at weight 1: exactly the scalar calibration.
    const firsts = (m: PointLaw) =>
      pointLaw(
        Array.from({ length: atomsOf(m) }, (_, k) => [m.points[2 * k]]),
        { weights: Array.from(m.masses) },
      );
    const s1 = calibrateMI(scenario(firsts(P), firsts(Q)), { mechanism: 'laplace', method: 'mi-variance', epsilon: 0.05 }).scale;
    const scalar = calibrateMI(
      {
        name: 's',
        priors: [
          {
            name: 'p',
            conditionals: {
              a: fromWeights(Array.from(firsts(P).points), Array.from(firsts(P).masses)),
              b: fromWeights(Array.from(firsts(Q).points), Array.from(firsts(Q).masses)),
            },
          },
        ],
      },
      { mechanism: 'laplace', method: 'mi-variance', epsilon: 0.05 },
    ).scale;
    expect(s1).toBe(scalar);
    // Wider noise on a coordinate (wᵢ > 1) needs a smaller common scale; Laplace releases beyond one are refused by name.
    expect(calibrateMI(sc, { mechanism: 'gaussian', method: 'mi-variance', epsilon: 0.05, coordinateScales: [2, 2] }).scale).toBeCloseTo(
      calibrateMI(sc, { mechanism: 'gaussian', method: 'mi-variance', epsilon: 0.05 }).scale / 2,
      12,
    );
    expect(() => calibrateMI(sc, { mechanism: 'laplace', method: 'mi-variance', epsilon: 0.05, releases: 2 })).toThrow(
      /releases: mutual information of 2 releases/,
    );
  });

  it('empirical audit of a vector release: quiet at the calibrated scale, finds a far-too-small one through a coordinate', () => {
    const sc = scenario(P, Q);
    const b = calibrate(sc, { mechanism: 'laplace', method: 'coupled', alpha: 2, epsilon: 1 }).scale;
    // False-alarm level 1e-6: the calibrated scale is reported as a violation with probability ≤ 1e-6.
    const ok = auditEmpirical(sc, { mechanism: 'laplace', scale: b, alphas: [2], alpha: 2, epsilon: 1, delta: 1e-6, samples: 10_000, level: 1e-6 });
    expect(ok).toHaveLength(1);
    expect(ok[0].result.verdict).toBe('no violation detected');
    expect(ok[0].result.level).toBe(1e-6);
    // Laplace b = 0.05 against a claimed ε = 1 at α = ∞: the second coordinate (38 only under b) gives it away.
    const bad = auditEmpirical(sc, {
      mechanism: 'laplace',
      scale: 0.05,
      alphas: [Infinity],
      alpha: Infinity,
      epsilon: 1,
      delta: 1e-6,
      samples: 10_000,
      level: 1e-6,
    });
    expect(bad[0].result.verdict).toBe('violation');
    expect(bad[0].result.lowerBound).toBeGreaterThan(3);
    expect(bad[0].result.witness?.set).toMatch(/^(y2|Σ yᵢ\/wᵢ) /);
    expect(err(() => auditEmpirical(sc, { mechanism: 'laplace', scale: -1, alphas: [2], alpha: 2, epsilon: 1, delta: 1e-6 }))).toMatch(
      /^scale: must be a finite number ≥ 0/,
    );
  });

  it('account: releases of different columns of the same people, jointly (one vector release with those weights)', () => {
    const sc = scenario(P, Q);
    const parts = [
      { mechanism: 'laplace' as const, scale: 2, coordinates: [0] },
      { mechanism: 'laplace' as const, scale: 8, coordinates: [1] },
    ];
    const alphas = [2, 5, Infinity];
    const joint = account(sc, parts, { alphas });
    // Coordinate 1 at b = 2 and coordinate 2 at b = 8 together are one release with weights (2, 8) at scale 1.
    const whole = audit(sc, { mechanism: 'laplace', scale: 1, coordinateScales: [2, 8], alphas, epsilon: 1, delta: 1e-6 });
    for (const r of joint.rows) {
      const same = Math.max(...whole.filter((x) => x.alpha === r.alpha).map((x) => x.divergence + x.error));
      expect(Math.abs(r.divergence / same - 1), `α=${r.alpha}`).toBeLessThan(1e-6);
      // Exact on ℝ² at finite α: its lower end is known, so whether the naive sum understates is decided.
      if (r.alpha === Infinity) expect(r.understated).toBeNull();
      else {
        expect(r.method).toBe('exact');
        expect(r.understated).toBe(r.naiveSum < r.divergence * (1 - 1e-9));
      }
    }
    // One column alone: never below the exact divergence of that column's own laws (certified scalar audit).
    const col = (m: PointLaw) =>
      fromCounts(
        Array.from({ length: atomsOf(m) }, (_, k) => m.points[2 * k]),
        Array.from(m.numerators, Number),
      );
    const exact = audit(
      { name: 'c', priors: [{ name: 'p', conditionals: { a: col(P), b: col(Q) } }] },
      { mechanism: 'laplace', scale: 2, alphas: [2, 5], epsilon: 1, delta: 1e-6 },
    );
    const first = account(sc, [parts[0]], { alphas: [2, 5] });
    for (const r of first.rows)
      expect(r.divergence).toBeGreaterThanOrEqual(Math.max(...exact.filter((x) => x.alpha === r.alpha).map((x) => x.divergence - x.error)));
    // The next release of the second column only, after the first: the joint level at its scale is ε.
    const next = nextReleaseScale(sc, [parts[0]], { mechanism: 'laplace', coordinates: [1] }, { alpha: 2, epsilon: 1 }).scale;
    const level = (b: number) => account(sc, [parts[0], { mechanism: 'laplace', scale: b, coordinates: [1] }], { alphas: [2] }).rows[0].divergence;
    expect(level(next)).toBeLessThanOrEqual(1 + 1e-9);
    expect(level(0.99 * next)).toBeGreaterThan(1);
    expect(err(() => nextReleaseScale(sc, [], { mechanism: 'laplace', coordinates: [0, 0] }, { alpha: 2, epsilon: 1 }))).toMatch(
      /^next: a release's coordinates must be distinct/,
    );
    expect(err(() => account(sc, [{ mechanism: 'laplace', scale: 1, coordinates: [2] }], { alphas: [2] }))).toMatch(
      /^release: a release's coordinates must be distinct whole numbers from 1 to 2, got 3/,
    );
  });

  it('a source release of two coordinates equal under the prior is two draws of one, never one (budgetLevel)', () => {
    const twin = (xs: number[][], counts: number[]) =>
      pointLaw(
        xs.map(([a, b]) => [a, a, b]),
        { counts },
      );
    const sc = scenario(
      twin(
        [
          [1, 5],
          [2, 3],
          [4, 4],
        ],
        [2, 1, 1],
      ),
      twin(
        [
          [1, 5],
          [3, 3],
          [4, 1],
        ],
        [1, 2, 2],
      ),
    );
    const at = (groups: { count: number; coordinates: number[] }[]) =>
      budgetLevel(
        sc,
        groups.map((g) => ({ mechanism: 'laplace' as const, scale: 0.8, ...g })),
        { alphas: [2], epsilon: 100 },
      ).level;
    const one = at([{ count: 1, coordinates: [0] }]);
    const twice = at([{ count: 2, coordinates: [0] }]);
    expect(twice).toBeGreaterThan(one * 1.5);
    expect(at([{ count: 1, coordinates: [0, 1] }])).toBe(twice);
  });

  it('refuses what it cannot certify, naming the field', () => {
    // Exact accounting is certified on ℝ² for one Laplace release at a finite order: elsewhere refused by name.
    const three = (m: PointLaw) =>
      pointLaw(
        Array.from({ length: atomsOf(m) }, (_, k) => [m.points[2 * k], m.points[2 * k + 1], 1]),
        { counts: Array.from(m.numerators, Number) },
      );
    expect(err(() => calibrate(scenario(three(P), three(Q)), { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 }))).toMatch(
      /^method: exact accounting of a 3-dimensional release would need a 3-dimensional integral; .*tightest certified method here is coupled/,
    );
    expect(err(() => calibrate(scenario(P, Q), { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1, releases: 2 }))).toMatch(
      /^method: exact accounting of 2 releases of a 2-dimensional vector would need a 4-dimensional integral/,
    );
    expect(err(() => calibrate(scenario(P, Q), { mechanism: 'gaussian', method: 'exact', alpha: 2, epsilon: 1 }))).toMatch(
      /^method: exact accounting on ℝ² is written for Laplace noise, not gaussian/,
    );
    expect(calibrate(scenario(P, Q), { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 }).scale).toBeGreaterThan(0);
    expect(err(() => calibrate(scenario(P, Q), { mechanism: 'exponential', method: 'theorem', alpha: 2, epsilon: 1 }))).toMatch(/^mechanism:/);
    expect(err(() => calibrate(scenario(P, Q), { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1, coordinateScales: [1] }))).toMatch(
      /^coordinateScales: has 1 entries/,
    );
    expect(err(() => pointLaw([[1, 2], [3]], { counts: [1, 1] }, 'spec.x'))).toMatch(/^spec\.x\.values\[1\]: has 1 coordinates/);
  });
});

describe('vector queries: specs, tables and the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pf-vec-'));
  const adult = join(UCI_DIR, 'adult', 'adult.data');
  const adultPair = ['--data', adult, '--query', 'education-num,hours-per-week', '--secret-column', 'relationship', '--values', 'Husband,Not-in-family'];
  const spec = join(dir, 'v.json');
  writeFileSync(
    spec,
    JSON.stringify({
      alpha: 2,
      epsilon: 1,
      mechanism: 'gaussian',
      priors: [
        {
          name: 'p',
          conditionals: {
            a: {
              values: [
                [12, 40],
                [13, 45],
                [9, 40],
              ],
              counts: [5, 3, 2],
            },
            b: {
              values: [
                [12, 38],
                [14, 45],
                [9, 50],
              ],
              counts: [2, 3, 5],
            },
          },
        },
      ],
    }),
  );

  it('a spec with vector values calibrates and releases vectors', async () => {
    const c = await inProcess('calibrate', '--spec', spec, '--json');
    expect(c.status, c.stderr).toBe(0);
    const r = JSON.parse(c.stdout).results[0];
    expect(r.dimension).toBe(2);
    expect(r.scale).toBeCloseTo(calibrate(scenario(P, Q), { mechanism: 'gaussian', method: 'best', alpha: 2, epsilon: 1 }).scale, 12);
    const rel = await inProcess('release', '--spec', spec, '--value', '12,40', '--count', '3', '--coordinate-scales', '1,2', '--json');
    expect(rel.status, rel.stderr).toBe(0);
    const out = JSON.parse(rel.stdout);
    expect(out.values).toHaveLength(3);
    expect(out.values.every((v: number[]) => v.length === 2)).toBe(true);
    expect(out.guarantee).toMatch(/the 3 releases together/);
    // An (ε, δ) target: the scale of calibrate --delta on the same spec.
    const dd = JSON.parse((await inProcess('release', '--spec', spec, '--value', '12,40', '--delta', '1e-6', '--alpha', '16,32,64', '--json')).stdout);
    const cd = JSON.parse((await inProcess('calibrate', '--spec', spec, '--delta', '1e-6', '--alpha', '16,32,64', '--json')).stdout).results[0];
    expect(dd.target).toEqual({ epsilon: 1, delta: 1e-6 });
    expect(dd.scale).toBe(cd.scale);
    expect(dd.alpha).toBe(cd.alpha);
    expect(dd.guarantee).toMatch(/^\(ε=1, δ=0\.000001\)-Pufferfish privacy of each release/);
  });

  it('bad vector input exits 2 naming the field; commands without vector support refuse', async () => {
    const wrong = await inProcess('release', '--spec', spec, '--value', '12');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/--value: has 1 coordinates; the query has 2/);
    // account takes vectors (coupled upper bounds).
    const account = await inProcess('account', '--spec', spec, '--release', 'mechanism=gaussian,scale=3', '--release', 'mechanism=gaussian,scale=4', '--json');
    expect(account.status, account.stderr).toBe(0);
    expect(JSON.parse(account.stdout).rows.map((r: { method: string }) => r.method)).toContain('coupled');
    const expo = await inProcess('account', '--spec', spec, '--release', 'mechanism=exponential,scale=1');
    expect(expo.status).toBe(2);
    expect(expo.stderr).toMatch(/^error: --release: vector queries take laplace, gaussian or geometric noise/);
    const weights = await inProcess('audit', '--spec', spec, '--scale', '1', '--coordinate-scales', '1');
    expect(weights.status).toBe(2);
    expect(weights.stderr).toMatch(/^error: --coordinate-scales: has 1 entries for vectors of length 2/);
    // --next: the scale the joint bound allows; the account of all releases at it is within ε.
    const next = await inProcess(
      'account',
      '--spec',
      spec,
      '--release',
      'mechanism=laplace,scale=8',
      '--next',
      'laplace',
      '--alpha',
      '2',
      '--epsilon',
      '1',
      '--json',
    );
    expect(next.status, next.stderr).toBe(0);
    const nextScale = JSON.parse(next.stdout).next.scale;
    const both = await inProcess(
      'account',
      '--spec',
      spec,
      '--release',
      'mechanism=laplace,scale=8',
      '--release',
      `mechanism=laplace,scale=${nextScale}`,
      '--alpha',
      '2',
      '--json',
    );
    expect(JSON.parse(both.stdout).rows[0].divergence).toBeLessThanOrEqual(1 + 1e-9);
    // Releases of single coordinates: by 1-based number in a spec; names belong to a table's --query.
    const cols = await inProcess(
      'account',
      '--spec',
      spec,
      '--release',
      'mechanism=gaussian,scale=3,coordinates=1',
      '--release',
      'mechanism=gaussian,scale=4,coordinates=2',
      '--json',
    );
    expect(cols.status, cols.stderr).toBe(0);
    expect(JSON.parse(cols.stdout).releases.map((r: { coordinates: number[] }) => r.coordinates)).toEqual([[1], [2]]);
    const nextCol = JSON.parse(
      (
        await inProcess(
          'account',
          '--spec',
          spec,
          '--release',
          'mechanism=gaussian,scale=3,coordinates=1',
          '--next',
          'gaussian',
          '--next-columns',
          '2',
          '--alpha',
          '2',
          '--json',
        )
      ).stdout,
    ).next;
    expect(nextCol).toMatchObject({ mechanism: 'gaussian', columns: ['2'] });
    expect(nextCol.scale).toBe(
      nextReleaseScale(
        scenario(P, Q),
        [{ mechanism: 'gaussian', scale: 3, coordinates: [0] }],
        { mechanism: 'gaussian', coordinates: [1] },
        { alpha: 2, epsilon: 1 },
      ).scale,
    );
    expect((await inProcess('account', '--spec', spec, '--release', 'mechanism=gaussian,scale=3,columns=age')).stderr).toMatch(
      /^error: --release: columns=age: a spec's coordinates have no names/,
    );
    expect((await inProcess('account', '--scenario', 'heart', '--release', 'mechanism=gaussian,scale=3,coordinates=1')).stderr).toMatch(
      /^error: --release: columns and coordinates name parts of a vector query/,
    );
    const nextExpo = await inProcess('account', '--spec', spec, '--next', 'exponential', '--alpha', '2');
    expect(nextExpo.status).toBe(2);
    expect(nextExpo.stderr).toMatch(/^error: --next: vector queries take laplace, gaussian or geometric noise/);
    const full = await inProcess(
      'account',
      '--spec',
      spec,
      '--release',
      'mechanism=laplace,scale=0.01',
      '--next',
      'laplace',
      '--alpha',
      '2',
      '--epsilon',
      '0.5',
    );
    expect(full.status).toBe(2);
    expect(full.stderr).toMatch(/^error: --epsilon: the past releases' certified bound already reaches/);
    // Contamination: one range per coordinate (the box), flags or spec; a box on a one-column query is refused.
    const boxed = await inProcess('calibrate', '--spec', spec, '--method', 'coupled', '--contamination', '0.05', '--domain', '8,15;36,52', '--json');
    expect(boxed.status, boxed.stderr).toBe(0);
    const boxedResult = JSON.parse(boxed.stdout).results[0];
    expect(boxedResult.scale).toBe(
      calibrate(scenario(P, Q), {
        mechanism: 'gaussian',
        method: 'coupled',
        alpha: 2,
        epsilon: 1,
        contamination: {
          lambda: 0.05,
          domain: [8, 15],
          box: [
            [8, 15],
            [36, 52],
          ],
        },
      }).scale,
    );
    const boxSpec = join(dir, 'box.json');
    writeFileSync(
      boxSpec,
      JSON.stringify({
        ...JSON.parse(readFileSync(spec, 'utf8')),
        contamination: 0.05,
        domain: [
          [8, 15],
          [36, 52],
        ],
      }),
    );
    expect(JSON.parse((await inProcess('calibrate', '--spec', boxSpec, '--method', 'coupled', '--json')).stdout).results[0].scale).toBe(boxedResult.scale);
    const badBox = await inProcess('calibrate', '--spec', spec, '--contamination', '0.05', '--domain', '8,15;36');
    expect(badBox.status).toBe(2);
    expect(badBox.stderr).toMatch(/^error: --domain: must be LO,HI with finite LO < HI \(a vector query: one LO,HI per coordinate, separated by ';'\)/);
    const outside = await inProcess('calibrate', '--spec', spec, '--contamination', '0.05', '--domain', '8,15;36,49');
    expect(outside.stderr).toMatch(/^error: --domain: coordinate 2 of a value of secret 'b' \(prior 'p'\) is 50, outside \[36, 49\]/);
    const scalarBox = await inProcess('calibrate', '--scenario', 'heart', '--contamination', '0.1', '--domain', '0,7;0,1');
    expect(scalarBox.status).toBe(2);
    expect(scalarBox.stderr).toMatch(/^error: --domain: gives one range per coordinate; this query has one column: give LO,HI/);
    const mi = await inProcess('calibrate', '--spec', spec, '--guarantee', 'mi', '--method', 'mi-exact');
    expect(mi.status).toBe(2);
    expect(mi.stderr).toMatch(/^error: --method: exact mutual information of a 2-dimensional release would need a 2-dimensional integral; use mi-variance/);
    // audit takes vectors (coupled upper bounds, empirical test), but not its one-column parts.
    const scale = JSON.parse((await inProcess('calibrate', '--spec', spec, '--method', 'coupled', '--json')).stdout).results[0].scale;
    const pass = await inProcess('audit', '--spec', spec, '--scale', String(scale * (1 + 1e-9)), '--json');
    expect(pass.status, pass.stderr).toBe(0);
    expect(JSON.parse(pass.stdout)).toMatchObject({ verdict: 'pass', over: 0 });
    expect((await inProcess('audit', '--spec', spec, '--scale', String(scale / 2))).status).toBe(1);
    // --empirical: the sampling test through the coordinates and their sum, beside the certified rows.
    const emp = await inProcess(
      'audit',
      '--spec',
      spec,
      '--scale',
      String(scale * (1 + 1e-9)),
      '--empirical',
      '--samples',
      '2000',
      '--level',
      '1e-6',
      '--json',
    );
    expect(emp.status, emp.stderr).toBe(0);
    expect(JSON.parse(emp.stdout).empirical[0].result).toMatchObject({ verdict: 'no violation detected', samples: 2000, level: 1e-6 });
    const empText = await inProcess('audit', '--spec', spec, '--scale', String(scale * (1 + 1e-9)), '--empirical', '--samples', '2000');
    expect(empText.stdout).toMatch(/empirical audit, p: a vs b \(2000 draws per secret, false-alarm level 0\.001\).*the certified bounds above decide/);
    // --releases N: the rows bound the N releases together; the N-release coupled scale passes, the one-release scale fails.
    const three = JSON.parse((await inProcess('calibrate', '--spec', spec, '--method', 'coupled', '--releases', '3', '--json')).stdout).results[0].scale;
    const joint = await inProcess('audit', '--spec', spec, '--scale', String(three * (1 + 1e-9)), '--releases', '3', '--json');
    expect(joint.status, joint.stderr).toBe(0);
    expect(JSON.parse(joint.stdout)).toMatchObject({ releases: 3, verdict: 'pass' });
    expect((await inProcess('audit', '--spec', spec, '--scale', String(scale * (1 + 1e-9)), '--releases', '3')).status).toBe(1);
    expect((await inProcess('audit', '--spec', spec, '--scale', String(three), '--releases', '3', '--empirical')).stderr).toMatch(
      /^error: --empirical: samples one release/,
    );
    // --robustness: the box from --domain (one range per coordinate, or one for all) or the spec.
    const robust = JSON.parse(
      (await inProcess('audit', '--spec', spec, '--scale', String(scale), '--robustness', '--domain', '8,15;36,52', '--json')).stdout,
    ).robustness;
    expect(robust.largestLambda).toBe(
      robustnessPoints(scenario(P, Q), {
        mechanism: 'gaussian',
        scale,
        alpha: 2,
        epsilon: 1,
        box: [
          [8, 15],
          [36, 52],
        ],
      }).largestLambda,
    );
    const noBox = await inProcess('audit', '--spec', spec, '--scale', String(scale), '--robustness');
    expect(noBox.status).toBe(2);
    expect(noBox.stderr).toMatch(/^error: --domain: is needed with --robustness: LO,HI;LO,HI;…/);
    const mixed = join(dir, 'mixed.json');
    writeFileSync(
      mixed,
      JSON.stringify({
        alpha: 2,
        epsilon: 1,
        priors: [{ name: 'p', conditionals: { a: { values: [[1, 2]], counts: [1] }, b: { values: [3], counts: [1] } } }],
      }),
    );
    const m = await inProcess('calibrate', '--spec', mixed);
    expect(m.status).toBe(2);
    expect(m.stderr).toMatch(/conditionals\.b\.values: must be vectors/);
    const scales = await inProcess('calibrate', '--spec', spec, '--coordinate-scales', '1,0');
    expect(scales.status).toBe(2);
    expect(scales.stderr).toMatch(/--coordinate-scales:/);
  });

  it('the adult example: --query education-num,hours-per-week gives the joint laws, calibrated together', async () => {
    const specOut = join(dir, 'pair-spec.json');
    const r = await inProcess('calibrate', ...adultPair, '--method', 'coupled,theorem', '--spec-out', specOut, '--json');
    expect(r.status, r.stderr).toBe(0);
    const [coupled, theorem] = JSON.parse(r.stdout).results;
    // --spec-out writes the joint laws' vectors (not the table's atom numbering): the spec gives the same scales.
    const spec = JSON.parse(readFileSync(specOut, 'utf8'));
    expect(Object.values(spec.priors[0].conditionals).every((c: any) => c.values.every((v: unknown) => Array.isArray(v) && v.length === 2))).toBe(true);
    const again = JSON.parse((await inProcess('calibrate', '--spec', specOut, '--method', 'coupled,theorem', '--json')).stdout).results;
    expect(again.map((x: { scale: number }) => x.scale)).toEqual([coupled.scale, theorem.scale]);
    expect(coupled.dimension).toBe(2);
    expect(coupled.scale).toBeGreaterThan(0);
    expect(coupled.scale).toBeLessThanOrEqual(theorem.scale);
    // audit takes the columns together (coupled upper bounds); MI does not yet.
    const audited = await inProcess('audit', ...adultPair, '--scale', String(coupled.scale * (1 + 1e-9)), '--json');
    expect(audited.status, audited.stderr).toBe(0);
    // Columns released at different times are accounted jointly, by name.
    const byName = await inProcess(
      'account',
      ...adultPair,
      '--release',
      'mechanism=laplace,scale=2,columns=education-num',
      '--release',
      'mechanism=laplace,scale=8,columns=hours-per-week',
      '--alpha',
      '2',
      '--json',
    );
    expect(byName.status, byName.stderr).toBe(0);
    const weighted = JSON.parse((await inProcess('audit', ...adultPair, '--scale', '1', '--coordinate-scales', '2,8', '--alpha', '2', '--json')).stdout).rows;
    expect(JSON.parse(byName.stdout).rows[0].divergence).toBeCloseTo(
      Math.max(...weighted.map((r: { divergence: number; error: number }) => r.divergence + r.error)),
      6,
    );
    expect((await inProcess('account', ...adultPair, '--release', 'mechanism=laplace,scale=2,columns=age')).stderr).toMatch(
      /^error: --release: unknown column 'age' \(the query's columns: education-num, hours-per-week\)/,
    );
    // MI: the per-coordinate bound over the joint laws of every relationship value.
    const one = await inProcess(
      'calibrate',
      '--data',
      adult,
      '--query',
      'education-num,hours-per-week',
      '--secret-column',
      'relationship',
      '--guarantee',
      'mi',
      '--json',
    );
    expect(one.status, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout).results[0]).toMatchObject({ guarantee: 'mi', winner: 'mi-variance', dimension: 2 });
  }, 60_000);

  it('the joint laws do not depend on the order rows arrive in: shuffled tables give the same bytes', async () => {
    const lines = readFileSync(adult, 'utf8').trim().split('\n').slice(0, 3000);
    // Named adult.data, so the UCI quirks (separator, column names) apply to both.
    const [a, b] = ['order-a', 'order-b'].map((d) => {
      mkdirSync(join(dir, d));
      return join(dir, d, 'adult.data');
    });
    writeFileSync(a, `${lines.join('\n')}\n`);
    writeFileSync(b, `${[...lines].reverse().join('\n')}\n`);
    const args = ['--query', 'age,education-num', '--secret-column', 'relationship', '--values', 'Husband,Own-child,Wife'];
    const out = async (f: string) => {
      const r = await inProcess(
        'account',
        '--data',
        f,
        ...args,
        '--release',
        'mechanism=laplace,scale=5',
        '--release',
        'mechanism=gaussian,scale=6',
        '--alpha',
        '2,5',
        '--json',
      );
      expect(r.status, r.stderr).toBe(0);
      return JSON.stringify(JSON.parse(r.stdout).rows);
    };
    expect(await out(b)).toBe(await out(a));
  });

  it('release --out privatizes several columns together, row by row, and writes no other column', async () => {
    const out = join(dir, 'noisy.csv');
    const r = await inProcess('release', ...adultPair, '--method', 'coupled', '--out', out, '--json');
    expect(r.status, r.stderr).toBe(0);
    const info = JSON.parse(r.stdout);
    expect(info.columns).toEqual(['education-num', 'hours-per-week']);
    expect(info.rows).toBe(32561);
    expect(info.guarantee).toMatch(/each row's released vector/);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('education-num,hours-per-week');
    expect(lines).toHaveLength(32562);
    // Noise at the calibrated scale: values are no longer the table's whole numbers.
    expect(lines.slice(1, 50).every((l) => l.split(',').every((x) => !Number.isInteger(Number(x))))).toBe(true);
    const truncated = await inProcess(
      'release',
      '--data',
      adult,
      '--query',
      'education-num,hours-per-week',
      '--secret-column',
      'relationship',
      '--out',
      join(dir, 't.csv'),
      '--truncate',
      '0,20',
    );
    expect(truncated.status).toBe(2);
    expect(truncated.stderr).toMatch(/--truncate: is not available for vector queries yet/);
  }, 120_000);
});
