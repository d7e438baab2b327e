// Two-sided geometric (discrete Laplace) noise (docs/math.md §21): integer outputs, exact accounting
// by a sum over ℤ, checked against independent brute-force sums.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { account, nextReleaseScale } from '../src/account/account.js';
import { robustnessFinite, robustnessFrom } from '../src/audit/robustness.js';
import { validateSpec } from '../src/markov/chain.js';
import { markovScenario } from '../src/markov/source.js';
import { release } from '../src/release/release.js';
import { builtinScenario } from '../src/scenarios/builtin.js';
import { calibrate, type Method } from '../src/calibrate/calibrate.js';
import { fromCounts, type Discrete } from '../src/distribution/discrete.js';
import type { Scenario } from '../src/distribution/scenario.js';
import { exactRenyi } from '../src/divergence/exactRenyi.js';
import { InputError } from '../src/errors.js';
import { exactDInf, noiseOf } from '../src/mechanisms/kernels.js';
import { mechanismDef, noiseOptions } from '../src/mechanisms/registry.js';
import { calibrateTruncated } from '../src/release/truncated.js';
import { drawRelease, geometricNoise } from '../src/sampling/samplers.js';
import { runInProcess as inProcess } from './inProcess.js';
import { seededSource } from './seeded.js';
import { geometricShiftExponent } from '../src/mechanisms/geometric/shift.js';
import { pointLaw, type PointLaw, type PointScenario } from '../src/distribution/points.js';
import { coordinateScale } from '../src/mechanisms/mechanism.js';

const logSumExp = (xs: number[]) => {
  const m = Math.max(...xs);
  return m + Math.log(xs.reduce((a, x) => a + Math.exp(x - m), 0));
};

/** log P(Y = y) for Y = X + Z, by the definition: log Σ_k w_k (1 − r)/(1 + r) r^{|y − x_k|}. */
const logMass = (d: Discrete, b: number, y: number) =>
  logSumExp(Array.from(d.values, (x, k) => Math.log(d.masses[k]) + Math.log((1 - Math.exp(-1 / b)) / (1 + Math.exp(-1 / b))) - Math.abs(y - x) / b));

/** D_α by brute force: every integer within 200·b + 50 of the atoms, in log-space (the tails beyond are below 1e-80 relative). */
function bruteRenyi(p: Discrete, q: Discrete, b: number, alpha: number): number {
  const lo = Math.floor(Math.min(p.values[0], q.values[0]) - 200 * b - 50),
    hi = Math.ceil(Math.max(p.values[p.values.length - 1], q.values[q.values.length - 1]) + 200 * b + 50);
  const terms: number[] = [];
  for (let y = lo; y <= hi; y++) terms.push(alpha * logMass(p, b, y) + (1 - alpha) * logMass(q, b, y));
  return logSumExp(terms) / (alpha - 1);
}

const law = fc.array(fc.tuple(fc.integer({ min: -6, max: 9 }), fc.integer({ min: 1, max: 9 })), { minLength: 1, maxLength: 4 }).map((a) => {
  const m = new Map<number, number>();
  for (const [v, w] of a) m.set(v, (m.get(v) ?? 0) + w);
  const vs = [...m.keys()].sort((x, y) => x - y);
  return fromCounts(
    vs,
    vs.map((v) => m.get(v)!),
  );
});

