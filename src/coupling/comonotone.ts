import type { Discrete } from '../distribution/discrete.js';
import { checkShape, LAW } from '../shapes.js';
import { bitLength, ratioToNumber } from '../numerics/float.js';

/**
 * A coupling as a list of atoms (x_k, y_k) with positive masses m_k summing to 1.
 * `x` is drawn from the first distribution, `y` from the second.
 */
export interface Coupling {
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly mass: Float64Array;
}

/**
 * The comonotone (quantile, north-west-corner) coupling π* of docs/math.md §2 / the paper's
 * `π*(x,x') = ∂²/∂x∂x' min(F_i(x), F_j(x'))`: walk both CDFs in order and pair mass.
 * In 1-D it is optimal for every cost h(x−x') with h convex, hence for all the bounds here.
 *
 * Computed exactly: both distributions are put over the common denominator N·M and paired as
 * BigInt integers, so an atom exists iff its exact mass is positive (no float-cumsum dust that
 * would inflate W∞). O(K_P + K_Q) BigInt operations.
 *
 * @example comonotoneCoupling(fromCounts([0, 1], [1, 1]), fromCounts([0, 2], [1, 1])).y // [0, 2]: pairs (0, 0) and (1, 2), ½ each
 */
export function comonotoneCoupling(p: Discrete, q: Discrete): Coupling {
  checkShape(LAW, p, 'p');
  checkShape(LAW, q, 'q');
  const den = p.denominator * q.denominator;
  const denBits = bitLength(den);
  const xs: number[] = [];
  const ys: number[] = [];
  const ms: number[] = [];
  let i = 0;
  let j = 0;
  let ra = p.numerators[0] * q.denominator;
  let rb = q.numerators[0] * p.denominator;
  while (i < p.values.length && j < q.values.length) {
    // biome-ignore lint/complexity/useMathMinMax: BigInt has no Math.min
    const t = ra < rb ? ra : rb;
    xs.push(p.values[i]);
    ys.push(q.values[j]);
    ms.push(ratioToNumber(t, den, denBits));
    ra -= t;
    rb -= t;
    if (ra === 0n && ++i < p.values.length) ra = p.numerators[i] * q.denominator;
    if (rb === 0n && ++j < q.values.length) rb = q.numerators[j] * p.denominator;
  }
  return { x: Float64Array.from(xs), y: Float64Array.from(ys), mass: Float64Array.from(ms) };
}

/** The same coupling seen from the other side (x ↔ y): π* of (Q, P). */
export function transpose(c: Coupling): Coupling {
  return { x: c.y, y: c.x, mass: c.mass };
}

/** |x_k − y_k| for every atom. */
export function distances(c: Coupling): Float64Array {
  return c.x.map((x, k) => Math.abs(x - c.y[k]));
}
