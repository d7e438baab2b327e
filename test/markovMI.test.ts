import { describe, expect, it } from 'vitest';
import { fromCounts } from '../src/distribution/discrete.js';
import { perVariable, type Scenario } from '../src/distribution/scenario.js';
import { validateSpec } from '../src/markov/chain.js';
import { markovScenario } from '../src/markov/source.js';
import { calibrateMI } from '../src/mi/calibrate.js';
import { auditMI } from '../src/audit/audit.js';
import { InputError } from '../src/errors.js';
import { calibrateProjection, projection } from '../src/mi/projection.js';

/*
 * Mutual-information Pufferfish on a Markov chain: I(Y; X_i) ≤ ε for every time i. Checked against
 * an independent computation (every path of the chain enumerated in doubles, I(Y; X_i) summed on a
 * fine grid of y) and against the scalar answer where the steps are independent.
 */

type Law = { values: number[]; masses: number[] };

/** Per time i: P(X_i = a) and the law of the count of `state` given X_i = a, from every path. */
function pathLaws(P: number[][], initial: number[], T: number, state: number): { pi: number[]; laws: Law[] }[] {
  const k = P.length;
  const joint = [...Array(T)].map(() => [...Array(k)].map(() => new Map<number, number>()));
  const path: number[] = [];
  const go = (w: number, count: number) => {
    if (path.length === T) {
      for (const [i, x] of path.entries()) joint[i][x].set(count, (joint[i][x].get(count) ?? 0) + w);
      return;
    }
    for (let y = 0; y < k; y++) {
      path.push(y);
      go(w * (path.length === 1 ? initial[y] : P[path[path.length - 2]][y]), count + (y === state ? 1 : 0));
      path.pop();
    }
  };
  go(1, 0);
  return joint.map((row) => {
    const totals = row.map((m) => [...m.values()].reduce((a, b) => a + b, 0));
    return {
      pi: totals,
      laws: row.map((m, a) => {
        const values = [...m.keys()].sort((x, y) => x - y);
        return { values, masses: values.map((v) => m.get(v)! / totals[a]) };
      }),
    };
  });
}

/** I(Y; S) for Y = X + Lap(b), S with probabilities pi and X | S = a ~ laws[a]: a midpoint sum in y. */
function miOracle(pi: number[], laws: Law[], b: number): number {
  const dens = (l: Law, y: number) => l.values.reduce((s, x, j) => s + l.masses[j] * Math.exp(-Math.abs(y - x) / b), 0) / (2 * b);
  const lo = Math.min(...laws.map((l) => l.values[0])) - 60 * b,
    hi = Math.max(...laws.map((l) => l.values[l.values.length - 1])) + 60 * b;
  const h = b / 400;
  let I = 0;
  for (let y = lo + h / 2; y < hi; y += h) {
    const ps = laws.map((l) => dens(l, y));
    const m = ps.reduce((s, p, a) => s + pi[a] * p, 0);
    ps.forEach((p, a) => {
      if (pi[a] * p > 0) I += pi[a] * p * Math.log(p / m) * h;
    });
  }
  return I;
}

const chainSpec = (transition: number[][], initial: number[] | 'stationary', length: number) =>
  validateSpec({ states: ['0', '1'], chains: [{ name: 'c', transition, initial }], length, query: { count: '1' } });

describe('mutual information per time on a Markov chain', () => {
  const P = [
    [0.8, 0.2],
    [0.3, 0.7],
  ];
  const initial = [0.5, 0.5];
  const T = 8;
  const scenario = markovScenario(chainSpec(P, initial, T), 'chain').scenario as Scenario;
  const oracle = pathLaws(P, initial, T, 1);

  it('every time is a prior of its own, with P(X_i = a) from the chain', () => {
    const split = perVariable(scenario);
    expect(split.priors.map((p) => p.name)).toEqual(Array.from({ length: T }, (_, i) => `c: X[${i + 1}]`));
    split.priors.forEach((p, i) => {
      expect(Object.keys(p.conditionals)).toEqual([`X[${i + 1}]=0`, `X[${i + 1}]=1`]);
      expect(p.probabilities![`X[${i + 1}]=1`]).toBeCloseTo(oracle[i].pi[1], 12);
    });
  });

  it('mi-exact: the calibrated b keeps I(Y; X_i) ≤ ε at every time by an independent sum, and 1% less noise breaks the binding time', () => {
    const epsilon = 0.02;
    const r = calibrateMI(scenario, { mechanism: 'laplace', method: 'mi-exact', epsilon });
    expect(r.scale).toBeGreaterThan(0);
    const at = (b: number) => oracle.map((o) => miOracle(o.pi, o.laws, b));
    const values = at(r.scale);
    for (const v of values) expect(v).toBeLessThanOrEqual(epsilon * (1 + 1e-6));
    const binding = Number(/X\[(\d+)\]/.exec(r.binding!.prior)![1]) - 1;
    expect(values[binding]).toBe(Math.max(...values));
    expect(at(r.scale * 0.99)[binding]).toBeGreaterThan(epsilon);
    expect(r.explanation).toMatch(/floating-point error .* is charged/);
  });

  it('the audit reports I(Y; X_i) per time, matching the independent sum', async () => {
    const rows = await auditMI(scenario, { mechanism: 'laplace', scale: 2 });
    expect(rows).toHaveLength(T);
    rows.forEach((row, i) => {
      if (!('nats' in row)) throw new Error('exact MI rows expected');
      expect(Math.abs(row.nats - miOracle(oracle[i].pi, oracle[i].laws, 2))).toBeLessThanOrEqual(row.error + 1e-7);
    });
  });

  it('independent steps give the scalar answer for one X_i: a + Binomial(T − 1, 1/4) with P(X_i = 1) = 1/4', () => {
    const n = 9;
    const binom = (k: number) => {
      let c = 1;
      for (let j = 0; j < k; j++) c = (c * (n - j)) / (j + 1);
      return c * 3 ** (n - k);
    };
    const counts = Array.from({ length: n + 1 }, (_, k) => binom(k));
    const ks = counts.map((_, k) => k);
    const scalar: Scenario = {
      name: 'scalar',
      priors: [
        {
          name: 'iid',
          conditionals: {
            '0': fromCounts(ks, counts),
            '1': fromCounts(
              ks.map((k) => k + 1),
              counts,
            ),
          },
          probabilities: { '0': 3, '1': 1 },
        },
      ],
    };
    const chain = markovScenario(
      chainSpec(
        [
          [0.75, 0.25],
          [0.75, 0.25],
        ],
        'stationary',
        n + 1,
      ),
      'iid',
    ).scenario as Scenario;
    for (const method of ['mi-exact', 'mi-variance'] as const) {
      const a = calibrateMI(scalar, { mechanism: 'laplace', method, epsilon: 0.05 }).scale;
      const b = calibrateMI(chain, { mechanism: 'laplace', method, epsilon: 0.05 }).scale;
      // The same laws up to the chain's float rounding (~1e-13): mi-variance is a closed form, so
      // the scales agree to that; mi-exact stops where the certified enclosure of I (its width about
      // 1e-4·I) meets ε, which moves by more than the laws do between two runs of the quadrature.
      expect(Math.abs(b / a - 1), method).toBeLessThan(method === 'mi-variance' ? 1e-11 : 1e-6);
    }
  });

  it('a computation that takes one secret variable refuses the chain and says why', () => {
    const A = projection([[1]]);
    let err: unknown;
    try {
      calibrateProjection(scenario, { projection: A, epsilon: 0.1 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).reason).toMatch(/values of 8 variables \(one per time of a chain\)/);
  });
});