describe('geometric noise: exact accounting is a sum over the integers', () => {
  it('matches an independent brute-force sum, α ∈ {0.5, 2, 8}', () => {
    for (const alpha of [0.5, 2, 8])
      fc.assert(
        fc.property(law, law, fc.double({ min: 0.2, max: 6, noNaN: true }), (p, q, b) => {
          const e = exactRenyi(p, q, noiseOf('geometric', b), alpha);
          const o = bruteRenyi(p, q, b, alpha);
          expect(Math.abs(e.value - o)).toBeLessThanOrEqual(e.error + 1e-11 * Math.max(1, Math.abs(o)));
          expect(e.error).toBeLessThan(1e-9);
        }),
        { numRuns: 40 },
      );
  });

  it('D∞ is the largest log ratio over the integers (brute force), and the Laplace D∞ at the same b', () => {
    fc.assert(
      fc.property(law, law, fc.double({ min: 0.2, max: 6, noNaN: true }), (p, q, b) => {
        let sup = -Infinity;
        for (let y = -80; y <= 80; y++) sup = Math.max(sup, logMass(p, b, y) - logMass(q, b, y));
        const d = exactDInf(noiseOf('geometric', b), p, q)!;
        expect(Math.abs(d.value - sup)).toBeLessThanOrEqual(d.error + 1e-12);
        expect(d.value).toBe(exactDInf(noiseOf('laplace', b), p, q)!.value);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses laws off the integers and truncation, naming the setting', () => {
    const half = fromCounts([0, 0.5], [1, 1]);
    expect(() => exactRenyi(half, fromCounts([0], [1]), noiseOf('geometric', 1), 2)).toThrow(/must be integer-valued.*0\.5/);
    const s: Scenario = { name: 'x', priors: [{ name: 'p', conditionals: { a: half, b: fromCounts([0, 1], [1, 3]) } }] };
    expect(() => calibrate(s, { mechanism: 'geometric', method: 'best', alpha: 2, epsilon: 1 })).toThrow(InputError);
    const ints: Scenario = { name: 'y', priors: [{ name: 'p', conditionals: { a: fromCounts([0, 1], [3, 1]), b: fromCounts([0, 1], [1, 3]) } }] };
    expect(() => calibrateTruncated(ints, { mechanism: 'geometric', method: 'exact', alpha: 2, epsilon: 0.5 }, [-5, 5])).toThrow(
      /no interval with geometric noise/,
    );
  });
});

describe('geometric calibration', () => {
  const p = fromCounts([0, 1, 3], [3, 2, 1]),
    q = fromCounts([0, 2, 3], [1, 2, 3]);
  const s: Scenario = { name: 'toy', priors: [{ name: 'p', conditionals: { a: p, b: q } }] };

  it('exact: the brute-force D_α at the scale is ≤ ε, and 2% less noise breaks it', () => {
    for (const alpha of [0.5, 2, 5]) {
      const r = calibrate(s, { mechanism: 'geometric', method: 'exact', alpha, epsilon: 0.3 });
      const worst = (b: number) => Math.max(bruteRenyi(p, q, b, alpha), bruteRenyi(q, p, b, alpha));
      expect(worst(r.scale)).toBeLessThanOrEqual(0.3);
      expect(worst(r.scale * 0.98)).toBeGreaterThan(0.3);
    }
  });

  it('α = ∞: exact equals the Laplace exact scale (same D∞), and never exceeds the W∞ mechanism', () => {
    const g = calibrate(s, { mechanism: 'geometric', method: 'exact', alpha: Infinity, epsilon: 0.5 });
    const l = calibrate(s, { mechanism: 'laplace', method: 'exact', alpha: Infinity, epsilon: 0.5 });
    const w = calibrate(s, { mechanism: 'geometric', method: 'wasserstein-inf', alpha: Infinity, epsilon: 0.5 });
    expect(g.scale).toBe(l.scale);
    expect(g.scale).toBeLessThanOrEqual(w.scale);
    expect(w.scale).toBeCloseTo(2 / 0.5, 12); // W∞ = 2 here
  });

  it('the error bar is the smallest integer k with P(|Z| ≤ k) ≥ c', () => {
    const def = mechanismDef('geometric');
    for (const b of [0.05, 0.7, 3, 41.5])
      for (const c of [0.5, 0.9, 0.95, 0.999]) {
        const k = def.halfWidth(b, c, noiseOptions({}));
        const r = Math.exp(-1 / b);
        const covered = (j: number) => 1 - (2 * r ** (j + 1)) / (1 + r);
        expect(Number.isInteger(k)).toBe(true);
        expect(covered(k)).toBeGreaterThanOrEqual(c);
        if (k > 0) expect(covered(k - 1)).toBeLessThan(c + 1e-8);
      }
  });

  it('account: one release is the exact D_α; two are bounded above by the joint law summed over ℤ²', () => {
    const b = 1.5;
    const one = account(s, [{ mechanism: 'geometric', scale: b }], { alphas: [2] }).rows[0];
    expect(one.divergence).toBeCloseTo(Math.max(bruteRenyi(p, q, b, 2), bruteRenyi(q, p, b, 2)), 9);
    const two = account(
      s,
      [
        { mechanism: 'geometric', scale: b },
        { mechanism: 'geometric', scale: 2 * b },
      ],
      { alphas: [2] },
    ).rows[0];
    // The joint law of (Y₁, Y₂) on ℤ², by its definition.
    const joint = (d: Discrete, y1: number, y2: number) =>
      logSumExp(Array.from(d.values, (x, k) => Math.log(d.masses[k]) + logMass(fromCounts([x], [1]), b, y1) + logMass(fromCounts([x], [1]), 2 * b, y2)));
    const brute = (a: Discrete, c: Discrete) => {
      const t: number[] = [];
      for (let y1 = -60; y1 <= 63; y1++) for (let y2 = -110; y2 <= 113; y2++) t.push(2 * joint(a, y1, y2) - joint(c, y1, y2));
      return logSumExp(t);
    };
    expect(two.divergence).toBeGreaterThanOrEqual(Math.max(brute(p, q), brute(q, p)));
    expect(two.divergence).toBeGreaterThan(one.divergence);
  });
});

describe('geometric sampler', () => {
  it('draws integers with P(Z = z) = (1 − r)/(1 + r)·r^{|z|} (5-σ bands over 20,000 seeded draws)', () => {
    const b = 2;
    const noise = geometricNoise(b);
    const random = seededSource(11n);
    const n = 20_000;
    const counts = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const z = drawRelease(7, noise, { random }) - 7;
      expect(Number.isInteger(z)).toBe(true);
      counts.set(z, (counts.get(z) ?? 0) + 1);
    }
    const r = Math.exp(-1 / b);
    for (let z = -6; z <= 6; z++) {
      const pz = ((1 - r) / (1 + r)) * r ** Math.abs(z);
      expect(Math.abs((counts.get(z) ?? 0) / n - pz)).toBeLessThan(5 * Math.sqrt((pz * (1 - pz)) / n));
    }
  });
});

describe('geometric noise on statistics (CLI)', () => {
  const HEART = 'test/fixtures/uci/heart-disease/processed.cleveland.data.gz';
  it('releases a sum as an integer with an integer interval', async () => {
    const r = await inProcess('release', '--data', HEART, '--query', 'sum:age', '--secret-column', 'fbs', '--mechanism', 'geometric', '--json');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout).releases[0];
    expect(Number.isInteger(out.value)).toBe(true);
    expect(Number.isInteger(out.halfWidth)).toBe(true);
    expect(out.interval).toEqual([out.value - out.halfWidth, out.value + out.halfWidth]);
  });
  it('refuses a mean (it divides by n) with exit 2, naming the sum to release', async () => {
    const r = await inProcess('calibrate', '--data', HEART, '--query', 'mean:age', '--secret-column', 'fbs', '--mechanism', 'geometric');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--mechanism: .*release sum:age/);
  });
});

