// Window counts of a Markov chain (docs/math.md §19): the path-coupled bound against the true
// joint divergence of small chains (enumerated joint laws, 2-D quadrature), and Seattle's months.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateSpec, type MarkovModel } from '../src/markov/chain.js';
import { calibrateWindows } from '../src/calibrate/windows.js';
import { drawWindows, releaseWindows } from '../src/release/windows.js';
import { auditWindows } from '../src/audit/windows.js';
import { checkWindows } from '../src/markov/calendar.js';
import { calendarWindows as monthWindows, windowLabels } from '../src/markov/calendar.js';
import { pathCoupledBound } from '../src/markov/windows.js';
import { mechanismDef, noiseOptions, FAMILY_OF, type Mechanism } from '../src/mechanisms/registry.js';
import { transitionCounts } from '../src/sources/sequence.js';
import { sequenceChain } from '../src/sources/chainCounts.js';
import { vectorRenyi2d } from './quadrature2d.js';
import { twoStateChain } from './chains.js';
import { runInProcess as inProcess } from './inProcess.js';

/** A chain's query: the count of one state, or a sum of whole-number values per state. */
type Counted = string | Record<string, number>;

const model = (transition: number[][], T: number, counted: Counted): MarkovModel => {
  const states = transition.map((_, i) => String.fromCharCode(97 + i));
  const query = typeof counted === 'string' ? { count: counted } : { sum: counted };
  return validateSpec({ states, chains: [{ name: 'c', transition, initial: 'stationary' }], length: T, query });
};

/** Each state's step value, read off the model's query independently of the library: 1 for the counted state, or the sum's value. */
const stepValues = (m: MarkovModel): number[] =>
  m.query.kind === 'count' ? m.states.map((_, x) => (x === (m.query as { state: number }).state ? 1 : 0)) : m.query.kind === 'sum' ? m.query.values : [];

/** The joint law of the two window counts given X_i = a, by enumerating every path. */
function windowLaw(m: MarkovModel, lengths: [number, number], i: number, a: number) {
  const P = m.chains[0].transition;
  const init = (m.chains[0].initial as { law: number[] }).law;
  const k = P.length;
  const T = m.length;
  const f = stepValues(m);
  const mass = new Map<string, number>();
  const path = new Array<number>(T);
  const walk = (t: number, p: number) => {
    if (p === 0) return;
    if (t === T) {
      if (path[i] !== a) return;
      let c1 = 0,
        c2 = 0;
      for (let s = 0; s < T; s++) {
        if (s < lengths[0]) c1 += f[path[s]];
        else c2 += f[path[s]];
      }
      const key = `${c1},${c2}`;
      mass.set(key, (mass.get(key) ?? 0) + p);
      return;
    }
    for (let x = 0; x < k; x++) {
      path[t] = x;
      walk(t + 1, t === 0 ? init[x] : p * P[path[t - 1]][x]);
    }
  };
  walk(0, 1);
  const total = [...mass.values()].reduce((s, x) => s + x, 0);
  const keys = [...mass.keys()];
  return { points: Float64Array.from(keys.flatMap((key) => key.split(',').map(Number))), masses: Float64Array.from(keys, (key) => mass.get(key)! / total) };
}

/** Small chains, each with the noise families and orders checked (the 2-D oracle is slow: a few of each). */
const CASES: { name: string; P: number[][]; lengths: [number, number]; counted: Counted; runs: [string, number][] }[] = [
  {
    name: 'sticky binary',
    P: [
      [0.9, 0.1],
      [0.2, 0.8],
    ],
    lengths: [3, 3],
    counted: 'b',
    runs: [
      [FAMILY_OF.default, 2],
      [FAMILY_OF.projection, 4],
      [FAMILY_OF.default, 0.5],
    ],
  },
  {
    name: 'three states',
    P: [
      [0.6, 0.3, 0.1],
      [0.2, 0.5, 0.3],
      [0.3, 0.3, 0.4],
    ],
    lengths: [2, 3],
    counted: 'c',
    runs: [
      [FAMILY_OF.default, 2],
      [FAMILY_OF.projection, 2],
      [FAMILY_OF.projection, 0.7],
    ],
  },
  {
    name: 'a window sum (values −1, 2)',
    P: [
      [0.7, 0.3],
      [0.4, 0.6],
    ],
    lengths: [2, 3],
    counted: { a: -1, b: 2 },
    runs: [
      [FAMILY_OF.default, 2],
      [FAMILY_OF.projection, 3],
      [FAMILY_OF.default, 0.5],
    ],
  },
  {
    // Sums differ by multiples of 2: the bounds walk the values (0, 1, 2) at half the scale.
    name: 'a window sum whose values share a factor (0, 2, 4)',
    P: [
      [0.5, 0.3, 0.2],
      [0.3, 0.4, 0.3],
      [0.2, 0.2, 0.6],
    ],
    lengths: [2, 2],
    counted: { a: 0, b: 2, c: 4 },
    runs: [[FAMILY_OF.default, 2]],
  },
];

/** The largest true D_α over every time and ordered pair, by 2-D quadrature on the enumerated laws. */
function trueWorst(m: MarkovModel, lengths: [number, number], mechanism: string, scale: number, alpha: number): number {
  const k = m.states.length;
  const laws = Array.from({ length: m.length }, (_, i) => Array.from({ length: k }, (__, a) => windowLaw(m, lengths, i, a)));
  const kernel = { family: mechanism, scale };
  let worst = 0;
  for (let i = 0; i < m.length; i++)
    for (let a = 0; a < k; a++) for (let c = 0; c < k; c++) if (a !== c) worst = Math.max(worst, vectorRenyi2d(laws[i][a], laws[i][c], kernel, kernel, alpha));
  return worst;
}

/** The joint law of three window counts given X_i = a, by enumerating every path. */
function windowLaw3(m: MarkovModel, lengths: number[], i: number, a: number): Map<string, number> {
  const P = m.chains[0].transition;
  const init = (m.chains[0].initial as { law: number[] }).law;
  const counted = m.query.kind === 'count' ? m.query.state : -1;
  const ends = lengths.map((_, w) => lengths.slice(0, w + 1).reduce((x, y) => x + y, 0));
  const mass = new Map<string, number>();
  const path: number[] = [];
  const walk = (t: number, p: number) => {
    if (p === 0) return;
    if (t === m.length) {
      if (path[i] !== a) return;
      const c = lengths.map(() => 0);
      path.forEach((x, u) => {
        if (x === counted) c[ends.findIndex((e) => u < e)]++;
      });
      mass.set(c.join(','), (mass.get(c.join(',')) ?? 0) + p);
      return;
    }
    for (let x = 0; x < P.length; x++) {
      path[t] = x;
      walk(t + 1, t === 0 ? init[x] : p * P[path[t - 1]][x]);
    }
  };
  walk(0, 1);
  const total = [...mass.values()].reduce((x, y) => x + y, 0);
  for (const [key, v] of mass) mass.set(key, v / total);
  return mass;
}

/**
 * (α−1)·the largest true D_2 of three window counts with two-sided geometric noise (mass
 * tanh(1/2b)·e^{−|k|/b} at k), at the secret time i over every ordered pair: the lattice sum Σ p²/q over the
 * counts' range widened by 24b on each side (the rest is below e^{−24} of the sum).
 */
function latticeWorst(m: MarkovModel, lengths: number[], b: number, i: number): number {
  const R = Math.ceil(24 * b);
  const hi = Math.max(...lengths) + R;
  const g = (k: number) => Math.tanh(1 / (2 * b)) * Math.exp(-Math.abs(k) / b);
  const density = (law: Map<string, number>) => {
    const atoms = [...law].map(([key, w]) => ({ x: key.split(',').map(Number), w }));
    const n = hi + R + 1;
    const out = new Float64Array(n ** 3);
    for (const { x, w } of atoms)
      for (let y1 = -R; y1 <= hi; y1++) {
        const g1 = w * g(y1 - x[0]);
        for (let y2 = -R; y2 <= hi; y2++) {
          const g12 = g1 * g(y2 - x[1]);
          const base = ((y1 + R) * n + (y2 + R)) * n + R;
          for (let y3 = -R; y3 <= hi; y3++) out[base + y3] += g12 * g(y3 - x[2]);
        }
      }
    return out;
  };
  let worst = -Infinity;
  const k = m.states.length;
  const d = Array.from({ length: k }, (_, a) => density(windowLaw3(m, lengths, i, a)));
  for (let a = 0; a < k; a++)
    for (let c = 0; c < k; c++) {
      if (a === c) continue;
      let sum = 0;
      for (let j = 0; j < d[a].length; j++) if (d[a][j] > 0) sum += (d[a][j] * d[a][j]) / d[c][j];
      worst = Math.max(worst, Math.log(sum));
    }
  return worst;
}

