import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.js';
import { ratioToNumber } from '../numerics/float.js';
import { bruteForceLaws, type ExactLaw } from './bruteForce.js';
import type { StepQuery } from './chain.js';
import { stationaryLaw, validateSpec } from './chain.js';
import { dyadic } from './extended.js';
import { forEachChainLaws, forEachPointStartLaws, type FiniteSecretLaw, type SecretLaw, secretLaws, stepModel, sumGrid } from './laws.js';

/** |computed − exact|/exact for a double against an exact rational num/den (num > 0), in exact arithmetic. */
function relativeDeviation(computed: number, num: bigint, den: bigint): number {
  const { m, e } = dyadic(computed);
  const lhs = e >= 0 ? (m << BigInt(e)) * den : m * den;
  const rhs = e >= 0 ? num : num << BigInt(-e);
  const diff = lhs > rhs ? lhs - rhs : rhs - lhs;
  return ratioToNumber(diff, rhs);
}

/** Checks one computed law against the brute-force one: same atoms, every mass within the stated bound. */
function expectWithinBound(law: SecretLaw | null, exact: ExactLaw | null, decode: (code: number) => unknown): number {
  expect(law === null).toBe(exact === null);
  if (law === null || exact === null) return 0;
  const atoms = law.kind === 'scalar' ? Array.from(law.values) : law.vectors;
  expect(atoms).toEqual(exact.codes.map(decode));
  let worst = 0;
  exact.numerators.forEach((n, j) => {
    const dev = relativeDeviation(law.masses[j], n, exact.denominator);
    expect(dev).toBeLessThanOrEqual(law.relativeError);
    expect(Math.abs(law.logMasses[j] - Math.log(exact.masses[j]))).toBeLessThanOrEqual(law.logError + 1e-15);
    worst = Math.max(worst, dev);
  });
  return worst;
}

const three = [
  [0.5, 0.3, 0.2],
  [0.2, 0.6, 0.2],
  [0.1, 0.3, 0.6],
];
const sparse = [
  [0.9, 0.1, 0],
  [0.05, 0.9, 0.05],
  [0, 0.2, 0.8],
];

describe('secretLaws against every path (exact rationals)', () => {
  const cases: [string, number[][], number, StepQuery, number[] | 'stationary'][] = [
    [
      'binary count, T = 12',
      [
        [0.8, 0.2],
        [0.3, 0.7],
      ],
      12,
      { kind: 'count', state: 1 },
      'stationary',
    ],
    [
      'binary sum with decimals and negatives, T = 11',
      [
        [0.9, 0.1],
        [0.35, 0.65],
      ],
      11,
      { kind: 'sum', values: [-0.25, 1.1] },
      [0.3, 0.7],
    ],
    ['3 states count, T = 8', three, 8, { kind: 'count', state: 0 }, [0.2, 0.5, 0.3]],
    ['3 states sum, T = 7', three, 7, { kind: 'sum', values: [0, 0.5, -1.25] }, 'stationary'],
    ['3 states histogram, T = 7', three, 7, { kind: 'histogram' }, [1 / 3, 1 / 3, 1 / 3]],
    ['sparse 3 states (zeros) count, T = 8', sparse, 8, { kind: 'count', state: 2 }, [1, 0, 0]],
    ['sparse 3 states histogram, T = 6', sparse, 6, { kind: 'histogram' }, 'stationary'],
    [
      '4 states histogram, T = 6',
      [
        [0.7, 0.1, 0.1, 0.1],
        [0.2, 0.5, 0.2, 0.1],
        [0.1, 0.1, 0.6, 0.2],
        [0.25, 0.25, 0.25, 0.25],
      ],
      6,
      { kind: 'histogram' },
      'stationary',
    ],
  ];
  for (const [name, P, T, query, start] of cases) {
    it(name, () => {
      const model = stepModel(P, T, query);
      const initial = start === 'stationary' ? stationaryLaw(P) : { law: start, roundings: 0 };
      const laws = secretLaws(model, initial);
      const exact = bruteForceLaws(model, initial.law);
      const decode = model.kind === 'vector' ? model.vector : model.value;
      let worst = 0;
      for (let i = 0; i < T; i++) for (let a = 0; a < P.length; a++) worst = Math.max(worst, expectWithinBound(laws[i][a], exact[i][a], decode));
      expect(worst).toBeLessThan(1e-14); // the real error is far inside the bound (about 1e-13 here)
    });
  }

  it('histogram atoms come in lexicographic order, each a k-vector summing to T', () => {
    const law = secretLaws(stepModel(three, 5, { kind: 'histogram' }), { law: [0.2, 0.5, 0.3], roundings: 0 }, { times: [2] })[0][1];
    if (law?.kind !== 'vector') throw new Error('expected a vector law');
    const keys = law.vectors.map((v) => v.map((c) => String(c).padStart(2, '0')).join(','));
    expect(keys).toEqual([...keys].sort());
    for (const v of law.vectors) {
      expect(v.reduce((a, b) => a + b, 0)).toBe(5);
      expect(v[1]).toBeGreaterThanOrEqual(1); // X_2 = state 1 is counted
    }
  });

  it('a secret of probability 0 has no law', () => {
    const laws = secretLaws(stepModel(sparse, 4, { kind: 'count', state: 0 }), { law: [1, 0, 0], roundings: 0 }, { times: [0, 1] });
    expect(laws[0][1]).toBeNull();
    expect(laws[0][2]).toBeNull();
    expect(laws[1][2]).toBeNull(); // 0 → 2 needs two steps
    expect(laws[1][1]).not.toBeNull();
  });
});