describe('geometric noise: refusals where integer outputs would not hold (a review)', () => {
  const heart = builtinScenario('heart'); // oldpeak: values like 0.1
  it('refuses laws off the integers everywhere they enter: calibrate (chain methods too), account --next, release', () => {
    const { scenario } = markovScenario(
      validateSpec({
        states: ['a', 'b'],
        chains: [
          {
            name: 'c',
            transition: [
              [0.9, 0.1],
              [0.2, 0.8],
            ],
            initial: 'stationary',
          },
        ],
        length: 4,
        query: { sum: { a: 0.5, b: 1 } },
      }),
      'half',
    );
    for (const method of ['group-dp', 'mqm-exact', 'best'] as const)
      expect(() => calibrate(scenario as Scenario, { mechanism: 'geometric', method: method as Method, alpha: Infinity, epsilon: 1 })).toThrow(
        /must be integer-valued/,
      );
    expect(() => nextReleaseScale(heart, [{ mechanism: 'laplace', scale: 1 }], { mechanism: 'geometric' }, { alpha: Infinity, epsilon: 50 })).toThrow(
      /must be integer-valued/,
    );
    const ints = builtinScenario('student-mat');
    expect(() => release(ints, { mechanism: 'geometric', method: 'best', alpha: 2, epsilon: 1 }, 12.5)).toThrow(/whole number below 2⁵³/);
    expect(Number.isInteger(release(ints, { mechanism: 'geometric', method: 'best', alpha: 2, epsilon: 1 }, 12, { random: seededSource(3n) }).values[0])).toBe(
      true,
    );
  });
  it('refuses contamination (mass may sit between the integers), and a robustness report with ρ = ∞ says no λ > 0 holds', () => {
    const ints = builtinScenario('student-mat');
    expect(() => calibrate(ints, { mechanism: 'geometric', method: 'best', alpha: 2, epsilon: 1, contamination: { lambda: 0.1, domain: [0, 20] } })).toThrow(
      /contaminating mass may sit between the integers/,
    );
    expect(() => robustnessFinite(ints, { mechanism: 'geometric', scale: 1, alpha: 2, epsilon: 1, domain: [0, 20.5] })).toThrow(/contaminating mass/);
    const r = robustnessFrom([{ prior: 'p', pair: ['a', 'b'], D: 0.1, counts: [10, 10] }], Infinity, { alpha: 2, epsilon: 1 });
    expect(r.largestLambda).toBe(0);
    expect(r.rows.filter((x) => x.lambda > 0).every((x) => x.divergence === Infinity)).toBe(true);
  });
  it('gives an error bar at huge scales without stepping through the integers', () => {
    const k = mechanismDef('geometric').halfWidth(1e16, 0.95, noiseOptions({}));
    expect(k).toBeGreaterThanOrEqual(-1e16 * Math.log(0.05));
  });
});