describe('the path-coupled bound on window counts', () => {
  it('refuses a chain whose probabilities, or reachable marginals, fall below 2^−500 (an underflowed secret would go unprotected)', () => {
    const chain = (tiny: number) =>
      validateSpec({
        states: ['a', 'b', 'c'],
        chains: [
          {
            name: 'tiny',
            transition: [
              [1, tiny, 0],
              [0.5, 0.5, tiny],
              [0.5, 0, 0.5],
            ],
            initial: [1, 0, 0],
          },
        ],
        length: 6,
        query: { count: 'c' },
      });
    const s = { mechanism: FAMILY_OF.default, alpha: 2, epsilon: 1 };
    // Each entry is representable, but X_3 = c has probability 10⁻²⁰⁰ (a product of two), and 10⁻⁴⁰⁰ reads 0.
    expect(() => calibrateWindows(chain(1e-100), [3, 3], { ...s, method: 'path-coupled' })).toThrow(/chain 'tiny': P\(X_3 = c\) is 1\.00e-200, below 2\^−500/);
    expect(() => calibrateWindows(chain(1e-200), [3, 3], { ...s, method: 'boundary-coupled' })).toThrow(/the transition a → b is 1\.00e-200/);
    // `best` answers with the methods that hold (never the underflowed bound's small scale) and says why.
    const best = calibrateWindows(chain(1e-200), [3, 3], { ...s, method: 'best' });
    expect(best.scale).toBeGreaterThanOrEqual(6);
    expect(best.explanation).toMatch(/boundary-coupled, path-coupled n\/a: chain 'tiny'/);
    // At 10⁻⁵⁰ every product stays normal: the bound runs, and the rare secret X_3 = c needs real noise.
    expect(calibrateWindows(chain(1e-50), [3, 3], { ...s, method: 'path-coupled' }).scale).toBeGreaterThan(1);
  });

  it('refuses a series too long for its passes by name, before any work; best answers with the MQM', () => {
    const T = 100_000;
    const m = validateSpec({
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
      length: T,
      query: { count: 'b' },
    });
    const lengths = Array.from({ length: T / 40 }, () => 40);
    const s = { mechanism: FAMILY_OF.default, alpha: 2, epsilon: 1 };
    expect(() => calibrateWindows(m, lengths, { ...s, method: 'path-coupled' })).toThrow(
      /markov\.length: the window bounds need 6\.48e\+7 values \(T = 100000, 2 states, 81 differences per time\), more than the limit/,
    );
    const best = calibrateWindows(m, lengths, { ...s, method: 'best' });
    expect(best.method).toBe('mqm-exact');
    expect(best.explanation).toMatch(/path-coupled n\/a: the window bounds need/);
  });
  it('a sum whose values share a factor g is bounded as the values / g with the scales / g: g times the scale, where the wide table was refused', async () => {
    const { windowsExponent } = await import('../src/calibrate/windows.js');
    const P = [
      [0.9, 0.1],
      [0.2, 0.8],
    ];
    const lengths = Array.from({ length: 20 }, () => 30);
    const s = { mechanism: FAMILY_OF.default, alpha: 2, epsilon: 1, method: 'path-coupled' as const };
    const counted = calibrateWindows(model(P, 600, 'b'), lengths, s).scale!;
    // A step of 1000: its unreduced table (2·600·4·(2·30·1000 + 1) values) is past the limit.
    const thousands = model(P, 600, { a: 0, b: 1000 });
    const r = calibrateWindows(thousands, lengths, s);
    expect(r.scale! / 1000).toBeCloseTo(counted, 5);
    // The same bound at g times the scale, as the reduction reads it (scale rounded down: never smaller).
    const noise = (b: number) => lengths.map(() => ({ mechanism: s.mechanism, scale: b }));
    const at1000 = windowsExponent(thousands, lengths, 2, noise(1000 * counted)).exponent;
    expect(at1000).toBeGreaterThanOrEqual(windowsExponent(model(P, 600, 'b'), lengths, 2, noise(counted)).exponent);
    expect(at1000).toBeLessThanOrEqual(1);
    // Integer noise keeps the values: its lattice does not scale, so the wide table is refused by name.
    expect(() => calibrateWindows(thousands, lengths, { ...s, mechanism: 'geometric' })).toThrow(/the window bounds need .* more than the limit/);
    // Values past a thousand are taken: only their spread on their own grid sizes the tables.
    const millions = model(P, 600, { a: -3_000_000, b: 2_000_000 });
    expect(calibrateWindows(millions, lengths, s).scale! / 5e6).toBeCloseTo(counted, 5);
    // Three states spanning 10⁵ steps of their common factor 1: refused by the tables' size, naming
    // the spread (before any table is laid), where the MQM still answers.
    const Q = [
      [0.8, 0.1, 0.1],
      [0.2, 0.7, 0.1],
      [0.3, 0.3, 0.4],
    ];
    const wide = model(Q, 600, { a: 0, b: 1, c: 100_000 });
    expect(() => calibrateWindows(wide, lengths, s)).toThrow(/values span 100000\).*values sharing a larger common factor/);
    expect(calibrateWindows(wide, lengths, { ...s, method: 'mqm-exact' }).scale).toBeGreaterThan(0);
    expect(() => calibrateWindows(model(P, 600, { a: 0, b: 1e9 + 1 }), lengths, s)).toThrow(/\|V\| ≤ 1e\+9/);
  });
  for (const { name, P, lengths, counted, runs } of CASES)
    for (const [mechanism, alpha] of runs) {
      it(`${name}, ${mechanism}, α = ${alpha}: boundary-coupled: the true joint D_α at its scale is ≤ ε, at most the path-coupled scale; 2% less noise breaks it`, async () => {
        const { windowsExponent } = await import('../src/calibrate/windows.js');
        const m = model(P, lengths[0] + lengths[1], counted);
        const s = { mechanism: mechanism as Mechanism, alpha, epsilon: 1 };
        const r = calibrateWindows(m, lengths, { ...s, method: 'boundary-coupled' });
        const b = r.scale!;
        expect(b).toBeLessThanOrEqual(calibrateWindows(m, lengths, { ...s, method: 'path-coupled' }).scale!);
        expect(trueWorst(m, lengths, mechanism, b, alpha)).toBeLessThanOrEqual(1 + 1e-6);
        const at = (x: number) =>
          windowsExponent(
            m,
            lengths,
            alpha,
            [
              { mechanism: s.mechanism, scale: x },
              { mechanism: s.mechanism, scale: x },
            ],
            {},
          ).exponent /
          (alpha - 1);
        expect(at(0.98 * b)).toBeGreaterThan(1);
        // Far below the scale the bound still holds: never below the true divergence.
        expect(trueWorst(m, lengths, mechanism, 0.4 * b, alpha)).toBeLessThanOrEqual(at(0.4 * b) + 1e-6);
      });

      it(`${name}, ${mechanism}, α = ${alpha}: the true joint D_α at the calibrated scale is ≤ ε; 2% less noise breaks the bound`, () => {
        const m = model(P, lengths[0] + lengths[1], counted);
        const epsilon = 1;
        const r = calibrateWindows(m, lengths, { mechanism: mechanism as Mechanism, method: 'path-coupled', alpha, epsilon });
        expect(r.scale).not.toBeNull();
        const b = r.scale!;
        expect(trueWorst(m, lengths, mechanism, b, alpha)).toBeLessThanOrEqual(epsilon + 1e-6);
        const def = mechanismDef(mechanism);
        const f = stepValues(m);
        const chain = { transition: P, initial: (m.chains[0].initial as { law: number[] }).law, contribution: f };
        const factorAt = (s: number) => (d: number) => (d === 0 ? 1 : Math.exp((alpha - 1) * def.pointDivergence(d, s, alpha, noiseOptions({})).value));
        // 2% less noise: the bound on D_α (exponent/(α−1)) exceeds ε (α < 1: a lower bound on the exponent, below (α−1)ε).
        const below = alpha < 1;
        expect(pathCoupledBound(chain, lengths, factorAt(0.98 * b), below).exponent / (alpha - 1)).toBeGreaterThan(epsilon);
        // At another scale the bound still holds: never below the true divergence.
        if (name === 'sticky binary' && mechanism === FAMILY_OF.default) {
          const bound = pathCoupledBound(chain, lengths, factorAt(0.5 * b), below).exponent / (alpha - 1);
          expect(trueWorst(m, lengths, mechanism, 0.5 * b, alpha)).toBeLessThanOrEqual(bound + 1e-6);
        }
      });
    }

  it("three windows, the secret in the middle one (both boundaries coupled), geometric noise: the true joint D_α, a lattice sum, is ≤ ε at both bounds' scales", async () => {
    const { windowsExponent } = await import('../src/calibrate/windows.js');
    for (const [P, lengths, counted] of [
      [
        [
          [0.9, 0.1],
          [0.2, 0.8],
        ],
        [2, 2, 2],
        'b',
      ],
      [
        [
          [0.6, 0.3, 0.1],
          [0.2, 0.5, 0.3],
          [0.3, 0.3, 0.4],
        ],
        [2, 1, 2],
        'c',
      ],
    ] as [number[][], number[], string][]) {
      const T = lengths.reduce((x, y) => x + y, 0);
      const m = model(P, T, counted);
      const s = { mechanism: 'geometric' as Mechanism, alpha: 2, epsilon: 1 };
      const path = calibrateWindows(m, lengths, { ...s, method: 'path-coupled' }).scale!;
      const boundary = calibrateWindows(m, lengths, { ...s, method: 'boundary-coupled' }).scale!;
      expect(boundary).toBeLessThanOrEqual(path);
      // The bound is the worst over every time; the times checked are the middle window's.
      const middle = Array.from({ length: lengths[1] }, (_, j) => lengths[0] + j);
      for (const b of [boundary, 0.5 * boundary]) {
        const bound = windowsExponent(
          m,
          lengths,
          2,
          lengths.map(() => ({ mechanism: s.mechanism, scale: b })),
          {},
        ).perTime;
        for (const i of middle) expect(latticeWorst(m, lengths, b, i)).toBeLessThanOrEqual(bound[i] + 1e-9);
      }
    }
  });

  it("Seattle's 12 months of rain counts at α = 2, ε = 1 (Laplace): at most the reference 2.546, six times below the MQM; boundary-coupled below both", async () => {
    const t = await transitionCounts({ kind: 'csv', location: 'test/fixtures/weather/seattle-weather.csv.gz' }, { sequence: 'weather', orderBy: 'date' });
    const { model: m } = sequenceChain(t, { query: { count: 'rain' }, length: 365 });
    const months = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    const s = { mechanism: FAMILY_OF.default, alpha: 2, epsilon: 1 };
    const path = calibrateWindows(m, months, { ...s, method: 'path-coupled' });
    expect(path.scale!).toBeLessThanOrEqual(2.546 * 1.001);
    expect(path.binding?.pair.sort()).toEqual(['rain', 'sun']);
    const mqm = calibrateWindows(m, months, { ...s, method: 'mqm-exact' });
    expect(mqm.scale! / path.scale!).toBeGreaterThan(5);
    // The secret's window exactly, given its coupled boundaries: over a third less noise, binding
    // on a month's first day (where the month before still moves with the secret).
    const best = calibrateWindows(m, months, { ...s, method: 'best' });
    expect(best.winner).toBe('boundary-coupled');
    expect(best.scale! / path.scale!).toBeLessThan(0.66);
    expect(best.explanation).toMatch(/boundary-coupled 1\.63\d+, path-coupled 2\.54\d+/);
    expect(calibrateWindows(m, months, { ...s, alpha: Infinity, method: 'path-coupled' }).scale).toBeNull();
  });

  it("a chain with independent steps: boundary-coupled gives each window's single-window answer (the exact calibration of one window's count)", async () => {
    const { calibrate } = await import('../src/calibrate/calibrate.js');
    const { specFromRaw } = await import('../src/spec/load.js');
    const P = [
      [0.3, 0.7],
      [0.3, 0.7],
    ];
    for (const alpha of [2, 4]) {
      const b = calibrateWindows(model(P, 12, 'b'), [4, 4, 4], { mechanism: FAMILY_OF.default, method: 'boundary-coupled', alpha, epsilon: 1 }).scale!;
      const spec = specFromRaw({
        markov: { states: ['a', 'b'], chains: [{ name: 'c', transition: P, initial: 'stationary' }], length: 4, query: { count: 'b' } },
      });
      if (spec.kind !== 'finite') throw new Error('a finite spec');
      const one = calibrate(spec.scenario, { mechanism: FAMILY_OF.default, method: 'exact', alpha, epsilon: 1 }).scale;
      // The bisection's feasible end, above the exact root by its 10⁻⁶ and the rounding charges (the
      // boundary coupling's rounding is charged at the window's largest shift: 10⁻⁵ at α = 4 here).
      expect(b / one).toBeGreaterThan(1 - 1e-9);
      expect(b / one).toBeLessThan(1 + 3e-5);
    }
  });

  it('counts that meet the budget without noise get scale 0 ("no noise is needed"), released as they are; a budget they miss gets noise', async () => {
    const { drawWindows } = await import('../src/release/windows.js');
    const P = [
      [0.3, 0.7],
      [0.3, 0.7],
    ];
    // Independent steps: the secret's window count is 1[X_i = b] + Bin(3, 0.7), the other windows do
    // not depend on X_i, so the joint D_{1/2} is the shifted binomials' own, computed here directly.
    const bin = [0.027, 0.189, 0.441, 0.343];
    const affinity = bin.slice(0, 3).reduce((s, p, k) => s + Math.sqrt(p * bin[k + 1]), 0);
    const truth = -2 * Math.log(affinity);
    for (const method of ['boundary-coupled', 'best'] as const) {
      const r = calibrateWindows(model(P, 12, 'b'), [4, 4, 4], { mechanism: FAMILY_OF.default, method, alpha: 0.5, epsilon: 1 });
      expect(r.scale).toBe(0);
      expect(r.explanation).toContain('no noise is needed');
      // The bound at no noise, printed rounded up: the independent D_{1/2} within its last digit.
      const printed = Number(/\(([\d.]+) ≤ 1\): no noise is needed/.exec(r.explanation)![1]);
      expect(printed).toBeGreaterThanOrEqual(truth * (1 - 1e-9));
      expect(printed - truth).toBeLessThan(2e-6);
    }
    // Below the data's own divergence no bound can drop the noise.
    const tight = calibrateWindows(model(P, 12, 'b'), [4, 4, 4], { mechanism: FAMILY_OF.default, method: 'best', alpha: 0.5, epsilon: truth * 0.99 });
    expect(tight.scale).toBeGreaterThan(0);
    // The CLI publishes counts without noise only on request, as any release.
    const { writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const series = join(mkdtempSync(join(tmpdir(), 'pufferfish-zero-')), 'seq.csv');
    writeFileSync(series, 't,w\n1,a\n2,b\n3,b\n4,a\n5,a\n6,b\n7,a\n8,b\n');
    const args = [
      'release',
      '--data',
      series,
      '--sequence',
      'w',
      '--order-by',
      't',
      '--query',
      'count:b',
      '--window',
      '2',
      '--alpha',
      '0.5',
      '--epsilon',
      '20',
    ];
    const refused = await inProcess(...args);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^error: --allow-no-noise: the calibrated scale is 0/);
    const raw = await inProcess(...args, '--allow-no-noise', '--json');
    expect(raw.status, raw.stderr).toBe(0);
    expect(JSON.parse(raw.stdout).releases.map((x: { value: number }) => x.value)).toEqual([1, 1, 1, 1]);
    // The api refuses as the CLI does (the page asks before it publishes exactly).
    const { releaseWindows } = await import('../src/release/windows.js');
    const zero = { mechanism: FAMILY_OF.default, method: 'best' as const, alpha: 0.5, epsilon: 20 };
    expect(() => releaseWindows(model(P, 12, 'b'), [4, 4, 4], [1, 2, 1], zero)).toThrow(expect.objectContaining({ path: 'allow-no-noise' }));
    expect(releaseWindows(model(P, 12, 'b'), [4, 4, 4], [1, 2, 1], zero, { allowNoNoise: true }).values).toEqual([1, 2, 1]);
    const d = drawWindows([3, 1], FAMILY_OF.default, 0, { allowNoNoise: true });
    expect(d.values).toEqual([3, 1]);
    expect(d.intervals).toEqual([
      [3, 3],
      [1, 1],
    ]);
  });
  it('a chain with independent steps (identical rows): the coupled pair meets at once, so every layout needs the one-step shift', () => {
    const P = [
      [0.3, 0.7],
      [0.3, 0.7],
    ];
    const s = { mechanism: FAMILY_OF.default, method: 'path-coupled' as const, alpha: 2, epsilon: 1 };
    const scales = [[12], [6, 6], [4, 4, 4], [1, 11]].map((lengths) => calibrateWindows(model(P, 12, 'b'), lengths, s).scale!);
    // The smallest b with ρ(1) ≤ ε, to the bisection's 10⁻⁶.
    const rho = (b: number) => mechanismDef(FAMILY_OF.default).pointDivergence(1, b, 2, noiseOptions({}));
    for (const b of scales) {
      expect(rho(b).value + rho(b).error).toBeLessThanOrEqual(1 + 1e-9);
      expect(rho(b / (1 + 2e-6)).value).toBeGreaterThan(1);
      expect(b / scales[0]).toBeCloseTo(1, 5);
    }
  });

  it('an (ε, δ) target goes through the best order: the converted level at the scale found is within ε', async () => {
    const { windowsExponent } = await import('../src/calibrate/windows.js');
    const { rdpToDpSharp } = await import('../src/audit/conversion.js');
    const m = model(
      [
        [0.8, 0.2],
        [0.3, 0.7],
      ],
      12,
      'b',
    );
    const r = calibrateWindows(m, [6, 6], { mechanism: FAMILY_OF.default, method: 'path-coupled', alpha: Infinity, epsilon: 2, delta: 1e-3 });
    expect(r.target).toEqual({ epsilon: 2, delta: 1e-3 });
    const D =
      windowsExponent(m, [6, 6], r.alpha, [
        { mechanism: FAMILY_OF.default, scale: r.scale! },
        { mechanism: FAMILY_OF.default, scale: r.scale! },
      ]).exponent /
      (r.alpha - 1);
    expect(rdpToDpSharp(D, r.alpha, 1e-3)).toBeLessThanOrEqual(2);
    // The pure methods meet (ε, δ) at their ε-Pufferfish scale.
    expect(calibrateWindows(m, [6, 6], { mechanism: FAMILY_OF.default, method: 'group-dp', alpha: Infinity, epsilon: 2, delta: 1e-3 }).scale).toBe(6);
    // With only the first window out, group DP needs the steps of that window alone (6, not 12).
    const first = calibrateWindows(m, [6, 6], { mechanism: FAMILY_OF.default, method: 'group-dp', alpha: 2, epsilon: 2, released: 1 });
    expect(first.scale).toBe(3);
    expect(first.explanation).toMatch(/the 1 released window\(s\) span 6 of the 12 steps/);
    // The account of that one release at that scale reads the same level, ε = 2.
    const { accountWindows } = await import('../src/account/windows.js');
    const { windowScenario } = await import('../src/markov/windowScenario.js');
    const level = accountWindows(windowScenario(m, [6, 6], 'm'), [{ mechanism: FAMILY_OF.default, scale: 3 }], { alphas: [Infinity] }).rows[0].divergence;
    expect(level / 2).toBeCloseTo(1, 12);
  });

  it('windows must tile the series', () => {
    expect(() => checkWindows([3, 3], 7)).toThrow(/cover 6 steps but the series has 7/);
    expect(() => checkWindows([0, 7], 7)).toThrow(/whole number of steps ≥ 1/);
  });
});

