import { describe, expect, it } from 'vitest';
import { stationaryLaw } from './chain.js';
import { SYNTHETIC } from '../../test/fixtures/markov/songReference.js';
import { eigengapOf, gk16, mqmApprox, mqmExact, referenceSearchLength, referenceStationary } from './mqm.js';
import { calibrate, type Method } from '../calibrate/calibrate.js';
import { specFromRaw } from '../spec/load.js';
import type { Scenario } from '../distribution/scenario.js';

// Song et al.'s synthetic grid as their code computes it: see test/fixtures/markov/songReference.ts.

const SEATTLE_COUNTS = [
  [16, 3, 19, 0, 15],
  [1, 28, 32, 0, 40],
  [18, 36, 432, 11, 144],
  [1, 0, 10, 10, 5],
  [16, 34, 148, 5, 436],
]; // Seattle 2012–2015 day-to-day weather transitions (drizzle, fog, rain, snow, sun), ../shared/datasets/weather

const CHAINS: Record<string, number[][]> = {
  three: [
    [0.5, 0.3, 0.2],
    [0.2, 0.6, 0.2],
    [0.1, 0.3, 0.6],
  ],
  sparse3: [
    [0.9, 0.1, 0],
    [0.05, 0.9, 0.05],
    [0, 0.2, 0.8],
  ],
  seattle: SEATTLE_COUNTS.map((row) => row.map((c) => c / row.reduce((a, b) => a + b, 0))),
  'binary_q0.2_p0.7': [
    [0.8, 0.2],
    [0.3, 0.7],
  ],
  'binary_q0.1_p0.9': [
    [0.9, 0.1],
    [0.1, 0.9],
  ],
  four: [
    [0.7, 0.1, 0.1, 0.1],
    [0.2, 0.5, 0.2, 0.1],
    [0.1, 0.1, 0.6, 0.2],
    [0.25, 0.25, 0.25, 0.25],
  ],
};

// [chain, T, ε, MQMExact with every initial law]
const MULTI: [string, number, number, number][] = [
  ['three', 10, 0.5, 20.0],
  ['three', 10, 1.0, 9.067119898247856],
  ['three', 10, 2.0, 3.50561149821363],
  ['three', 30, 0.5, 21.96902280250689],
  ['three', 30, 1.0, 9.067119898247856],
  ['three', 30, 2.0, 3.50561149821363],
  ['three', 100, 0.5, 21.96902280250689],
  ['three', 100, 1.0, 9.067119898247856],
  ['three', 100, 2.0, 3.50561149821363],
  ['sparse3', 10, 0.5, 20.0],
  ['sparse3', 10, 1.0, 10.0],
  ['sparse3', 10, 2.0, 5.0],
  ['sparse3', 30, 0.5, 60.0],
  ['sparse3', 30, 1.0, 30.0],
  ['sparse3', 30, 2.0, 15.0],
  ['sparse3', 100, 0.5, 162.17848690543323],
  ['sparse3', 100, 1.0, 68.62066699935802],
  ['sparse3', 100, 2.0, 27.613222014290127],
  ['seattle', 10, 0.5, 20.0],
  ['seattle', 10, 1.0, 10.0],
  ['seattle', 10, 2.0, 5.0],
  ['seattle', 30, 0.5, 34.66751694688298],
  ['seattle', 30, 1.0, 15.468875458667968],
  ['seattle', 30, 2.0, 6.767673845195439],
  ['seattle', 100, 0.5, 34.66751694688298],
  ['seattle', 100, 1.0, 15.468875458667968],
  ['seattle', 100, 2.0, 6.767673845195439],
  ['binary_q0.2_p0.7', 10, 0.5, 20.0],
  ['binary_q0.2_p0.7', 10, 1.0, 10.0],
  ['binary_q0.2_p0.7', 10, 2.0, 3.8944565352040303],
  ['binary_q0.2_p0.7', 30, 0.5, 26.886242656533916],
  ['binary_q0.2_p0.7', 30, 1.0, 10.640192981608111],
  ['binary_q0.2_p0.7', 30, 2.0, 3.8944565352040303],
  ['binary_q0.2_p0.7', 100, 0.5, 26.886242656533916],
  ['binary_q0.2_p0.7', 100, 1.0, 10.640192981608111],
  ['binary_q0.2_p0.7', 100, 2.0, 3.8944565352040303],
  ['binary_q0.1_p0.9', 10, 0.5, 20.0],
  ['binary_q0.1_p0.9', 10, 1.0, 10.0],
  ['binary_q0.1_p0.9', 10, 2.0, 5.0],
  ['binary_q0.1_p0.9', 30, 0.5, 60.0],
  ['binary_q0.1_p0.9', 30, 1.0, 30.0],
  ['binary_q0.1_p0.9', 30, 2.0, 12.371703229577319],
  ['binary_q0.1_p0.9', 100, 0.5, 83.39153265528877],
  ['binary_q0.1_p0.9', 100, 1.0, 33.62926757329197],
  ['binary_q0.1_p0.9', 100, 2.0, 12.371703229577319],
  ['four', 10, 0.5, 20.0],
  ['four', 10, 1.0, 10.0],
  ['four', 10, 2.0, 5.0],
  ['four', 30, 0.5, 34.33337859722622],
  ['four', 30, 1.0, 14.403187543591445],
  ['four', 30, 2.0, 5.331553876889685],
  ['four', 100, 0.5, 34.33337859722622],
  ['four', 100, 1.0, 14.403187543591445],
  ['four', 100, 2.0, 5.331553876889685],
];