describe('geometric noise: the shift’s divergence in closed form, the coupled bound, vectors (docs/math.md §21)', () => {
  const point = (x: number) => fromCounts([x], [1]);

  it('the shift’s (α−1)·D_α is the brute-force sum over ℤ within its bound, below D∞ and rising in the shift; ∞ off the integers', () => {
    for (const alpha of [1.5, 2, 8])
      for (const b of [0.2, 1, 4.5])
        for (const k of [1, 2, 5, 13]) {
          const g = geometricShiftExponent(alpha, k, b);
          const brute = (alpha - 1) * bruteRenyi(point(0), point(k), b, alpha);
          expect(Math.abs(g.value - brute), `α=${alpha} b=${b} k=${k}`).toBeLessThanOrEqual(g.error + 1e-12 * Math.max(1, Math.abs(brute)));
          expect(g.value).toBeLessThan(((alpha - 1) * k) / b);
          expect(geometricShiftExponent(alpha, k + 1, b).value).toBeGreaterThan(g.value);
          expect(geometricShiftExponent(alpha, -k, b)).toEqual(g);
        }
    expect(geometricShiftExponent(2, 0, 1)).toEqual({ value: 0, error: 0 });
    expect(geometricShiftExponent(2, 0.5, 1).value).toBe(Infinity);
  });

  const p = fromCounts([0, 1, 3], [3, 2, 1]),
    q = fromCounts([0, 2, 3], [1, 2, 3]);
  const s: Scenario = { name: 'toy', priors: [{ name: 'p', conditionals: { a: p, b: q } }] };

  it('coupled on a scalar: the brute-force D_α at its scale is ≤ ε; never below exact nor above the W∞ mechanism; at α = ∞ it is W∞', () => {
    for (const alpha of [2, 5]) {
      const c = calibrate(s, { mechanism: 'geometric', method: 'coupled', alpha, epsilon: 0.3 });
      const worst = (b: number) => Math.max(bruteRenyi(p, q, b, alpha), bruteRenyi(q, p, b, alpha));
      expect(worst(c.scale)).toBeLessThanOrEqual(0.3);
      expect(c.scale).toBeGreaterThanOrEqual(calibrate(s, { mechanism: 'geometric', method: 'exact', alpha, epsilon: 0.3 }).scale);
      expect(c.scale).toBeLessThan(calibrate(s, { mechanism: 'geometric', method: 'wasserstein-inf', alpha, epsilon: 0.3 }).scale);
    }
    const inf = (method: 'coupled' | 'wasserstein-inf') => calibrate(s, { mechanism: 'geometric', method, alpha: Infinity, epsilon: 0.5 }).scale;
    expect(inf('coupled')).toBe(inf('wasserstein-inf'));
  });

  // Two secrets' laws of a 2-vector of counts (one unit's contribution to two group counts, say).
  const P = pointLaw(
    [
      [0, 0],
      [1, 0],
      [0, 1],
      [2, 1],
    ],
    { counts: [5, 3, 2, 1] },
  );
  const Q = pointLaw(
    [
      [0, 0],
      [1, 0],
      [0, 1],
      [1, 2],
    ],
    { counts: [2, 2, 4, 3] },
  );
  const vec: PointScenario = { name: 'v', priors: [{ name: 'p', conditionals: { a: P, b: Q } }] };
  /** log P(Y = y) on ℤ² under independent geometric noise of scales (b₁, b₂), by the definition. */
  const logMass2 = (L: PointLaw, b: [number, number], y: [number, number]) =>
    logSumExp(Array.from(L.masses, (m, k) => Math.log(m) + logMass(point(L.points[2 * k]), b[0], y[0]) + logMass(point(L.points[2 * k + 1]), b[1], y[1])));
  const brute2 = (A: PointLaw, B: PointLaw, b: [number, number], alpha: number) => {
    const t: number[] = [];
    const r = (s: number) => Math.ceil(60 * s) + 20;
    for (let y1 = -r(b[0]); y1 <= r(b[0]) + 2; y1++)
      for (let y2 = -r(b[1]); y2 <= r(b[1]) + 2; y2++) t.push(alpha * logMass2(A, b, [y1, y2]) + (1 - alpha) * logMass2(B, b, [y1, y2]));
    return logSumExp(t) / (alpha - 1);
  };

  it('vectors: the coupled scale’s true D_α (a brute-force sum over ℤ²) is ≤ ε, coordinate weights included; best picks coupled over W∞', () => {
    for (const [w, alpha] of [
      [[1, 1], 2],
      [[1, 2], 3],
    ] as const) {
      const settings = { mechanism: 'geometric' as const, method: 'coupled' as const, alpha, epsilon: 0.4, coordinateScales: [...w] };
      const c = calibrate(vec, settings);
      // Each coordinate's noise as the release draws it (w·b rounded up).
      const at: [number, number] = [coordinateScale(c.scale, w[0]), coordinateScale(c.scale, w[1])];
      expect(Math.max(brute2(P, Q, at, alpha), brute2(Q, P, at, alpha))).toBeLessThanOrEqual(0.4);
      const best = calibrate(vec, { ...settings, method: 'best' });
      expect(best.scale).toBe(c.scale);
      expect(best.candidates!.map((x) => x.method)).toEqual(['wasserstein-inf', 'coupled']);
    }
  });

  it('vectors: laws off the integers and contamination are refused naming the setting; a release is integers; an account is ≥ the truth over ℤ²', () => {
    const half: PointScenario = {
      name: 'h',
      priors: [
        {
          name: 'p',
          conditionals: {
            a: P,
            b: pointLaw(
              [
                [0, 0.5],
                [1, 0],
              ],
              { counts: [1, 1] },
            ),
          },
        },
      ],
    };
    for (const method of ['coupled', 'wasserstein-inf', 'best'] as const)
      expect(() => calibrate(half, { mechanism: 'geometric', method, alpha: 2, epsilon: 1 })).toThrow(/must be integer-valued.*0\.5/);
    expect(() => calibrate(vec, { mechanism: 'geometric', method: 'coupled', alpha: 2, epsilon: 1, contamination: { lambda: 0.1, domain: [0, 3] } })).toThrow(
      /contaminating mass may sit between the integers/,
    );
    expect(() => account(half, [{ mechanism: 'geometric', scale: 2 }], { alphas: [2] })).toThrow(/must be integer-valued/);
    const r = release(vec, { mechanism: 'geometric', method: 'best', alpha: 2, epsilon: 1 }, [3, 7], { random: seededSource(5n) });
    expect((r.values[0] as number[]).every((v) => Number.isInteger(v))).toBe(true);
    const level = account(vec, [{ mechanism: 'geometric', scale: 1.5 }], { alphas: [2] }).rows[0].divergence;
    expect(level).toBeGreaterThanOrEqual(Math.max(brute2(P, Q, [1.5, 1.5], 2), brute2(Q, P, [1.5, 1.5], 2)));
    expect(level).toBeLessThan((2 * 2) / 1.5); // well below the D∞ charge of the widest shift
  });
});