describe('independent steps and long windows', () => {
  it("the path-coupled bound of a chain with independent steps is one step's shift whatever the windows' length: no rounding charge grows with them", () => {
    const chain = (length: number) =>
      twoStateChain(length, { count: 'b' }, [
        [0.7, 0.3],
        [0.7, 0.3],
      ]);
    const s = { mechanism: 'laplace' as const, method: 'path-coupled' as const, alpha: 2, epsilon: 1 };
    const scales = [5, 10, 30].map((L) => calibrateWindows(chain(2 * L), [L, L], s).scale as number);
    // The conditioned chains meet at once: only the secret's own step moves a count, by 1.
    const shift = (b: number) => mechanismDef('laplace').pointDivergence(1, b, 2, noiseOptions({}));
    for (const b of scales) {
      expect(b / scales[0]).toBeCloseTo(1, 6);
      expect(shift(b).value).toBeLessThanOrEqual(1);
      expect(shift(b * 0.999).value).toBeGreaterThan(1);
    }
  });
});

describe('a window past the series', () => {
  it('the scale a window after the last would need fits the series extended by it, and 1% less does not', async () => {
    const { scaleBeyondSeries } = await import('../src/account/budget.js');
    const { windowScenario } = await import('../src/markov/windowScenario.js');
    const { account } = await import('../src/account/account.js');
    const chain = (length: number) =>
      twoStateChain(length, { count: 'b' }, [
        [0.9, 0.1],
        [0.2, 0.8],
      ]);
    const budget = { alphas: [2], epsilon: 2 };
    const fit = scaleBeyondSeries(
      windowScenario(chain(4), [2, 2], 'toy'),
      [{ mechanism: 'laplace', scale: 4, count: 2 }],
      { mechanism: 'laplace', count: 1 },
      budget,
      2,
    )!;
    expect(fit).toBeGreaterThan(0);
    const longer = windowScenario(chain(6), [2, 2, 2], 'toy');
    const level = (b: number) =>
      account(
        longer,
        [4, 4, b].map((scale) => ({ mechanism: 'laplace' as const, scale })),
        { alphas: [2] },
      ).rows[0].divergence;
    expect(level(fit)).toBeLessThanOrEqual(2);
    expect(level(fit * 0.99)).toBeGreaterThan(2);
  });
});

