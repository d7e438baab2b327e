import { describe, expect, it } from 'vitest';
import { InputError } from '../errors.js';
import { ratioToNumber } from '../numerics/float.js';
import { closedClasses, lipschitzOf, stationaryLaw, validateSpec } from './chain.js';
import { dyadic } from './extended.js';

const binary = {
  name: 'c',
  transition: [
    [0.8, 0.2],
    [0.3, 0.7],
  ],
  initial: 'stationary',
};
const spec = (over: Record<string, unknown> = {}) => ({ states: ['dry', 'wet'], chains: [binary], length: 100, query: { count: 'wet' }, ...over });

/** The InputError `run` throws, so that tests can look at its path and reason. */
function inputError(run: () => unknown): InputError {
  try {
    run();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('no InputError thrown');
}

describe('validateSpec: bad input names its field', () => {
  it('a transition row that does not sum to 1 within 1e-12', () => {
    const e = inputError(() =>
      validateSpec(
        spec({
          chains: [
            {
              ...binary,
              transition: [
                [0.8, 0.2],
                [0.3, 0.6],
              ],
            },
          ],
        }),
      ),
    );
    expect(e.path).toBe('markov.chains[0].transition[1]');
    expect(e.message).toBe('markov.chains[0].transition[1]: row sums to 0.8999999999999999, not 1 (within 1e-12)');
  });

  it('accepts a row off by less than 1e-12 and refuses one off by more', () => {
    expect(() =>
      validateSpec(
        spec({
          chains: [
            {
              ...binary,
              transition: [
                [0.8, 0.2 + 5e-13],
                [0.3, 0.7],
              ],
            },
          ],
        }),
      ),
    ).not.toThrow();
    expect(
      inputError(() =>
        validateSpec(
          spec({
            chains: [
              {
                ...binary,
                transition: [
                  [0.8, 0.2 + 5e-12],
                  [0.3, 0.7],
                ],
              },
            ],
          }),
        ),
      ).path,
    ).toBe('markov.chains[0].transition[0]');
  });

  it('a negative entry, a non-number, a non-square matrix', () => {
    expect(
      inputError(() =>
        validateSpec(
          spec({
            chains: [
              {
                ...binary,
                transition: [
                  [1.2, -0.2],
                  [0.3, 0.7],
                ],
              },
            ],
          }),
        ),
      ).path,
    ).toBe('markov.chains[0].transition[0][1]');
    expect(
      inputError(() =>
        validateSpec(
          spec({
            chains: [
              {
                ...binary,
                transition: [
                  [0.8, '0.2'],
                  [0.3, 0.7],
                ],
              },
            ],
          }),
        ),
      ).path,
    ).toBe('markov.chains[0].transition[0][1]');
    expect(inputError(() => validateSpec(spec({ chains: [{ ...binary, transition: [[0.8, 0.2]] }] }))).path).toBe('markov.chains[0].transition');
    expect(
      inputError(() =>
        validateSpec(
          spec({
            chains: [
              {
                ...binary,
                transition: [
                  [0.8, 0.2],
                  [0.3, 0.6, 0.1],
                ],
              },
            ],
          }),
        ),
      ).path,
    ).toBe('markov.chains[0].transition[1]');
  });

  it('T = 0, a fractional T, a missing length', () => {
    expect(inputError(() => validateSpec(spec({ length: 0 }))).path).toBe('markov.length');
    expect(inputError(() => validateSpec(spec({ length: 2.5 }))).path).toBe('markov.length');
    const { length: _, ...noLength } = spec();
    expect(inputError(() => validateSpec(noLength)).path).toBe('markov.length');
    // A number written as a string is named as one, not called "not an integer".
    expect(inputError(() => validateSpec(spec({ length: '100' }))).message).toBe(
      'markov.length: the string "100" (numbers are written without quotes) is not an integer ≥ 1',
    );
  });

  it('a query state that is not a state, an unknown query, a bad sum value', () => {
    expect(inputError(() => validateSpec(spec({ query: { count: 'snow' } }))).message).toMatch(
      /^markov\.query\.count: unknown state 'snow' \(states: \w+, \w+/,
    );
    expect(inputError(() => validateSpec(spec({ query: { sum: { wet: 1, snow: 2 } } }))).path).toBe('markov.query.sum.snow');
    expect(inputError(() => validateSpec(spec({ query: { sum: { wet: 'x' } } }))).path).toBe('markov.query.sum.wet');
    expect(inputError(() => validateSpec(spec({ query: { mean: 'wet' } }))).path).toBe('markov.query');
    expect(inputError(() => validateSpec(spec({ query: { histogram: 1 } }))).path).toBe('markov.query.histogram');
  });

  it('an initial law that is not a law, an unknown keyword, a stationary law that is not unique', () => {
    expect(inputError(() => validateSpec(spec({ chains: [{ ...binary, initial: [0.5, 0.6] }] }))).message).toBe(
      'markov.chains[0].initial: initial law sums to 1.1, not 1 (within 1e-12)',
    );
    expect(inputError(() => validateSpec(spec({ chains: [{ ...binary, initial: [1] }] }))).path).toBe('markov.chains[0].initial');
    expect(inputError(() => validateSpec(spec({ chains: [{ ...binary, initial: 'uniform' }] }))).path).toBe('markov.chains[0].initial');
    const identity = {
      ...binary,
      transition: [
        [1, 0],
        [0, 1],
      ],
    };
    expect(inputError(() => validateSpec(spec({ chains: [identity] }))).message).toMatch(/^markov\.chains\[0\]\.initial: the chain has 2 closed classes/);
  });

  it('duplicate states or chain names, too few states, no chains', () => {
    expect(inputError(() => validateSpec(spec({ states: ['dry', 'dry'] }))).path).toBe('markov.states[1]');
    expect(inputError(() => validateSpec(spec({ states: ['dry'] }))).path).toBe('markov.states');
    expect(inputError(() => validateSpec(spec({ chains: [binary, binary] }))).path).toBe('markov.chains[1].name');
    expect(inputError(() => validateSpec(spec({ chains: [] }))).path).toBe('markov.chains');
  });
});

describe('validateSpec: what it computes', () => {
  it('state names that are Object.prototype keys are ordinary names', () => {
    const states = ['constructor', '__proto__', 'toString'];
    const P = [
      [0.5, 0.25, 0.25],
      [0.25, 0.5, 0.25],
      [0.25, 0.25, 0.5],
    ];
    const sum = JSON.parse('{"__proto__": 2, "constructor": -1, "toString": 0.5}');
    const m = validateSpec({ states, chains: [{ name: '__proto__', transition: P, initial: 'any' }], length: 3, query: { sum } });
    expect(m.query).toEqual({ kind: 'sum', values: [-1, 2, 0.5] });
    expect(m.lipschitz).toBe(3);
    expect(m.chains[0].name).toBe('__proto__');
    expect(validateSpec({ states, chains: [{ name: 'c', transition: P, initial: 'any' }], length: 3, query: { count: 'toString' } }).query).toEqual({
      kind: 'count',
      state: 2,
    });
    expect(validateSpec({ states, chains: [{ name: 'c', transition: P, initial: 'any' }], length: 3, query: { count: '__proto__' } }).query).toEqual({
      kind: 'count',
      state: 1,
    });
    expect(inputError(() => validateSpec({ states, chains: [{ name: 'c', transition: P }], length: 3, query: { count: 'valueOf' } })).path).toBe(
      'markov.query.count',
    );
  });

  it('the stationary law is computed when asked for, and the Lipschitz constants are 1, the range, 2', () => {
    const m = validateSpec(spec());
    expect(m.chains[0].stationary).toBe(true);
    expect(m.chains[0].initial).toEqual({ law: [0.6, 0.4], roundings: 2 });
    expect(lipschitzOf({ kind: 'count', state: 0 })).toBe(1);
    expect(lipschitzOf({ kind: 'sum', values: [0, 2.5, -1] })).toBe(3.5);
    expect(lipschitzOf({ kind: 'histogram' })).toBe(2);
  });
});

/** An exact non-negative dyadic x as numerator over 2^shift. */
function scaled(x: number, shift: number): bigint {
  const { m, e } = dyadic(x);
  return m << BigInt(e + shift);
}

describe('stationaryLaw', () => {
  it('is the exact stationary law (by the tree theorem) rounded once, for 3 states', () => {
    const P = [
      [0.17, 0.59, 0.24],
      [0.48, 0.2, 0.32],
      [0.09, 0.31, 0.6],
    ];
    const S = 1100; // every entry times 2^S is an integer
    const p = P.map((r) => r.map((v) => scaled(v, S)));
    // Spanning in-trees of three states: π_j ∝ the sum over the three trees rooted at j.
    const w = [p[1][0] * p[2][0] + p[1][2] * p[2][0] + p[2][1] * p[1][0], p[0][1] * p[2][1] + p[0][2] * p[2][1] + p[2][0] * p[0][1], 0n];
    w[2] = p[0][2] * p[1][2] + p[0][1] * p[1][2] + p[1][0] * p[0][2];
    const total = w[0] + w[1] + w[2];
    const { law, roundings } = stationaryLaw(P);
    expect(roundings).toBe(2);
    law.forEach((v, j) => {
      const diff = scaled(v, S) * total - w[j] * 2n ** BigInt(S);
      expect(ratioToNumber(diff < 0n ? -diff : diff, w[j] * 2n ** BigInt(S))).toBeLessThanOrEqual(2 ** -52);
    });
  });

  it('puts zero on transient states and solves the one closed class', () => {
    const P = [
      [0.5, 0.5, 0],
      [0, 0.25, 0.75],
      [0, 0.5, 0.5],
    ];
    expect(closedClasses(P)).toEqual([[1, 2]]);
    expect(stationaryLaw(P).law).toEqual([0, 0.4, 0.6]);
  });

  it('handles periodic chains and tens of states quickly', () => {
    expect(
      stationaryLaw([
        [0, 1],
        [1, 0],
      ]).law,
    ).toEqual([0.5, 0.5]);
    const k = 40;
    const P = Array.from({ length: k }, (_, i) => Array.from({ length: k }, (_, j) => (j === (i + 1) % k ? 0.5 : 0.5 / (k - 1))));
    const started = performance.now();
    const { law } = stationaryLaw(P);
    expect(performance.now() - started).toBeLessThan(5000);
    for (const v of law) expect(v).toBeCloseTo(1 / k, 15);
  });
});