/** log(num/den) for positive BigInts, to about 1e-16·(1 + |log|): the quotient to 60 bits, then its log. */
function logRatio(num: bigint, den: bigint): number {
  const s = den.toString(2).length - num.toString(2).length + 60;
  const q = s >= 0 ? (num << BigInt(s)) / den : num / (den << BigInt(-s));
  return Math.log(Number(q)) - s * Math.LN2;
}

/** Exact log C(n, j) p^j r^{n−j} / (p + r)^n for doubles p, r read as exact dyadic rationals. */
function logBinomial(n: number, j: number, p: number, r: number): number {
  const dp = dyadic(p);
  const dr = dyadic(r);
  const e = Math.min(dp.e, dr.e);
  const P = dp.m << BigInt(dp.e - e);
  const R = dr.m << BigInt(dr.e - e);
  let c = 1n;
  for (let t = 0; t < j; t++) c = (c * BigInt(n - t)) / BigInt(t + 1);
  return logRatio(c * P ** BigInt(j) * R ** BigInt(n - j), (P + R) ** BigInt(n));
}

describe('independent steps (all rows equal)', () => {
  it('the count given X_i = a is 1[a = s] + Binomial(T − 1, π_s), exactly for dyadic rows', () => {
    const row = [0.125, 0.375, 0.5];
    const T = 30;
    const laws = secretLaws(stepModel([row, row, row], T, { kind: 'count', state: 1 }), { law: row, roundings: 0 });
    for (const i of [0, 13, T - 1]) {
      for (let a = 0; a < 3; a++) {
        const law = laws[i][a] as FiniteSecretLaw;
        const shift = a === 1 ? 1 : 0;
        expect(Array.from(law.values)).toEqual(Array.from({ length: T }, (_, j) => j + shift));
        law.values.forEach((v, j) => {
          const k = v - shift;
          let c = 1n;
          for (let t = 0; t < k; t++) c = (c * BigInt(T - 1 - t)) / BigInt(t + 1);
          // Binomial(29, 3/8): C(29, k)·3^k·5^{29−k} / 8^29
          expect(relativeDeviation(law.masses[j], c * 3n ** BigInt(k) * 5n ** BigInt(T - 1 - k), 8n ** BigInt(T - 1))).toBeLessThanOrEqual(law.relativeError);
        });
      }
    }
  });

  it('far below the double range (0.001^399) the log masses stay within their bound', () => {
    const row = [0.999, 0.001];
    const T = 400;
    const [[law0, law1]] = secretLaws(
      stepModel([row, row], T, { kind: 'count', state: 1 }),
      { law: row, roundings: 0 },
      { times: [200] },
    ) as FiniteSecretLaw[][];
    expect(law1.underflow).toBeGreaterThan(0); // the top counts are below 2^−1022 as doubles
    for (const [law, shift] of [
      [law0, 0],
      [law1, 1],
    ] as const) {
      expect(law.values.length).toBe(T);
      law.values.forEach((v, j) => {
        expect(Math.abs(law.logMasses[j] - logBinomial(T - 1, v - shift, 0.001, 0.999))).toBeLessThanOrEqual(law.logError + 1e-15 * (1 - law.logMasses[j]));
      });
    }
    expect(law1.logMasses[T - 1]).toBeCloseTo(399 * Math.log(0.001), 6);
  });
});