describe('CLI: --window', () => {
  const base = ['calibrate', '--data', 'test/fixtures/weather/seattle-weather.csv.gz', '--sequence', 'weather', '--order-by', 'date', '--query', 'count:rain'];
  it('a fixed window length and a list; MQM for the vector equals MQM for the whole count', async () => {
    const r = await inProcess(...base, '--length', '60', '--window', '30', '--alpha', 'inf', '--method', 'mqm-exact', '--json');
    expect(r.status).toBe(0);
    const whole = await inProcess(...base, '--length', '60', '--alpha', 'inf', '--method', 'mqm-exact', '--json');
    expect(JSON.parse(r.stdout).results[0].scale).toBe(JSON.parse(whole.stdout).results[0].scale);
  });
  it('states possible at some time are read off the zeros of the chain, never off underflowed marginals', async () => {
    const { neverPossible } = await import('../src/markov/chain.js');
    // c is reached only through two steps of 1e-200 (P(X_3 = c) ≈ 5e-401, below the doubles): still possible; d, never entered, is not.
    const spec = (initial: number[]) =>
      validateSpec({
        states: ['a', 'b', 'c', 'd'],
        chains: [
          {
            name: 'u',
            transition: [
              [0.5, 1e-200, 0, 0.5],
              [1, 0, 1e-200, 0],
              [1, 0, 0, 0],
              [0.5, 0, 0, 0.5],
            ],
            initial,
          },
        ],
        length: 3,
        query: { count: 'a' },
      });
    expect(neverPossible(spec([1, 0, 0, 0]))).toEqual([]);
    expect(neverPossible({ ...spec([1, 0, 0, 0]), length: 2 })).toEqual(['c']);
  });
  it('an eigengap class with windows has secret pairs (its chains may be any): group DP calibrates it', () => {
    const m = validateSpec({ states: ['a', 'b'], eigengap: { gap: 0.5, piMin: 0.2 }, length: 6, query: { count: 'b', windowLength: 3 } });
    expect(calibrateWindows(m, [3, 3], { mechanism: 'laplace', method: 'group-dp', alpha: 2, epsilon: 1 }).scale).toBe(6);
    // The bounds read each chain's kernel: over no chain they would pass any budget (scale 0); they do not apply.
    expect(() => calibrateWindows(m, [3, 3], { mechanism: 'laplace', method: 'path-coupled', alpha: 2, epsilon: 1 })).toThrow(/an eigengap class gives none/);
    const best = calibrateWindows(m, [3, 3], { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1 });
    expect([best.winner, best.scale]).toEqual(['group-dp', 6]);
  });
  it('a spec’s chain says the states no secret names with every method, in the library’s answer, the CLI’s and a release’s guarantee', async () => {
    const spec = {
      name: 'z',
      markov: {
        states: ['a', 'b', 'c'],
        chains: [
          {
            name: 'x',
            transition: [
              [0.8, 0.2, 0],
              [0.3, 0.7, 0],
              [0.5, 0.5, 0],
            ],
            initial: 'stationary',
          },
        ],
        length: 8,
        query: { count: 'b' },
      },
    };
    const { markovScenario } = await import('../src/markov/source.js');
    const { calibrate } = await import('../src/calibrate/calibrate.js');
    const { release } = await import('../src/release/release.js');
    const { scenario } = markovScenario(validateSpec(spec.markov), 'z');
    const said = /State 'c' has probability 0 at every time under the chain: no secret X_i = c is protected/;
    for (const method of ['theorem', 'group-dp', 'best'] as const)
      expect(calibrate(scenario, { mechanism: 'laplace', method: method as 'theorem', alpha: 2, epsilon: 1 }).explanation, method).toMatch(said);
    expect(release(scenario, { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1 }, 3).guarantee).toMatch(said);
    const f = join(mkdtempSync(join(tmpdir(), 'pufferfish-never-')), 'z.json');
    writeFileSync(f, JSON.stringify({ ...spec, mechanism: 'laplace', alpha: 2, epsilon: 1 }));
    const cli = await inProcess('calibrate', '--spec', f, '--method', 'theorem');
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(said);
    // Every state possible: nothing said.
    const { scenario: all } = markovScenario(
      validateSpec({
        ...spec.markov,
        chains: [
          {
            name: 'x',
            transition: [
              [0.8, 0.2, 0],
              [0.3, 0.6, 0.1],
              [0.5, 0.5, 0],
            ],
            initial: 'stationary',
          },
        ],
      }),
      'y',
    );
    expect(calibrate(all, { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }).explanation).not.toMatch(/probability 0 at every time/);
  });
  it("says which states no secret names (seen only at the series' start), and that a window's steps are rows, not days", async () => {
    const series = join(mkdtempSync(join(tmpdir(), 'pufferfish-start-')), 'seq.csv');
    // 'x' opens the series and never returns: the fitted chain's stationary start gives it 0 at every time.
    writeFileSync(series, `t,w\n${['x', 'a', 'b', 'b', 'a', 'a', 'b', 'a', 'b'].map((w, i) => `${i + 1},${w}`).join('\n')}\n`);
    const run = (...extra: string[]) => inProcess('calibrate', '--data', series, '--sequence', 'w', '--order-by', 't', '--query', 'count:a', ...extra);
    const whole = await run('--method', 'exact');
    expect(whole.status).toBe(0);
    expect(whole.stdout).toMatch(/state 'x' has probability 0 at every time under the chain: no secret X_i = x is protected/i);
    expect(whole.stdout.match(/state 'x' has probability 0/gi)).toHaveLength(1); // said once, by the calibration
    const windows = await run('--window', '3', '--method', 'path-coupled');
    expect(windows.status).toBe(0);
    expect(windows.stdout).toMatch(/state 'x' has probability 0 at every time/);
    expect(windows.stdout).toMatch(/a window's steps are rows taken in the order of 't'/);
    // The data's own first step is in that state: its window is outside every chain of the class, and is not released.
    const released = await inProcess(
      'release',
      '--data',
      series,
      '--sequence',
      'w',
      '--order-by',
      't',
      '--query',
      'count:a',
      '--window',
      '3',
      '--method',
      'path-coupled',
    );
    expect(released.status).toBe(2);
    expect(released.stderr).toMatch(
      /^error: --data: window 1 \(1–3\) has 1 step\(s\) in a state the chain does not have or gives probability 0 at every time \('x'\)/,
    );
    // Every state possible: no such sentence.
    expect((await inProcess(...base, '--length', '60', '--window', '30', '--method', 'path-coupled')).stdout).not.toMatch(/probability 0 at every time/);
  });
  it.each([
    [['--length', '60', '--window', '7'], /--window: windows of 7 steps do not tile the series of 60/],
    [['--length', '60', '--window', '20,20'], /--window: the windows cover 40 steps but the series has 60/],
    [['--length', '60', '--window', '61'], /--window: /],
    [['--length', '60', '--window', 'x'], /--window: /],
  ])('%j exits 2 naming --window', async (args, message) => {
    const r = await inProcess(...base, ...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
  });
  it.each([
    ['calibrate'],
    ['release'],
    ['audit', '--scale', '2'],
    ['ledger', 'init', '--ledger', join(tmpdir(), `pf-w-${process.pid}.ledger`), '--epsilon', '1', '--alpha', '2'],
  ])('%s: a histogram with --window exits 2 naming --query (one value per window); a sum is taken', async (...command) => {
    const r = await inProcess(...command, ...base.slice(1, 7), '--query', 'histogram', '--length', '60', '--window', 'month');
    expect(r.status, `${command.join(' ')}: ${r.stderr}`).toBe(2);
    expect(r.stderr).toMatch(
      /^error: --query: takes count:STATE or sum:STATE=V,… with --window \(one value per window\); histograms per window are not available/,
    );
    const sum = await inProcess(
      ...command.map((x) => x.replace('.ledger', '-sum.ledger')),
      ...base.slice(1, 7),
      '--query',
      'sum:rain=1,sun=2',
      '--length',
      '60',
      '--window',
      'month',
      ...(command[0] === 'audit' || command[0] === 'ledger' ? [] : ['--method', 'path-coupled']),
    );
    // (An audit exits 1 where its scale is over ε: an answer, not a refusal.)
    expect(sum.status, `${command.join(' ')}: ${sum.stderr}`).toBe(command[0] === 'audit' ? 1 : 0);
  });
  it('release --window at an (ε, δ) target: the scale calibrate --window --delta gives, the guarantee says so; a ledger keeps its own budget', async () => {
    const args = [...base.slice(1), '--length', '60', '--window', 'month', '--epsilon', '1', '--delta', '1e-6', '--method', 'path-coupled'];
    const cal = await inProcess('calibrate', ...args, '--json');
    expect(cal.status, cal.stderr).toBe(0);
    const rel = await inProcess('release', ...args, '--json');
    expect(rel.status, rel.stderr).toBe(0);
    const c = JSON.parse(rel.stdout).calibration;
    expect(c.scale).toBe(JSON.parse(cal.stdout).results[0].scale);
    expect(c.target).toEqual({ epsilon: 1, delta: 1e-6 });
    expect(c.epsilon).toBeLessThan(1);
    // --alpha lists the orders searched, in the release as in the calibration.
    const orders = ['--alpha', '16,32'];
    const listed = JSON.parse((await inProcess('release', ...args, ...orders, '--json')).stdout).calibration;
    expect(listed.scale).toBe(JSON.parse((await inProcess('calibrate', ...args, ...orders, '--json')).stdout).results[0].scale);
    expect([16, 32]).toContain(listed.alpha);
    // Orders that leave no budget: the method does not apply, said by name (exit 2), as in the calibration.
    const none = await inProcess('release', ...args, '--alpha', '2,4');
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/^error: --method: path-coupled does not apply: no order in \{2, 4\} leaves a Rényi budget/);
    const text = await inProcess('release', ...args);
    expect(text.stdout).toMatch(
      /\(ε=1, δ=0\.000001\)-Pufferfish through α = \d+ \(Rényi budget 0\.\d+\) for every X_i = a, the 2 released window\(s\) together/,
    );
    const L = join(mkdtempSync(join(tmpdir(), 'pf-w-delta-')), 'series.ledger');
    expect(
      (await inProcess('ledger', 'init', '--ledger', L, ...base.slice(1), '--length', '60', '--window', 'month', '--alpha', '2', '--epsilon', '1')).status,
    ).toBe(0);
    // MQM and group DP are ε-Pufferfish of the whole vector: with a large δ a finite order's Rényi budget
    // (above ε) gives less noise, as for the whole count (the same scale: the vector moves as the count does).
    for (const method of ['mqm-exact', 'group-dp']) {
      const large = ['--epsilon', '0.05', '--delta', '0.1', '--method', method, '--json'];
      const vector = JSON.parse((await inProcess('calibrate', ...base.slice(1), '--length', '60', '--window', 'month', ...large)).stdout).results[0];
      const whole = JSON.parse((await inProcess('calibrate', ...base.slice(1), '--length', '60', ...large)).stdout).results[0];
      expect(vector.scale, method).toBe(whole.scale);
      expect(vector.alpha, method).toBe(whole.alpha);
      expect(vector.alpha, method).not.toBe('inf');
    }
    const withLedger = await inProcess('release', ...args, '--ledger', L);
    expect(withLedger.status).toBe(2);
    expect(withLedger.stderr).toMatch(/^error: --delta: is not taken with --ledger: the ledger's budget applies/);
  });

  it('month windows are the calendar months of the order column; a gap in the dates is refused', async () => {
    const r = await inProcess(...base, '--length', '365', '--window', 'month', '--method', 'mqm-exact', '--json');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).windows.lengths).toEqual([31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 30]);
    expect(() => monthWindows(['2015-01-01', '2015-01-03'], 2)).toThrow(/2015-01-01 is followed by 2015-01-03/);
    expect(() => monthWindows(['2015-01-01', '2015-01-01'], 2)).toThrow(/a gap or a repeated date/);
    expect(monthWindows(['2015-01-31', '2015-02-01', '2015-02-02'], 3)).toEqual([1, 2]);
  });
  it('a series starts at --start: its calendar is known before its rows are in the table, the rows present must be its days', async () => {
    const { calendarDays, seriesWindows } = await import('../src/markov/calendar.js');
    expect(calendarDays('2016-02-28', 3)).toEqual(['2016-02-28', '2016-02-29', '2016-03-01']);
    expect(() => calendarDays('2015-02-29', 3)).toThrow(/need dates YYYY-MM-DD in the order column; got '2015-02-29'/);
    // No row yet: the calendar from --start alone.
    expect(await seriesWindows('month', 59, () => [], '2015-01-01')).toEqual({ lengths: [31, 28], labels: ['2015-01', '2015-02'], firstDay: '2015-01-01' });
    expect(await seriesWindows('month', 40, () => ['2015-01-30'])).toMatchObject({ labels: ['2015-01 (2 of 31 days)', '2015-02', '2015-03 (10 of 31 days)'] });
    await expect(seriesWindows('month', 59, () => ['2015-01-02'], '2015-01-01')).rejects.toThrow(
      /the series starts on 2015-01-01 but its first row is 2015-01-02/,
    );
    await expect(seriesWindows('week', 14, () => [])).rejects.toThrow(/week windows need dates YYYY-MM-DD in the order column; it has none/);
    // The CLI: a series of 2015 in a table of four years; flags that would change nothing, and values the column cannot hold, exit 2.
    const r = await inProcess(...base, '--length', '59', '--window', 'month', '--start', '2015-01-01', '--method', 'mqm-exact', '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).windows.lengths).toEqual([31, 28]);
    const rel = await inProcess('release', ...base.slice(1), '--length', '59', '--window', 'month', '--start', '2015-01-01', '--method', 'mqm-exact', '--json');
    expect(rel.status, rel.stderr).toBe(0);
    expect(JSON.parse(rel.stdout).releases.map((x: { window: string }) => x.window)).toEqual(['2015-01', '2015-02']);
    for (const [args, message] of [
      [['--length', '59', '--start', '2015-01-01'], /^error: --start: goes with window counts of a sequence table \(--window\)/],
      [['--length', '62', '--window', '31', '--start', 'soon'], /^error: --start: 'soon' is not a value of the order column 'date'/],
      [['--length', '59', '--window', 'month', '--start', '2015-13-01'], /^error: --start: '2015-13-01' is not a value of the order column 'date'/],
    ] as [string[], RegExp][]) {
      const bad = await inProcess(...base, ...args);
      expect(bad.status, bad.stderr).toBe(2);
      expect(bad.stderr).toMatch(message);
    }
  });
  it('week windows run Monday to Sunday (ISO 8601), the first and last partial; each is labelled by its first date', async () => {
    // Seattle's series starts on Sunday 2012-01-01: a first week of one day, then 52 full weeks.
    const r = await inProcess(...base, '--length', '365', '--window', 'week', '--method', 'mqm-exact', '--json');
    expect(r.status, r.stderr).toBe(0);
    const w = JSON.parse(r.stdout).windows;
    expect(w.lengths).toEqual([1, ...Array(52).fill(7)]);
    expect(monthWindows(['2015-01-03', '2015-01-04', '2015-01-05', '2015-01-06'], 4, 'week')).toEqual([2, 2]);
    // A calendar window held only in part says so: its count is not the whole week's or month's.
    expect(windowLabels('week', [2, 2], ['2015-01-03', '2015-01-04', '2015-01-05', '2015-01-06'])).toEqual([
      '2015-01-03 (2 of 7 days)',
      '2015-01-05 (2 of 7 days)',
    ]);
    expect(windowLabels('month', [2, 2], ['2015-01-30', '2015-01-31', '2015-02-01', '2015-02-02'])).toEqual([
      '2015-01 (2 of 31 days)',
      '2015-02 (2 of 28 days)',
    ]);
    expect(windowLabels('month', [29, 1], [...Array.from({ length: 29 }, (_, k) => `2012-02-${String(k + 1).padStart(2, '0')}`), '2012-03-01'])).toEqual([
      '2012-02',
      '2012-03 (1 of 31 days)',
    ]);
    expect(windowLabels('2', [2, 2], [])).toEqual(['1–2', '3–4']);
  });
  it('--windows-released K bounds only the first K windows: never more noise than all of them', async () => {
    const all = JSON.parse((await inProcess(...base, '--length', '60', '--window', '30', '--method', 'path-coupled', '--json')).stdout).results[0].scale;
    const first = JSON.parse(
      (await inProcess(...base, '--length', '60', '--window', '30', '--windows-released', '1', '--method', 'path-coupled', '--json')).stdout,
    ).results[0].scale;
    expect(first).toBeLessThanOrEqual(all);
  });
  it("a sum of whole-number values per state, per window: the engine's sums, the laws' bounds, and a spec alike; decimals and histograms refused", async () => {
    const { windowsFromTable } = await import('../src/api/table.js');
    const values: Record<string, number> = { rain: 2, drizzle: 1, snow: 3 };
    const w = await windowsFromTable('test/fixtures/weather/seattle-weather.csv.gz', {
      sequence: 'weather',
      orderBy: 'date',
      query: 'sum:rain=2,drizzle=1,snow=3',
      window: 'month',
      length: 90,
    });
    // Each month's sum from the file itself, row by row.
    const rows = gunzipSync(readFileSync('test/fixtures/weather/seattle-weather.csv.gz'))
      .toString('utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','))
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .slice(0, 90);
    const months = new Map<string, number>();
    for (const r of rows) months.set(r[0].slice(0, 7), (months.get(r[0].slice(0, 7)) ?? 0) + (values[r[5]] ?? 0));
    expect(await w.counts()).toEqual([...months.values()]);
    // The calibration of the sums: never below the laws' own need, and more than the counts' (values up to 3).
    const s = { mechanism: 'laplace' as Mechanism, method: 'path-coupled' as const, alpha: 2, epsilon: 1 };
    const sums = calibrateWindows(w.model, w.lengths, s).scale!;
    const count = await windowsFromTable('test/fixtures/weather/seattle-weather.csv.gz', {
      sequence: 'weather',
      orderBy: 'date',
      query: 'count:rain',
      window: 'month',
      length: 90,
    });
    expect(sums).toBeGreaterThan(calibrateWindows(count.model, count.lengths, s).scale!);
    // The same chain and query as a spec: the same scale.
    const spec = validateSpec({
      ...JSON.parse(
        JSON.stringify({
          states: w.model.states,
          chains: w.model.chains.map((c) => ({ name: c.name, transition: c.transition, initial: (c.initial as { law: number[] }).law })),
        }),
      ),
      length: 90,
      query: { sum: values, windows: w.lengths },
    });
    expect(calibrateWindows(spec, w.lengths, s).scale).toBe(sums);
    // The page reads the same sums from the table in memory.
    const { textWindowCounts } = await import('../src/sources/chainCounts.js');
    const text = { columns: ['date', 'precipitation', 'temp_max', 'temp_min', 'wind', 'weather'], rows: rows.map((r) => r.map(String)) };
    const f = w.model.states.map((x) => values[x] ?? 0);
    expect(textWindowCounts(text, { sequence: 'weather', orderBy: 'date' }, w.model.states, f, w.lengths).counts).toEqual(await w.counts());
    const ledger = join(mkdtempSync(join(tmpdir(), 'pf-w-sum-')), 'series.ledger');
    const init = await inProcess(
      'ledger',
      'init',
      '--ledger',
      ledger,
      ...base.slice(1, 7),
      '--query',
      'sum:rain=2.5',
      '--window',
      '30',
      '--length',
      '60',
      '--alpha',
      '2',
      '--epsilon',
      '1',
    );
    expect(init.stderr).toMatch(/^error: --query: a window sum takes whole-number values/);
    for (const [query, message] of [
      ['sum:rain=2.5', /--query: a window sum takes whole-number values per state .*'rain' has 2.5/],
      ['histogram', /--query: .*histograms per window are not available/],
    ] as [string, RegExp][]) {
      const bad = await inProcess(...base.slice(0, 7), '--length', '60', '--window', '30', '--query', query);
      expect(bad.status, bad.stderr).toBe(2);
      expect(bad.stderr).toMatch(message);
    }
    // A spec's window sum is refused naming its own field.
    const file = join(mkdtempSync(join(tmpdir(), 'pf-w-sum-')), 'spec.json');
    writeFileSync(
      file,
      JSON.stringify({
        epsilon: 1,
        alpha: 2,
        markov: {
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
          states: ['a', 'b'],
          length: 4,
          query: { sum: { a: 0, b: 2.5 }, windowLength: 2 },
        },
      }),
    );
    const fromSpec = await inProcess('calibrate', '--spec', file);
    expect(fromSpec.status, fromSpec.stderr).toBe(2);
    expect(fromSpec.stderr).toMatch(/^error: spec\.markov\.query\.sum: a window sum takes whole-number values per state .*'b' has 2\.5/);
    // Group DP's account at α = ∞ reads no table of the values: the spec is taken there, as the table's query is.
    const dp = await inProcess('account', '--spec', file, '--release', 'mechanism=laplace,scale=3', '--alpha', 'inf');
    expect(dp.status, dp.stderr).toBe(0);
    expect(dp.stdout).toMatch(/group DP/);
  });
  it("release computes each window's count in the engine and adds noise around it", async () => {
    const { gunzipSync } = await import('node:zlib');
    const { readFileSync } = await import('node:fs');
    const rows = gunzipSync(readFileSync('test/fixtures/weather/seattle-weather.csv.gz'))
      .toString('utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    rows.sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const months = new Map<string, number>();
    for (const r of rows.slice(0, 90)) months.set(r[0].slice(0, 7), (months.get(r[0].slice(0, 7)) ?? 0) + (r[5] === 'rain' ? 1 : 0));
    const { windowCounts } = await import('../src/sources/sequence.js');
    const seen = await windowCounts(
      { kind: 'csv', location: 'test/fixtures/weather/seattle-weather.csv.gz' },
      { sequence: 'weather', orderBy: 'date' },
      ['drizzle', 'fog', 'rain', 'snow', 'sun'],
      [0, 0, 1, 0, 0],
      [31, 29, 30],
    );
    expect(seen).toEqual({ counts: [...months.values()], steps: [31, 29, 30], unknown: [0, 0, 0], foreign: { steps: [0, 0, 0], first: [null, null, null] } });
    const counts = seen.counts;
    const r = await inProcess(
      'release',
      ...base.slice(1),
      '--length',
      '365',
      '--window',
      'month',
      '--windows-released',
      '3',
      '--method',
      'mqm-exact',
      '--json',
    );
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.releases.map((x: { window: string }) => x.window)).toEqual(['2012-01', '2012-02', '2012-03']);
    for (const x of out.releases) expect(x.interval[1] - x.interval[0]).toBeCloseTo(2 * out.halfWidth, 9);
    // Seeded draws average within 4 standard errors of the true counts.
    const t = await transitionCounts({ kind: 'csv', location: 'test/fixtures/weather/seattle-weather.csv.gz' }, { sequence: 'weather', orderBy: 'date' });
    const { model: m } = sequenceChain(t, { query: { count: 'rain' }, length: 90 });
    const { releaseWindows } = await import('../src/release/windows.js');
    const { seededSource } = await import('./seeded.js');
    const random = seededSource(5n);
    const sums = [0, 0, 0];
    const n = 400;
    let scale = 0;
    for (let k = 0; k < n; k++) {
      const rel = releaseWindows(m, [31, 29, 30], counts, { mechanism: FAMILY_OF.default, method: 'group-dp', alpha: 2, epsilon: 1 }, { random });
      rel.values.forEach((v, i) => {
        sums[i] += v;
      });
      scale = rel.scale;
    }
    for (const [i, s] of sums.entries()) expect(Math.abs(s / n - counts[i])).toBeLessThan((4 * Math.SQRT2 * scale) / Math.sqrt(n));
  });
  it("a window the table does not cover whole is not released (its count so far is not the window's), in a ledger neither, which stays as it was", async () => {
    const { mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'pufferfish-open-'));
    // 25 days of a two-state series: windows of 10 over 30 steps close two.
    const series = join(dir, 'days.csv');
    writeFileSync(series, `day,w\n${Array.from({ length: 25 }, (_, k) => `${k + 1},${(k * 7) % 3 === 0 ? 'rain' : 'sun'}`).join('\n')}\n`);
    const args = [
      '--data',
      series,
      '--sequence',
      'w',
      '--order-by',
      'day',
      '--query',
      'count:rain',
      '--length',
      '30',
      '--window',
      '10',
      '--method',
      'group-dp',
    ];
    const r = await inProcess('release', ...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /--windows-released: window 3 \(21–30\) has 5 of its 10 steps in the table: it is not closed; release the 2 closed window\(s\) \(--windows-released 2\)/,
    );
    const two = await inProcess('release', ...args, '--windows-released', '2', '--json');
    expect(two.status, two.stderr).toBe(0);
    expect(JSON.parse(two.stdout).releases).toHaveLength(2);
    const ledger = join(dir, 'days.ledger');
    const series3 = args.filter((a) => a !== '--method' && a !== 'group-dp');
    const init = await inProcess('ledger', 'init', '--ledger', ledger, ...series3, '--alpha', '2', '--epsilon', '50');
    expect(init.status, init.stderr).toBe(0);
    for (let k = 0; k < 2; k++) expect((await inProcess('release', ...series3, '--ledger', ledger)).status).toBe(0);
    const before = readFileSync(ledger, 'utf8');
    const third = await inProcess('release', ...series3, '--ledger', ledger);
    expect(third.status).toBe(2);
    expect(third.stderr).toMatch(/--ledger: window 3 \(21–30\) has 5 of its 10 steps/);
    expect(readFileSync(ledger, 'utf8')).toBe(before);
  });
  it('a ledger of the series: each window once, in order, accounted together; a release that would exceed the budget is refused with the scale that fits', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const ledger = join(mkdtempSync(join(tmpdir(), 'pufferfish-win-')), 'months.ledger');
    const series = [...base.slice(1), '--length', '60', '--window', '30'];
    const inf = await inProcess('ledger', 'init', '--ledger', `${ledger}.inf`, ...series, '--alpha', '2,inf', '--epsilon', '1');
    expect(inf.status).toBe(2);
    expect(inf.stderr).toMatch(/--alpha: a series' window ledger holds at finite orders/);
    expect((await inProcess('ledger', 'init', '--ledger', ledger, ...series, '--alpha', '2', '--epsilon', '1')).status).toBe(0);
    const first = await inProcess('release', ...series, '--ledger', ledger, '--json');
    expect(first.status).toBe(0);
    const one = JSON.parse(first.stdout);
    expect(one.release.index).toBe(1);
    expect(one.ledger.level).toBeLessThanOrEqual(1);
    // Too little noise for the second window: refused, naming the scale that fits; nothing recorded.
    const refused = await inProcess('release', ...series, '--ledger', ledger, '--scale', '1');
    expect(refused.status).toBe(2);
    const fit = Number(/release with --scale ([0-9.e+-]+)/.exec(refused.stderr)![1]);
    expect(fit).toBeGreaterThan(1);
    const second = await inProcess('release', ...series, '--ledger', ledger, '--scale', String(fit), '--json');
    expect(second.status).toBe(0);
    const two = JSON.parse(second.stdout);
    expect(two.release.index).toBe(2);
    expect(two.ledger.level).toBeLessThanOrEqual(1);
    // The joint level is the boundary-coupled bound over both windows at their scales (every pair refined).
    const t = await transitionCounts({ kind: 'csv', location: 'test/fixtures/weather/seattle-weather.csv.gz' }, { sequence: 'weather', orderBy: 'date' });
    const { model: m } = sequenceChain(t, { query: { count: 'rain' }, length: 60 });
    const { windowsExponent } = await import('../src/calibrate/windows.js');
    const joint = windowsExponent(
      m,
      [30, 30],
      2,
      [
        { mechanism: FAMILY_OF.default, scale: JSON.parse(first.stdout).scale },
        { mechanism: FAMILY_OF.default, scale: fit },
      ],
      {},
    ).exponent;
    expect(two.ledger.level).toBeCloseTo(joint, 12);
    const third = await inProcess('release', ...series, '--ledger', ledger);
    expect(third.status).toBe(2);
    expect(third.stderr).toMatch(/--ledger: all 2 windows of the series are recorded/);
    // The window past the series' last: the budget is spent (window 2 took the smallest scale that
    // fits), and the account of the series extended by it says no further release fits either.
    expect(third.stderr).toMatch(/no laplace scale would let a window 3 of 30 steps fit this budget/);
    const longer = await inProcess(
      'account',
      ...base.slice(1),
      ...['--length', '90', '--window', '30', '--alpha', '2', '--epsilon', '1'],
      ...['--release', `mechanism=laplace,scale=${one.scale}`, '--release', `mechanism=laplace,scale=${fit}`, '--next', 'laplace'],
    );
    expect(longer.status).toBe(2);
    expect(longer.stderr).toMatch(/^error: --next: no scale of laplace noise/);
    // A release bound to window 2 while the ledger has moved on is refused, never misfiled.
    const { ledgerStore } = await import('../src/ledger/store.js');
    const { recordRelease } = await import('../src/ledger/ledger.js');
    const { windowScenario } = await import('../src/markov/windowScenario.js');
    const name = `seattle-weather.csv.gz: count:rain per window over weather (T = 60, --window 30)`;
    await expect(
      recordRelease(ledgerStore(ledger), windowScenario(m, [30, 30], name), {
        mechanism: FAMILY_OF.default,
        scale: 50,
        count: 1,
        position: 2,
        query: 'window 2',
      }),
    ).rejects.toThrow(/was to be release 2, but the ledger now has 2/);
    const show = await inProcess('ledger', 'check', '--ledger', ledger, ...series);
    expect(show.status).toBe(0);
    // No naive sum is computed for windows: said as '—', never a NaN.
    const listed = await inProcess('ledger', 'show', '--ledger', ledger, ...series);
    expect(listed.stdout).toMatch(/boundary-coupled/);
    expect(listed.stdout).not.toMatch(/NaN/);
    // account reads the same ledger: both windows out, no third to plan.
    const acc = await inProcess('account', '--ledger', ledger, ...series, '--json');
    expect(acc.status).toBe(0);
    expect(JSON.parse(acc.stdout).rows[0].divergence).toBeCloseTo(joint, 12);
    const next = await inProcess('account', '--ledger', ledger, ...series, '--next', FAMILY_OF.default);
    expect(next.status).toBe(2);
    expect(next.stderr).toMatch(
      /^error: --ledger: all 2 windows of the series are recorded in this ledger: no laplace scale would let a window 3 of 30 steps fit/,
    );
    // Another series (another window layout) is not this ledger's: the series it recorded names the windows.
    const other = await inProcess('release', ...base.slice(1), '--length', '60', '--window', '20', '--ledger', ledger);
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(/^error: --window: is "20", but this ledger's series was opened with "30"/);
  });
  it("released as they happen: a series' ledger opened on a table keeps its chain; each window is read from the rows that arrive later, checked against its calendar", async () => {
    const { mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
    const { gunzipSync } = await import('node:zlib');
    const dir = mkdtempSync(join(tmpdir(), 'pufferfish-grow-'));
    const lines = gunzipSync(readFileSync('test/fixtures/weather/seattle-weather.csv.gz')).toString('utf8').trim().split('\n');
    const [head, rows] = [lines[0], lines.slice(1)];
    const upTo = (day: string) => rows.filter((r) => r.slice(0, 10) < day);
    const table = join(dir, 'seattle.csv');
    const write = (rs: string[]) => writeFileSync(table, `${head}\n${rs.join('\n')}\n`);
    // The history (2012–2014) is in the table; the series is January and February 2015, not yet.
    write(upTo('2015-01-01'));
    const series = ['--data', table, '--sequence', 'weather', '--order-by', 'date', '--query', 'count:rain', '--length', '59', '--window', 'month'];
    const at = [...series, '--start', '2015-01-01'];
    const ledger = join(dir, 'months.ledger');
    const init = await inProcess('ledger', 'init', '--ledger', ledger, ...at, '--alpha', '2', '--epsilon', '1');
    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).toMatch(
      /series: the chain estimated from the table's 1096 rows when the ledger was opened, 2 windows \(2015-01 … 2015-02\) and the series' start \(2015-01-01\)/,
    );
    // Nothing of January yet: refused at once, the ledger as it was.
    const before = readFileSync(ledger);
    const early = await inProcess('release', ...at, '--ledger', ledger);
    expect(early.status).toBe(2);
    expect(early.stderr).toMatch(
      /^error: --ledger: window 1 \(2015-01\) has 0 of its 31 steps in the table: it is not closed; release it once all its rows are in the table/,
    );
    expect(readFileSync(ledger).equals(before)).toBe(true);
    // January arrives (and changes the table's chain): released under the chain recorded at init.
    write(upTo('2015-02-01'));
    const jan = await inProcess('release', ...at, '--ledger', ledger, '--json');
    expect(jan.status, jan.stderr).toBe(0);
    const one = JSON.parse(jan.stdout);
    expect(one.release).toMatchObject({ window: '2015-01', index: 1 });
    expect(one.ledger.chain).toBe('recorded');
    const source = { kind: 'csv' as const, location: table };
    const q = { sequence: 'weather', orderBy: 'date' };
    writeFileSync(join(dir, 'then.csv'), `${head}\n${upTo('2015-01-01').join('\n')}\n`);
    const then = sequenceChain(await transitionCounts({ kind: 'csv', location: join(dir, 'then.csv') }, q), { query: { count: 'rain' }, length: 59 }).model;
    const now = sequenceChain(await transitionCounts(source, q), { query: { count: 'rain' }, length: 59 }).model;
    expect(now.chains[0].transition).not.toEqual(then.chains[0].transition);
    const { windowsExponent } = await import('../src/calibrate/windows.js');
    const level = (m: MarkovModel) => windowsExponent(m, [31, 28], 2, [{ mechanism: FAMILY_OF.default, scale: one.scale }], {}).exponent;
    expect(one.ledger.level).toBeCloseTo(level(then), 12);
    expect(Math.abs(one.ledger.level - level(now))).toBeGreaterThan(1e-9);
    // The count is January 2015's, read from the rows at --start.
    const { windowCounts } = await import('../src/sources/sequence.js');
    const rainy = rows.filter((r) => r.startsWith('2015-01') && r.endsWith(',rain')).length;
    expect((await windowCounts(source, q, ['rain', 'sun', 'drizzle', 'snow', 'fog'], [1, 0, 0, 0, 0], [31], '2015-01-01')).counts).toEqual([rainy]);
    // Another start, window or query than the recorded series': refused by name.
    const moved = await inProcess('release', ...series, '--start', '2015-02-01', '--ledger', ledger);
    expect(moved.status).toBe(2);
    expect(moved.stderr).toMatch(/^error: --start: is "2015-02-01", but this ledger's series was opened with "2015-01-01"/);
    // February with a day missing: the calendar is checked, nothing recorded.
    write([...upTo('2015-02-10'), ...rows.filter((r) => r.slice(0, 10) > '2015-02-10' && r.slice(0, 10) < '2015-03-01')]);
    const gap = await inProcess('release', ...series, '--ledger', ledger);
    expect(gap.status).toBe(2);
    expect(gap.stderr).toMatch(/^error: --window: month windows need one row per day: 2015-02-09 is followed by 2015-02-11/);
    write(upTo('2015-03-01'));
    const feb = await inProcess('release', ...series, '--ledger', ledger, '--json');
    expect(feb.status, feb.stderr).toBe(0);
    expect(JSON.parse(feb.stdout).release).toMatchObject({ window: '2015-02', index: 2 });
    // show and check read the recorded chain: the levels recompute on the grown table.
    const check = await inProcess('ledger', 'check', '--ledger', ledger, ...series);
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect((await inProcess('ledger', 'show', '--ledger', ledger)).stdout).toMatch(/^series: the chain estimated from the table's 1096 rows/m);
    expect(JSON.parse((await inProcess('ledger', 'show', '--ledger', ledger, '--json')).stdout).series).toEqual({
      sequence: 'weather',
      orderBy: 'date',
      query: 'count:rain',
      window: 'month',
      start: '2015-01-01',
      rows: 1096,
      windows: ['2015-01', '2015-02'],
    });
  });
  it("a series' ledger of window lengths: rows added inside windows already out are refused; an older ledger takes no --start; a record whose windows do not follow from its start is refused", async () => {
    const { mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
    const dir = mkdtempSync(join(tmpdir(), 'pufferfish-days-'));
    const table = join(dir, 'days.csv');
    const state = (d: number) => ((d * 7) % 5 < 2 ? 'rain' : 'sun');
    const write = (days: number[]) => writeFileSync(table, `day,w\n${days.map((d) => `${d},${state(d)}`).join('\n')}\n`);
    const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, k) => a + k);
    write(range(1, 100));
    const series = ['--data', table, '--sequence', 'w', '--order-by', 'day', '--query', 'count:rain', '--window', '10'];
    const noLength = await inProcess('calibrate', ...series, '--start', '101');
    expect(noLength.status).toBe(2);
    expect(noLength.stderr).toMatch(/^error: --length: is required with a start \(--start\)/);
    const ledger = join(dir, 'days.ledger');
    expect(
      (await inProcess('ledger', 'init', '--ledger', ledger, ...series, '--length', '30', '--start', '101', '--alpha', '2', '--epsilon', '30')).status,
    ).toBe(0);
    // Day 106 is missing when the first window is released: it holds days 101–105 and 107–111.
    write([...range(1, 105), ...range(107, 121)]);
    const first = await inProcess('release', ...series, '--ledger', ledger, '--json');
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse((await inProcess('ledger', 'show', '--ledger', ledger, '--json')).stdout).releases[0].query).toBe('window 1 of 3 (1–10; 101 … 111)');
    // Day 106 arrives late: window 2 would start at 111, released already; refused, the ledger as it was.
    write(range(1, 121));
    const before = readFileSync(ledger);
    const late = await inProcess('release', ...series, '--ledger', ledger);
    expect(late.status).toBe(2);
    expect(late.stderr).toMatch(/^error: --data: window 1 was released as the rows 101 … 111, but the table now has 101 … 110 there/);
    expect(readFileSync(ledger).equals(before)).toBe(true);
    // ledger check with the table says so too.
    const checkMoved = await inProcess('ledger', 'check', '--ledger', ledger, ...series);
    expect(checkMoved.status).toBe(1);
    expect(checkMoved.stdout).toMatch(/window 1 was released as the rows 101 … 111, but the table now has 101 … 110 there: rows were added or removed/);
    // A repeated day at a window's end would put it in two windows: refused, whatever the spans show.
    write([...range(1, 105), ...range(107, 111), 111, ...range(112, 125)]);
    const tie = await inProcess('release', ...series, '--ledger', ledger);
    expect(tie.status).toBe(2);
    expect(tie.stderr).toMatch(/^error: --data: the order column repeats '111' within the series/);
    expect(readFileSync(ledger).equals(before)).toBe(true);
    write(range(1, 121));
    // A row changed behind the ledger's back: check lists the problem (exit 1), with the series' flags too.
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const inst = await DuckDBInstance.create(ledger);
    const con = await inst.connect();
    await con.run('UPDATE ledger_releases SET scale = 100');
    con.closeSync();
    inst.closeSync();
    const check = await inProcess('ledger', 'check', '--ledger', ledger, ...series);
    expect(check.status, check.stderr).toBe(1);
    expect(check.stdout).toMatch(/release 1 differs from what was recorded \(digest mismatch\)/);
    // A state the recorded chain does not have is outside the model: refused. A series record
    // changed behind the ledger's back: check lists the problem (exit 1), not a flag's mismatch.
    const fresh = join(dir, 'fresh.ledger');
    write(range(1, 100));
    expect(
      (await inProcess('ledger', 'init', '--ledger', fresh, ...series, '--length', '30', '--start', '101', '--alpha', '2', '--epsilon', '30')).status,
    ).toBe(0);
    writeFileSync(
      table,
      `day,w\n${range(1, 110)
        .map((d) => `${d},${d === 105 ? 'hail' : state(d)}`)
        .join('\n')}\n`,
    );
    const hail = await inProcess('release', ...series, '--ledger', fresh);
    expect(hail.status).toBe(2);
    expect(hail.stderr).toMatch(
      /^error: --data: window 1 \(1–10\) has 1 step\(s\) in a state the chain does not have or gives probability 0 at every time \('hail'\)/,
    );
    const inst2 = await DuckDBInstance.create(fresh);
    const con2 = await inst2.connect();
    await con2.run(`UPDATE ledger_meta SET value = replace(value, '"window":"10"', '"window":"20"') WHERE key = 'series'`);
    con2.closeSync();
    inst2.closeSync();
    write(range(1, 110));
    const damaged = await inProcess('ledger', 'check', '--ledger', fresh, ...series);
    expect(damaged.status, damaged.stderr).toBe(1);
    expect(damaged.stdout).toMatch(/the budget, laws or series entry was changed after the ledger was opened \(digest mismatch\)/);
    // --start is matched exactly on a column of numbers (a date matches its day): epoch milliseconds.
    const ms = join(dir, 'ms.csv');
    writeFileSync(
      ms,
      `t,w\n${range(0, 59)
        .map((k) => `${1420070400000 + 5 * k},${state(k)}`)
        .join('\n')}\n`,
    );
    const byMs = ['--data', ms, '--sequence', 'w', '--order-by', 't', '--query', 'count:rain', '--window', '10', '--length', '20', '--method', 'group-dp'];
    const off = await inProcess('calibrate', ...byMs, '--start', '1420070400001');
    expect(off.status).toBe(2);
    expect(off.stderr).toMatch(/^error: --start: the series starts at '1420070400001' but the first row from there is '1420070400005'/);
    expect((await inProcess('calibrate', ...byMs, '--start', '1420070400005')).status).toBe(0);
    // A ledger from before series were recorded (its laws only): --start would move its windows.
    const { ledgerStore } = await import('../src/ledger/store.js');
    const { initLedger } = await import('../src/ledger/ledger.js');
    const { windowScenario } = await import('../src/markov/windowScenario.js');
    const t = await transitionCounts({ kind: 'csv', location: table }, { sequence: 'w', orderBy: 'day' });
    const { model: m } = sequenceChain(t, { query: { count: 'rain' }, length: 30 });
    const old = join(dir, 'old.ledger');
    await initLedger(ledgerStore(old), windowScenario(m, [10, 10, 10], 'days.csv: count:rain per window over w (T = 30, --window 10)'), {
      alphas: [2],
      epsilon: 30,
    });
    const moved = await inProcess('release', ...series, '--length', '30', '--start', '51', '--ledger', old);
    expect(moved.status).toBe(2);
    expect(moved.stderr).toMatch(
      /^error: --start: is not taken by this ledger: it records no series start \(opened before ledgers kept one, or not on a table\)/,
    );
    // A record whose calendar does not follow from its start is not the one written.
    const { recordedSeries, seriesRecord, lawsDigest } = await import('../src/ledger/identity.js');
    const y = sequenceChain(
      await transitionCounts({ kind: 'csv', location: 'test/fixtures/weather/seattle-weather.csv.gz' }, { sequence: 'weather', orderBy: 'date' }),
      {
        query: { count: 'rain' },
        length: 59,
      },
    );
    const origin = {
      sequence: 'weather',
      orderBy: 'date',
      query: 'count:rain',
      window: 'month',
      start: '2015-01-01',
      prior: null,
      seed: null,
      rows: 1461,
      markov: y.markov,
    };
    const s = windowScenario(y.model, [31, 28], 'months', ['2015-01', '2015-02'], origin);
    const record = seriesRecord(s)!;
    expect(recordedSeries(record, lawsDigest(s)).labels).toEqual(['2015-01', '2015-02']);
    const shifted = JSON.parse(record);
    shifted.origin.start = '2014-01-01';
    expect(() => recordedSeries(JSON.stringify(shifted), lawsDigest(s))).toThrow(/does not give its month windows from its start \(2014-01-01\)/);
    shifted.origin.start = null;
    expect(() => recordedSeries(JSON.stringify(shifted), lawsDigest(s))).toThrow(/does not give its month windows from its start \(none\)/);
  });
  it('a spec gives windows in its chain query: calibrate and audit take it, a loader of one value refuses it', async () => {
    const { writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const markov = {
      states: ['dry', 'wet'],
      chains: [
        {
          name: 'c',
          transition: [
            [0.8, 0.2],
            [0.3, 0.7],
          ],
          initial: 'stationary',
        },
      ],
      length: 12,
      query: { count: 'wet', windows: [5, 7] },
    };
    const file = join(mkdtempSync(join(tmpdir(), 'pufferfish-spec-')), 'windows.json');
    writeFileSync(file, JSON.stringify({ name: 'toy', alpha: 2, epsilon: 1, markov }));
    const r = await inProcess('calibrate', '--spec', file, '--method', 'path-coupled', '--json');
    expect(r.status).toBe(0);
    const m = validateSpec(markov);
    expect(m.windows).toEqual([5, 7]);
    expect(JSON.parse(r.stdout).results[0].scale).toBe(
      calibrateWindows(m, [5, 7], { mechanism: FAMILY_OF.default, method: 'path-coupled', alpha: 2, epsilon: 1 }).scale,
    );
    expect((await inProcess('audit', '--spec', file, '--scale', '3')).status).toBe(0);
    const { loadSpecFile } = await import('../src/spec/loadFile.js');
    expect(() => loadSpecFile(file)).toThrow(/gives windows/);
    expect(() => validateSpec({ ...markov, query: { count: 'wet', windows: [5, 6] } })).toThrow(/cover 11 steps but the chain has 12/);
    expect(() => validateSpec({ ...markov, query: { histogram: true, windowLength: 6 } })).toThrow(/windows take a count or a sum per window/);
  });
  it('audit gives the bound per secret time: passes at the calibrated scale, fails 2% below it, binding where calibrate said', async () => {
    const series = [...base.slice(1), '--length', '60', '--window', '30'];
    const cal = JSON.parse((await inProcess('calibrate', ...series, '--method', 'boundary-coupled', '--json')).stdout).results[0];
    const at = async (scale: number) => inProcess('audit', ...series, '--scale', String(scale), '--json');
    const pass = await at(cal.scale);
    expect(pass.status).toBe(0);
    const row = JSON.parse(pass.stdout).rows[0];
    expect(row.perTime).toHaveLength(60);
    expect(row.binding).toEqual(cal.binding);
    expect(row.bound).toBeLessThanOrEqual(1);
    expect((await at(0.98 * cal.scale)).status).toBe(1);
  });
  it('--window on a table without --sequence exits 2', async () => {
    const r = await inProcess('calibrate', '--data', 'examples/heart.csv', '--query', 'oldpeak', '--secret-column', 'fbs', '--window', '7');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--window: /);
  });

  it('what windows do not take is refused, not dropped: spec keys, --group-by in a release, a day without a state, --windows-released alone', async () => {
    const { writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'pufferfish-win-refuse-'));
    const markov = {
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
      length: 12,
      query: { count: 'b', windowLength: 4 },
    };
    for (const [key, value] of [
      ['releases', 3],
      ['contamination', 0.1],
      ['cost', 'sqrt'],
      ['guarantee', 'mi'],
    ] as const) {
      const f = join(dir, `${key}.json`);
      writeFileSync(f, JSON.stringify({ markov, [key]: value }));
      const r = await inProcess('calibrate', '--spec', f);
      expect(r.status, key).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error: spec\\.${key}: `));
    }
    // A table's options beside a window spec would change nothing: refused on every command that reads it.
    const plain = join(dir, 'plain.json');
    writeFileSync(plain, JSON.stringify({ markov }));
    for (const [cmd, flag, value] of [
      ['calibrate', '--prior', 'dirichlet:5'],
      ['audit', '--pairs', 'a:b'],
      ['calibrate', '--group-by', 'city'],
      ['release', '--secret-column', 'w'],
    ] as const) {
      const r = await inProcess(cmd, '--spec', plain, flag, value, ...(cmd === 'audit' ? ['--scale', '3'] : []));
      expect(r.status, `${cmd} ${flag}`).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error: ${flag}: is not taken with a spec's windows`));
    }
    // Two sequences (by city) would be pooled into one series.
    const cities = join(dir, 'cities.csv');
    writeFileSync(cities, `day,w,city\n${Array.from({ length: 8 }, (_, k) => `${(k >> 1) + 1},${k % 3 ? 'sun' : 'rain'},${k % 2 ? 'x' : 'y'}`).join('\n')}\n`);
    const pooled = await inProcess(
      'release',
      '--data',
      cities,
      '--sequence',
      'w',
      '--order-by',
      'day',
      '--group-by',
      'city',
      '--query',
      'count:rain',
      '--window',
      '2',
      '--length',
      '4',
    );
    expect(pooled.status).toBe(2);
    expect(pooled.stderr).toMatch(/^error: --group-by: /);
    // A day without a state: the window's count is not known.
    const gap = join(dir, 'gap.csv');
    writeFileSync(gap, `day,w\n${Array.from({ length: 8 }, (_, k) => `${k + 1},${k === 5 ? '' : k % 3 ? 'sun' : 'rain'}`).join('\n')}\n`);
    const blind = await inProcess(
      'release',
      '--data',
      gap,
      '--sequence',
      'w',
      '--order-by',
      'day',
      '--query',
      'count:rain',
      '--length',
      '8',
      '--window',
      '4',
      '--method',
      'group-dp',
    );
    expect(blind.status).toBe(2);
    expect(blind.stderr).toMatch(/^error: --windows-released: window 2 \(5–8\) has 1 step\(s\) without a state/);
    const alone = await inProcess(...['calibrate', '--data', gap, '--sequence', 'w', '--order-by', 'day', '--query', 'count:rain', '--windows-released', '1']);
    expect(alone.status).toBe(2);
    expect(alone.stderr).toMatch(/^error: --windows-released: /);
  });

  it('a window calibration reports each scale it tries: a long search is never silent on a pipe', async () => {
    const { spawnSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const args = ['calibrate', '--data', 'test/fixtures/weather/seattle-weather.csv.gz', '--sequence', 'weather', '--order-by', 'date'];
    const run = spawnSync(
      process.execPath,
      [BIN, ...args, '--query', 'count:rain', '--length', '60', '--window', '30', '--method', 'path-coupled', '--alpha', '2'],
      {
        encoding: 'utf8',
        env: { ...process.env, PUFFERFISH_PROGRESS_EVERY_MS: '0' },
      },
    );
    expect(run.status).toBe(0);
    const steps = run.stderr.split('\n').filter((l) => / — path-coupled at α = 2: scale \S+ \(\d+ tried\)$/.test(l));
    expect(steps.length).toBeGreaterThan(2);
    expect(steps[0]).toMatch(/^calibrate: 0\/1 units \(0%\), \d+\.\d s/);
  });

  it("a ledger's plan reports each scale it tries on a pipe (account --next, a window's release), never with --json", async () => {
    const { spawnSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const { mkdtempSync } = await import('node:fs');
    const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const ledger = join(mkdtempSync(join(tmpdir(), 'pufferfish-plan-')), 'months.ledger');
    const series = [...base.slice(1), '--length', '60', '--window', '30'];
    expect((await inProcess('ledger', 'init', '--ledger', ledger, ...series, '--alpha', '2', '--epsilon', '1')).status).toBe(0);
    const env = { ...process.env, PUFFERFISH_PROGRESS_EVERY_MS: '0' };
    for (const args of [
      ['account', '--ledger', ledger, ...series, '--next', 'laplace'],
      ['release', '--ledger', ledger, ...series],
    ]) {
      const run = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env });
      expect(run.status, run.stderr).toBe(0);
      const trials = run.stderr.split('\n').filter((l) => /^plan: \d+ trial\(s\), \d+\.\d s — trial scale \S+$/.test(l));
      expect(trials.length).toBeGreaterThan(2);
      expect(run.stderr).toMatch(/^plan: done in \d+\.\d s$/m);
      const quiet = spawnSync(process.execPath, [BIN, ...args.slice(0, 1), '--json', ...args.slice(1)], { encoding: 'utf8', env });
      expect(quiet.stderr).not.toMatch(/plan:/);
    }
  });

  it('a series the window bounds refuse (size, tiny probabilities) is still accounted by group DP where its level is finite, saying why', async () => {
    const { accountWindows, nextWindowScale } = await import('../src/account/windows.js');
    const { windowScenario } = await import('../src/markov/windowScenario.js');
    const P = [
      [0.9, 0.1],
      [0.2, 0.8],
    ];
    // 3334 windows of 30: 2·T·k²·(2·30 + 1) = 4.9·10⁷ values, past the limit.
    const big = windowScenario(model(P, 100020, 'b'), Array(3334).fill(30), 'big');
    const acc = accountWindows(big, [{ mechanism: FAMILY_OF.default, scale: 30 }], { alphas: [2, 0.5] });
    for (const row of acc.rows) {
      expect(row.method).toBe('group-dp');
      expect(row.divergence / (30 / 30)).toBeCloseTo(1, 12);
    }
    expect(acc.note).toMatch(/do not apply \(the series needs 4\.88e\+7 values, past their limit of 4e\+7\): group DP's level/);
    // Group DP's level is an ε (a D∞ level): (ε′, δ) is that level, not a Rényi conversion of it.
    const withDelta = accountWindows(big, [{ mechanism: FAMILY_OF.default, scale: 30 }], { alphas: [2], delta: 1e-6 }).epsilonDelta!;
    expect(withDelta.epsilon).toBe(acc.rows[0].divergence);
    expect(withDelta.alpha).toBe(Infinity);
    // The next window at group DP's level: 30/30 + 30/b ≤ 2 at b = 30.
    expect(nextWindowScale(big, [{ mechanism: FAMILY_OF.default, scale: 30 }], FAMILY_OF.default, 2, 2)!.scale / 30).toBeCloseTo(1, 5);
    // Gaussian noise has no group-DP level: the refusal stands.
    expect(() => accountWindows(big, [{ mechanism: 'gaussian', scale: 30 }], { alphas: [2] })).toThrow(/more than the limit/);
    // A transition of 10⁻²⁰⁰: the bounds' error proof does not hold; group DP answers.
    const tiny = windowScenario(
      model(
        [
          [1 - 1e-200, 1e-200],
          [0.5, 0.5],
        ],
        8,
        'b',
      ),
      [4, 4],
      'tiny',
    );
    const t = accountWindows(tiny, [{ mechanism: FAMILY_OF.default, scale: 8 }], { alphas: [2] });
    expect(t.rows[0].method).toBe('group-dp');
    expect(t.note).toMatch(/in chain 'c', the initial probability of b is 2\.00e-200, below 2\^−500/);
    // A chain the bounds take has no note.
    expect(
      accountWindows(windowScenario(model(P, 8, 'b'), [4, 4], 'small'), [{ mechanism: FAMILY_OF.default, scale: 8 }], { alphas: [2] }).note,
    ).toBeUndefined();
  });

  it('account --next of typed window releases: the next window at that scale keeps ε, 1% less does not; a full series has no next window', async () => {
    const { nextWindowScale, accountWindows } = await import('../src/account/windows.js');
    const { windowScenario } = await import('../src/markov/windowScenario.js');
    const m = model(
      [
        [0.8, 0.2],
        [0.3, 0.7],
      ],
      12,
      'b',
    );
    const s = windowScenario(m, [4, 4, 4], 'toy');
    const past = [{ mechanism: FAMILY_OF.default, scale: 6 }];
    const r = nextWindowScale(s, past, FAMILY_OF.default, 2, 1)!;
    const level = (b: number) => accountWindows(s, [...past, { mechanism: FAMILY_OF.default, scale: b }], { alphas: [2] }).rows[0].divergence;
    expect(level(r.scale)).toBeLessThanOrEqual(1);
    expect(level(r.scale * 0.99)).toBeGreaterThan(1);
    const full = [...past, ...past, ...past];
    expect(() => nextWindowScale(s, full, FAMILY_OF.default, 2, 1)).toThrow(/all 3 windows of the series are released/);
    // α = ∞ and every order: group DP's level Σ len_w / b_w (4/6 + 4/3 = 2) holds, and answers where smaller.
    const two = [past[0], { mechanism: FAMILY_OF.default, scale: 3 }];
    const at = accountWindows(s, two, { alphas: [0.5, 2, Infinity], delta: 1e-6 });
    expect(at.rows[2].method).toBe('group-dp');
    expect(at.rows[2].divergence).toBeGreaterThanOrEqual(2);
    expect(at.rows[2].divergence).toBeLessThan(2 + 1e-12);
    for (const row of at.rows.slice(0, 2)) expect(row.divergence).toBeLessThanOrEqual(at.rows[2].divergence);
    expect(at.epsilonDelta!.epsilon).toBeLessThanOrEqual(at.rows[2].divergence);
    // At a small scale and a high order group DP's level is below the path bound: it answers.
    const tiny = accountWindows(s, [{ mechanism: FAMILY_OF.default, scale: 0.05 }], { alphas: [10] }).rows[0];
    expect(tiny.method).toBe('group-dp');
    expect(tiny.divergence / (4 / 0.05)).toBeCloseTo(1, 12);
    // Gaussian noise has no α = ∞ level.
    expect(accountWindows(s, [{ mechanism: 'gaussian', scale: 3 }], { alphas: [Infinity] }).rows[0].divergence).toBe(Infinity);
    // Below α = 1 there is no (ε′, δ) conversion: none is given, not a refusal.
    expect(accountWindows(s, two, { alphas: [0.5], delta: 1e-6 }).epsilonDelta).toBeNull();
    const cli = await inProcess(
      'account',
      '--data',
      'test/fixtures/weather/seattle-weather.csv.gz',
      '--sequence',
      'weather',
      '--order-by',
      'date',
      '--query',
      'count:rain',
      '--length',
      '60',
      '--window',
      '30',
      '--release',
      'mechanism=laplace,scale=3',
      '--next',
      'laplace',
      '--epsilon',
      '1',
      '--json',
    );
    expect(cli.status, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout).next.scale).toBeGreaterThan(0);
  });

  it('best answers where the coupled bounds cannot certify (a huge α): the MQM, the others n/a with their reason', () => {
    const m = model(
      [
        [0.9, 0.1],
        [0.2, 0.8],
      ],
      12,
      'b',
    );
    const r = calibrateWindows(m, [4, 4, 4], { mechanism: FAMILY_OF.default, method: 'best', alpha: 1e20, epsilon: 1 });
    expect(r.winner).toBe('mqm-exact');
    expect(r.explanation).toMatch(/boundary-coupled n\/a, path-coupled n\/a/);
  });
});