// [chain, l, eigengap, π_min, MQMApprox, MQMExact ('any')], all at ε = 1 on a chain of length l
const REAL_DATA: [string, number, number, number, number, number][] = [
  ['three', 40, 0.4137289425486799, 0.23809523809523814, 27.586918469775426, 9.067119898247856],
  ['sparse3', 152, 0.12093145750507617, 0.14285687722575108, 107.31611553014531, 68.62066699935802],
  ['seattle', 72, 0.39306535171036294, 0.0178169817470245, 44.44507622773731, 15.468875458667968],
  ['binary_q0.2_p0.7', 40, 0.375, 0.4000000000000014, 27.22705033073678, 10.640192981608111],
  ['binary_q0.1_p0.9', 72, 0.17999999999999994, 0.49999999989815036, 54.834912561458935, 33.62926757329197],
  ['four', 56, 0.34161644937598745, 0.15132924335378317, 36.82261395255625, 14.403187543591445],
];

const rel = (x: number, y: number) => Math.abs(x / y - 1);

describe("the reference code's synthetic grid (run_synthetic.m, T = 100, ε = 1)", () => {
  it("MQMExact: to 12 digits from the code's own start (M^100), to 10 from the exact stationary law", () => {
    for (const [q, p, exact] of SYNTHETIC) {
      const P = [
        [1 - q, q],
        [1 - p, p],
      ];
      expect(rel(mqmExact([{ transition: P, initial: referenceStationary(P) }], 100, 1).scale, exact)).toBeLessThan(1e-12);
      expect(rel(mqmExact([{ transition: P, initial: stationaryLaw(P).law }], 100, 1).scale, exact)).toBeLessThan(1e-10);
    }
  });

  it('MQMApprox on the class (1 − |λ₂|, π_min of M^100)', () => {
    for (const [q, p, , approx] of SYNTHETIC) {
      const P = [
        [1 - q, q],
        [1 - p, p],
      ];
      expect(rel(mqmApprox(eigengapOf(P, 'binary'), 100, 1), approx)).toBeLessThan(1e-12);
    }
  });

  it('GK16, not applicable exactly where the code gives NaN', () => {
    for (const [q, p, , , gk] of SYNTHETIC) {
      const r = gk16(
        [
          [1 - q, q],
          [1 - p, p],
        ],
        100,
        1,
      );
      if (gk === null) expect(r).toHaveProperty('notApplicable');
      else expect(rel((r as { scale: number }).scale, gk)).toBeLessThan(1e-12);
    }
  });

  it('the known answers of MATH.md §11', () => {
    const at = (q: number, p: number) => SYNTHETIC.find((r) => r[0] === q && r[1] === p)!;
    expect(at(0.2, 0.7)[2].toFixed(2)).toBe('10.12');
    expect(at(0.2, 0.7)[3].toFixed(2)).toBe('20.07');
    expect(at(0.1, 0.9)[2].toFixed(2)).toBe('31.74');
    expect(at(0.1, 0.9)[3].toFixed(2)).toBe('49.22');
    for (const q of [0.1, 0.5, 0.9]) expect(at(q, q)[2]).toBeCloseTo(1, 12);
  });
});