describe('geometric noise beside other statistics, near α = 1, and its refusals’ fields (a review)', () => {
  const HEART = 'test/fixtures/uci/heart-disease/processed.cleveland.data.gz';
  const src = ['--data', HEART, '--secret-column', 'fbs'];

  it('near α = 1 the shift’s divergence has no error floor: (α−1)·D_α → (α−1)·KL, KL = λ·tanh(λ/2) for a shift of 1', () => {
    for (const b of [0.3, 5, 400]) {
      const lambda = 1 / b;
      const alpha = 1 + 1e-12;
      const g = geometricShiftExponent(alpha, 1, b);
      expect(g.error).toBeLessThan(1e-9 * g.value);
      expect(Math.abs(g.value / (alpha - 1) / (lambda * Math.tanh(lambda / 2)) - 1)).toBeLessThan(1e-9);
    }
  });

  it('a source ledger takes a geometric sum beside a Laplace mean of a non-integer column, in either order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pufferfish-geo-ledger-'));
    for (const [k, first, second] of [
      [0, ['--query', 'sum:age', '--mechanism', 'geometric'], ['--query', 'mean:oldpeak', '--mechanism', 'laplace']],
      [1, ['--query', 'sum:oldpeak', '--mechanism', 'laplace'], ['--query', 'sum:age', '--mechanism', 'geometric']],
    ] as const) {
      const ledger = join(dir, `l${k}.ledger`);
      expect((await inProcess('ledger', 'init', '--ledger', ledger, ...src, '--alpha', '2', '--epsilon', '5')).status).toBe(0);
      for (const q of [first, second]) {
        const r = await inProcess('release', ...src, ...q, '--epsilon', '0.5', '--ledger', ledger);
        expect(r.status, r.stderr).toBe(0);
      }
    }
  });

  it('refusals name the flag that asked: --next for a planned mean, --mechanism for a given scale’s non-integer sum, --release for an account', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pufferfish-geo-fields-'));
    const ledger = join(dir, 'h.ledger');
    expect((await inProcess('ledger', 'init', '--ledger', ledger, ...src, '--alpha', '2', '--epsilon', '5')).status).toBe(0);
    const next = await inProcess('account', '--ledger', ledger, ...src, '--query', 'share:chol > 250', '--next', 'geometric');
    expect([next.status, next.stderr]).toEqual([
      2,
      expect.stringMatching(/^error: --next: geometric noise adds an integer to a count or a sum; a share divides by n/),
    ]);
    const given = await inProcess(
      'release',
      ...src,
      '--query',
      'sum:oldpeak',
      '--group-by',
      'sex',
      '--group-private',
      '--mechanism',
      'geometric',
      '--scale',
      '5',
      '--ledger',
      ledger,
    );
    expect([given.status, given.stderr]).toEqual([
      2,
      expect.stringMatching(/^error: --mechanism: geometric noise releases integers, so the laws must be integer-valued/),
    ]);
    const acct = await inProcess('account', ...src, '--query', 'age,trestbps', '--release', 'mechanism=geometric,scale=3');
    expect(acct.status, acct.stderr).toBe(0); // integer columns
    const bad = await inProcess('account', ...src, '--query', 'age,oldpeak', '--release', 'mechanism=geometric,scale=3');
    expect([bad.status, bad.stderr]).toEqual([2, expect.stringMatching(/^error: --release: geometric noise releases integers/)]);
  });
});