describe('reproduce --markov: window counts', () => {
  it("Seattle's 12 months of 2015 at α = 2 need b = 2.546 per month (the issue's reference 2.55), far below the MQM; the binary chains' windows of 10 likewise", async () => {
    const { markovWindows } = await import('../src/reproduce/markov.js');
    let ticks = 0;
    const { synthetic, weather } = markovWindows([0.1, 0.9], [2], () => ticks++);
    expect(ticks).toBe(5);
    const at = (rows: typeof weather, method: string) => Number(rows.find((r) => r.method === method)?.scale);
    expect(Math.abs(at(weather, 'path-coupled') / 2.546 - 1)).toBeLessThan(1e-3);
    expect(at(weather, 'mqm-exact') / at(weather, 'path-coupled')).toBeGreaterThan(5);
    expect(at(weather, 'boundary-coupled') / at(weather, 'path-coupled')).toBeLessThan(0.66);
    // Every binary chain: path-coupled below the MQM, which is below group DP (T = 100).
    for (const q of [0.1, 0.9])
      for (const p of [0.1, 0.9]) {
        const here = synthetic.filter((r) => r.q === q && r.p === p);
        expect(at(here, 'boundary-coupled')).toBeLessThanOrEqual(at(here, 'path-coupled'));
        expect(at(here, 'path-coupled')).toBeLessThan(at(here, 'mqm-exact'));
        expect(at(here, 'mqm-exact')).toBeLessThanOrEqual(at(here, 'group-dp'));
        expect(at(here, 'group-dp')).toBe(100);
      }
  });
});

