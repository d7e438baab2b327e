/**
 * The secret-conditional laws by enumerating all k^T paths, in exact rational arithmetic: the
 * oracle for the forward–backward laws in tests (small T only).
 */
import { ratioToNumber } from '../numerics/float.js';
import { type Dyadic, dyadic } from './extended.js';
import type { StepModel } from './laws.js';

function add(a: Dyadic | undefined, b: Dyadic): Dyadic {
  if (a === undefined || a.m === 0n) return b;
  if (b.m === 0n) return a;
  const e = Math.min(a.e, b.e);
  return { m: (a.m << BigInt(a.e - e)) + (b.m << BigInt(b.e - e)), e };
}

/** The exact law of F given X_i = a: masses numerators[j]/denominator at codes[j] (increasing). */
export interface ExactLaw {
  time: number;
  state: number;
  codes: number[];
  numerators: bigint[];
  denominator: bigint;
  /** The doubles nearest the masses (within ~1 ulp). */
  masses: Float64Array;
}

/** Calls back once per path with its exact weight and its states. */
function enumerate(model: StepModel, q: readonly Dyadic[], P: Dyadic[][], visit: (w: Dyadic, path: number[]) => void): void {
  const k = q.length;
  const path: number[] = [];
  const go = (w: Dyadic) => {
    if (w.m === 0n) return;
    if (path.length === model.length) return visit(w, path);
    for (let y = 0; y < k; y++) {
      const step = path.length === 0 ? q[y] : P[path[path.length - 1]][y];
      path.push(y);
      go({ m: w.m * step.m, e: w.e + step.e });
      path.pop();
    }
  };
  go({ m: 1n, e: 0 });
}

function normalise(time: number, state: number, joint: Map<number, Dyadic>): ExactLaw {
  const codes = [...joint.keys()].sort((a, b) => a - b);
  const e = Math.min(...codes.map((c) => joint.get(c)!.e));
  const numerators = codes.map((c) => joint.get(c)!.m << BigInt(joint.get(c)!.e - e));
  const denominator = numerators.reduce((a, b) => a + b, 0n);
  return { time, state, codes, numerators, denominator, masses: Float64Array.from(numerators, (n) => ratioToNumber(n, denominator)) };
}

/**
 * laws[i][a]: the exact law of F's code given X_i = a (null if impossible), from every path of the
 * chain started at q. Refuses more than 2^22 paths.
 * @example bruteForceLaws(stepModel([[0.5, 0.5], [0.5, 0.5]], 2, { kind: 'count', state: 1 }), [0.5, 0.5])[0][1].masses // [0.5, 0.5]
 */
export function bruteForceLaws(model: StepModel, q: readonly number[]): (ExactLaw | null)[][] {
  const k = q.length;
  if (k ** model.length > 2 ** 22) throw new RangeError(`bruteForceLaws: ${k}^${model.length} paths is too many`);
  const joint = [...Array(model.length)].map(() => [...Array(k)].map(() => new Map<number, Dyadic>()));
  const P = model.transition.map((row) => row.map(dyadic));
  enumerate(model, q.map(dyadic), P, (w, path) => {
    const code = path.reduce((s, x) => s + model.shifts[x], 0);
    path.forEach((x, i) => {
      joint[i][x].set(code, add(joint[i][x].get(code), w));
    });
  });
  return joint.map((row, i) => row.map((m, a) => (m.size === 0 ? null : normalise(i, a, m))));
}