describe("'any' initial law: the point-start components", () => {
  const P = [
    [0.17, 0.59, 0.24],
    [0.48, 0.2, 0.32],
    [0.09, 0.31, 0.6],
  ];
  const T = 4;
  const model = stepModel(P, T, { kind: 'count', state: 0 });
  const components: (FiniteSecretLaw | null)[][][] = [[], [], []];
  forEachPointStartLaws(model, (x, i, laws) => {
    components[x][i] = laws as (FiniteSecretLaw | null)[];
  });

  /** The law of F given X_i = a under start q, as the mixture of the components. */
  const mixture = (q: number[], i: number, a: number) => {
    const mass = new Map<number, number>();
    let Z = 0;
    q.forEach((w, x) => {
      const L = components[x][i][a];
      if (L === null) return; // X_i = a is impossible from x (at i = 0: a ≠ x)
      Z += w * L.probability;
      L.values.forEach((v, j) => {
        mass.set(v, (mass.get(v) ?? 0) + w * L.probability * L.masses[j]);
      });
    });
    return new Map([...mass].map(([v, m]) => [v, m / Z]));
  };

  it('mix into the law under any start q, with weights q_x·P(X_i = a | X_0 = x)', () => {
    const q = [0.5, 0.2, 0.3];
    const direct = secretLaws(model, { law: q, roundings: 0 });
    for (let i = 0; i < T; i++) {
      for (let a = 0; a < 3; a++) {
        const law = direct[i][a] as FiniteSecretLaw;
        const mix = mixture(q, i, a);
        law.values.forEach((v, j) => {
          expect(Math.abs(mix.get(v)! / law.masses[j] - 1)).toBeLessThan(1e-13);
        });
      }
    }
  });

  it('do not bound the class: a mixed start leaks more than every point start (Laplace b = 0.7, X_1 = 2 vs 0)', () => {
    const b = 0.7;
    const density = (m: Map<number, number>, y: number) => [...m].reduce((s, [c, w]) => s + w * Math.exp(-Math.abs(y - c) / b), 0);
    // For laws on 0..T the supremum over outputs y of the density ratio is at an integer in [0, T].
    const loss = (q: number[]) => Math.max(...Array.from({ length: T + 1 }, (_, y) => Math.log(density(mixture(q, 1, 2), y) / density(mixture(q, 1, 0), y))));
    const points = [0, 1, 2].map((x) => loss([0, 1, 2].map((z) => (z === x ? 1 : 0))));
    const mixed = loss([0.7, 0, 0.3]);
    expect(Math.max(...points)).toBeCloseTo(1.6293, 4);
    expect(mixed).toBeCloseTo(2.1388, 4);
    // The reverse direction (X_2 = 0 over X_2 = 2) likewise: a mixed start beats every point start.
    const reverse = (q: number[]) =>
      Math.max(...Array.from({ length: T + 1 }, (_, y) => Math.log(density(mixture(q, 1, 0), y) / density(mixture(q, 1, 2), y))));
    const reversePoints = Math.max(...[0, 1, 2].map((x) => reverse([0, 1, 2].map((z) => (z === x ? 1 : 0)))));
    let reverseMixed = -Infinity;
    for (let i = 0; i <= 100; i++) for (let j = 0; i + j <= 100; j++) reverseMixed = Math.max(reverseMixed, reverse([i / 100, j / 100, (100 - i - j) / 100]));
    expect(reversePoints).toBeCloseTo(1.7326, 4);
    expect(reverseMixed).toBeCloseTo(2.242, 3);
    // The bound in forEachPointStartLaws' comment holds for every start.
    const joint = (x: number, a: number, y: number) => {
      const L = components[x][1][a]!;
      return L.probability * density(new Map(Array.from(L.values, (v, j) => [v, L.masses[j]])), y);
    };
    let first = -Infinity;
    for (let x = 0; x < 3; x++) for (let y = 0; y <= T; y++) first = Math.max(first, Math.log(joint(x, 2, y) / joint(x, 0, y)));
    const second = Math.max(...[0, 1, 2].map((x) => Math.log(components[x][1][0]!.probability / components[x][1][2]!.probability)));
    expect(first + second).toBeGreaterThanOrEqual(mixed);
  });
});

