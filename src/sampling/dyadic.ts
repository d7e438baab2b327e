/**
 * Exact dyadic rationals m·2^e (BigInt m): every double is one, and sums and products stay
 * exact. Used to carry x + Z exactly until it is rounded once, to the nearest double.
 */
export interface Dyadic {
  m: bigint;
  e: number;
}

import { bitLength, ldexp } from '../numerics/float.js';

const view = new DataView(new ArrayBuffer(8));

/** The exact value of a finite double. */
export function fromDouble(x: number): Dyadic {
  if (!Number.isFinite(x)) throw new RangeError(`fromDouble: ${x} is not finite`);
  if (x === 0) return { m: 0n, e: 0 };
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const be = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & 0xfffffffffffffn;
  const m = be === 0 ? frac : frac | (1n << 52n);
  return { m: bits >> 63n ? -m : m, e: (be === 0 ? 1 : be) - 1075 };
}

export const add = (a: Dyadic, b: Dyadic): Dyadic =>
  a.e <= b.e ? { m: a.m + (b.m << BigInt(b.e - a.e)), e: a.e } : { m: (a.m << BigInt(a.e - b.e)) + b.m, e: b.e };
export const mul = (a: Dyadic, b: Dyadic): Dyadic => ({ m: a.m * b.m, e: a.e + b.e });
export const neg = (a: Dyadic): Dyadic => ({ m: -a.m, e: a.e });
export const cmp = (a: Dyadic, b: Dyadic): number => {
  const d = add(a, neg(b)).m;
  return d > 0n ? 1 : d < 0n ? -1 : 0;
};

/** Round-to-nearest-even of an exact dyadic to a double (±∞ beyond the double range). */
export function toDouble(a: Dyadic): number {
  if (a.m === 0n) return 0;
  const sign = a.m < 0n ? -1 : 1;
  let mag = a.m < 0n ? -a.m : a.m;
  let e = a.e;
  const top = bitLength(mag) - 1 + e; // exponent of the leading bit
  const quantum = Math.max(top - 52, -1074); // exponent of the last kept bit
  const shift = quantum - e;
  if (shift > 0) {
    const rem = mag & ((1n << BigInt(shift)) - 1n);
    mag >>= BigInt(shift);
    const half = 1n << BigInt(shift - 1);
    if (rem > half || (rem === half && (mag & 1n) === 1n)) mag += 1n;
    e = quantum;
  }
  if (top > 1023) return sign * Infinity;
  return sign * ldexp(Number(mag), e);
}