describe('window counts at the library’s edge: every setting checked by name', () => {
  const m = validateSpec({
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
    length: 6,
    query: { count: 'b', windows: [3, 3] },
  });
  const ok = { mechanism: 'laplace', method: 'path-coupled', alpha: 2, epsilon: 1 } as const;
  it.each([
    // Each was answered before: δ = 2 with a scale, an unknown method with group DP's scale under its name, other windows than the chain's.
    ['δ outside (0, 1)', () => calibrateWindows(m, [3, 3], { ...ok, delta: 2 }), /^delta: must be in \(0, 1\)/],
    ['an unknown method', () => calibrateWindows(m, [3, 3], { ...ok, method: 'exact' as never }), /^method: unknown method 'exact'/],
    ['windows other than the chain’s', () => calibrateWindows(m, [1, 5], ok), /^lengths: are \[1, 5\], but the chain's query gives its windows: \[3, 3\]/],
    ['ε < 0 (was a numerical error)', () => calibrateWindows(m, [3, 3], { ...ok, epsilon: -1 }), /^epsilon: must be a finite number > 0/],
    ['α = 1', () => calibrateWindows(m, [3, 3], { ...ok, alpha: 1 }), /^alpha: must be a Rényi order > 0 other than 1/],
    ['no lengths (was a TypeError)', () => calibrateWindows(m, undefined as never, ok), /^lengths: must be an array/],
    ['a count above its window’s length', () => releaseWindows(m, [3, 3], [10], ok), /^counts: window 1 has 3 steps/],
    ['a count not a number (was a RangeError)', () => releaseWindows(m, [3, 3], [Number.NaN, 1], ok), /^counts: window 1 has 3 steps/],
    ['more counts than windows', () => releaseWindows(m, [3, 3], [1, 1, 1], ok), /^counts: gives 3 counts for 2 windows/],
    ['a draw at scale 0 (published the counts)', () => drawWindows([1, 2], 'laplace', 0), /^scale: must be a finite number > 0/],
    ['a draw of counts that are not whole (geometric gave non-integers)', () => drawWindows([3.5, 5], 'geometric', 1), /^counts: are window counts/],
    ['an audit without orders (was a TypeError)', () => auditWindows(m, [3, 3], { mechanism: 'laplace', scale: 3 } as never), /^alphas: must be an array/],
    [
      'an audit with `alpha` for `alphas`',
      () => auditWindows(m, [3, 3], { mechanism: 'laplace', scale: 3, alpha: 2 } as never),
      /^settings\.alpha: is not a field/,
    ],
    ['an audit at a negative scale', () => auditWindows(m, [3, 3], { mechanism: 'laplace', scale: -1, alphas: [2] }), /^scale: must be a finite number > 0/],
    [
      'a chain under which no time has two possible states (was "no noise is needed", −∞ ≤ ε; the whole count refused it)',
      () =>
        calibrateWindows(
          validateSpec({
            states: ['a', 'b'],
            chains: [
              {
                name: 'c',
                transition: [
                  [0.5, 0.5],
                  [0, 1],
                ],
                initial: 'stationary',
              },
            ],
            length: 6,
            query: { count: 'a' },
          }),
          [3, 3],
          ok,
        ),
      /^markov: no time has two possible states under any chain/,
    ],
    [
      'an audit of windows other than the chain’s (audited windows that were never calibrated)',
      () => auditWindows(m, [2, 4], { mechanism: 'laplace', scale: 3, alphas: [2] }),
      /^lengths: are \[2, 4\], but the chain's query gives its windows: \[3, 3\]/,
    ],
  ])('%s is refused', (_name, call, refusal) => {
    expect(call).toThrow(refusal);
  });
  it('the checked settings still answer, and scale 0 is drawn only when asked', () => {
    expect(calibrateWindows(m, [3, 3], ok).scale).toBeGreaterThan(0);
    expect(drawWindows([1, 2], 'laplace', 0, { allowNoNoise: true }).values).toEqual([1, 2]);
  });
});

describe('window counts of a table through the library (windowsFromTable)', () => {
  const location = 'test/fixtures/weather/seattle-weather.csv.gz';
  const cli = ['--data', location, '--sequence', 'weather', '--order-by', 'date', '--query', 'count:rain', '--length', '60', '--window', 'month'];
  it('gives the CLI’s windows, scale and counts: one path from the table to a monthly release', async () => {
    const { windowsFromTable } = await import('../src/api/table.js');
    const w = await windowsFromTable(location, { sequence: 'weather', orderBy: 'date', query: 'count:rain', window: 'month', length: 60 });
    expect(w.lengths).toEqual([31, 29]);
    expect(w.labels).toEqual(['2012-01', '2012-02']);
    expect(w.start).toBe('2012-01-01');
    const s = { mechanism: 'laplace', method: 'path-coupled', alpha: 2, epsilon: 1 } as const;
    const lib = calibrateWindows(w.model, w.lengths, s).scale;
    const cal = await inProcess('calibrate', ...cli, '--method', 'path-coupled', '--json');
    expect(lib).toBe(JSON.parse(cal.stdout).results[0].scale);
    // The counts are the table's: rain days per month, counted here from the rows.
    const rows = gunzipSync(readFileSync(location))
      .toString()
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const rain = (month: string) => rows.filter((r) => r[0].startsWith(month) && r[5] === 'rain').length;
    expect(await w.counts()).toEqual([rain('2012-01'), rain('2012-02')]);
    const released = JSON.parse((await inProcess('release', ...cli, '--method', 'path-coupled', '--json')).stdout);
    expect(released.calibration.scale).toBe(lib);
  });
  it('refuses by name what the CLI refuses by flag', async () => {
    const { windowsFromTable } = await import('../src/api/table.js');
    const o = { sequence: 'weather', orderBy: 'date', query: 'count:rain', window: 'month', length: 60 };
    await expect(windowsFromTable(location, { ...o, query: 'histogram' })).rejects.toMatchObject({ path: 'query' });
    await expect(windowsFromTable(location, { ...o, start: '2013-01-01', length: undefined as never })).rejects.toMatchObject({ path: 'length' });
    await expect(windowsFromTable(location, { ...o, windows: 'month' } as never)).rejects.toMatchObject({ path: 'options.windows' });
    const w = await windowsFromTable(location, { ...o, length: 365 * 4 + 1, window: '700,761' });
    await expect(w.counts()).resolves.toHaveLength(2);
    await expect(w.counts(1)).resolves.toHaveLength(1);
    // A count of windows outside 1…2 gave a shorter list (−1) or an SQL error (0).
    for (const k of [-1, 0, 3, 1.5]) await expect(w.counts(k)).rejects.toMatchObject({ path: 'released' });
    await expect(windowsFromTable(location, { ...o, length: 1e9 })).rejects.toMatchObject({ path: 'length' });
    await expect(windowsFromTable(location, { ...o, seed: 3 })).rejects.toMatchObject({ path: 'seed' });
    // Several sequences pool their transitions; their counts interleaved were returned as one series'.
    const pooled = await windowsFromTable('test/fixtures/weather/weather.csv.gz', { ...o, groupBy: 'location', window: '10', length: 30 });
    await expect(pooled.counts()).rejects.toMatchObject({ path: 'groupBy' });
  });
});