describe('sumGrid and the size guard', () => {
  it('reads values as decimals on their common grid', () => {
    const g = sumGrid([0, 0.5, 1.25], 2);
    expect(g.shifts).toEqual([0, 2, 5]);
    expect(g.value(7)).toBe(1.75);
    const h = sumGrid([0.1, 0.2, -0.3], 3);
    expect(h.shifts).toEqual([4, 5, 0]);
    expect(h.value(4 + 5)).toBe(0); // 0.1 + 0.2 − 0.3 is exactly 0 on the decimal grid
    expect(sumGrid([2, 2], 5).shifts).toEqual([0, 0]);
  });

  it('refuses a table beyond the limit, naming the query', () => {
    const q = { law: [0.5, 0.25, 0.25], roundings: 0 };
    const fine = stepModel(three, 1000, { kind: 'sum', values: [0, 1, 1000] }); // 1000 grid steps per time
    expect(() => secretLaws(fine, q, { path: 'markov.query' })).toThrow(/^markov\.query: the exact laws need a table of 1\.50e\+9 entries/);
    const coarse = stepModel(three, 1000, { kind: 'sum', values: [0, 1000, 2000] }); // one grid step of 1000
    expect(() => secretLaws(coarse, q, { maxTableEntries: 1e6 })).toThrow(InputError);
    expect(() => secretLaws(coarse, q, { times: [1000] })).toThrow(/times\[0\]/);
  });
});

describe('forEachChainLaws and speed', () => {
  const P = [
    [0.3, 0.05, 0.36, 0, 0.29],
    [0.01, 0.28, 0.32, 0, 0.39],
    [0.03, 0.06, 0.67, 0.02, 0.22],
    [0.04, 0, 0.38, 0.39, 0.19],
    [0.03, 0.05, 0.23, 0.01, 0.68],
  ];
  const spec = (initial: unknown, length: number) =>
    validateSpec({
      states: ['drizzle', 'fog', 'rain', 'snow', 'sun'],
      chains: [{ name: 'seattle', transition: P, initial }],
      length,
      query: { count: 'rain' },
    });

  it('visits the stationary laws once, the "any" components once per start', () => {
    const starts = new Set<number | null>();
    let visits = 0;
    forEachChainLaws(spec('stationary', 6), 0, (start, _, laws) => {
      starts.add(start);
      visits++;
      expect(laws).toHaveLength(5);
    });
    expect([...starts, visits]).toEqual([null, 6]);
    starts.clear();
    forEachChainLaws(spec('any', 6), 0, (start) => starts.add(start), { times: [2] });
    expect([...starts]).toEqual([0, 1, 2, 3, 4]);
  });

  it('computes all 5·T laws of a five-state chain of T = 400 in well under 10 s', () => {
    const started = performance.now();
    let worst = 0;
    forEachChainLaws(spec('stationary', 400), 0, (_, __, laws) => {
      for (const law of laws) worst = Math.max(worst, law?.relativeError ?? 0);
    });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(worst).toBeLessThan(1e-12);
  });
});