describe("the reference code's multi-state path (exactRatioMultiGenerate with every initial law)", () => {
  it('MQMExact with initial "any", all nodes or the code\'s interior nodes', () => {
    for (const [name, T, epsilon, value] of MULTI) {
      const chains = [{ transition: CHAINS[name], initial: 'any' as const }];
      expect(rel(mqmExact(chains, T, epsilon).scale, value)).toBeLessThan(1e-12);
      expect(rel(mqmExact(chains, T, epsilon, { nodes: 'interior' }).scale, value)).toBeLessThan(1e-12);
    }
  });

  it('run_realData.m: its eigengap, π_min, search length l, MQMApprox and MQMExact', () => {
    for (const [name, l, gap, piMin, approx, exact] of REAL_DATA) {
      const cls = eigengapOf(CHAINS[name], 'multi');
      expect(rel(cls.gap, gap)).toBeLessThan(1e-12);
      expect(rel(cls.piMin, piMin)).toBeLessThan(1e-12);
      expect(referenceSearchLength(1, cls.gap, cls.piMin)).toBe(l);
      expect(rel(mqmApprox(cls, l, 1), approx)).toBeLessThan(1e-12);
      expect(rel(mqmExact([{ transition: CHAINS[name], initial: 'any' }], l, 1).scale, exact)).toBeLessThan(1e-12);
    }
  });
});

describe('a "markov" spec given as an eigengap class ({gap, piMin}, no chains)', () => {
  const spec = (k: number, gap: number, piMin: number, length: number) => ({
    markov: { states: Array.from({ length: k }, (_, i) => `s${i}`), eigengap: { gap, piMin }, length, query: { count: 's0' } },
    alpha: 'inf',
    epsilon: 1,
  });
  const mqm = (raw: unknown) =>
    calibrate(specFromRaw(raw).scenario as Scenario, { mechanism: 'laplace', method: 'mqm-approx' as Method, alpha: Infinity, epsilon: 1 }).scale;

  it("mqm-approx equals run_realData.m's MQMApprox on its (eigengap, π_min, l)", () => {
    for (const [name, l, gap, piMin, approx] of REAL_DATA) expect(mqm(spec(CHAINS[name].length, gap, piMin, l))).toBe(approx);
  });

  it("mqm-approx equals run_synthetic.m's MQMApprox on each chain's class (1 − |λ₂|, π_min of M^100)", () => {
    for (const [q, p, , approx] of SYNTHETIC) {
      const piMin = Math.min(
        ...referenceStationary([
          [1 - q, q],
          [1 - p, p],
        ]),
      );
      const gap = 1 - Math.abs(1 - q - (1 - p)); // 1 − |λ₂|, λ₂ = p − q, as eig(M) gives it to rounding
      expect(rel(mqm(spec(2, gap, piMin, 100)), approx)).toBeLessThan(1e-12);
    }
  });
});
