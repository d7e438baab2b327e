/**
 * Non-negative numbers of any magnitude as m·2^e (m ∈ [1, 2) or m = 0, e an integer), stored in
 * parallel typed arrays. The laws of a long chain have masses like 0.01^1460, far below the
 * double range; with the exponent kept apart nothing underflows, and every operation below is
 * one rounding of the standard model (result·(1+δ), |δ| ≤ u = 2^−53) or exact.
 */

/** The exponent of a zero: so far below every real one that it loses every max and every alignment. */
export const ZERO_EXPONENT = -(2 ** 28);

/** Two exponents further apart than this: the smaller number is below 2^−998 of the larger and is dropped. */
export const DROP_GAP = 1000;

/** POW2[k + POW2_OFFSET] = 2^k for −1074 ≤ k ≤ 1023 (a table: the inner loops scale by it). */
export const POW2 = Float64Array.from({ length: 1074 + 1024 }, (_, i) => 2 ** (i - 1074));
export const POW2_OFFSET = 1074;

/**
 * 2^k exactly, for an integer −1074 ≤ k ≤ 1023.
 * @example pow2(-3) // 0.125
 */
export function pow2(k: number): number {
  return POW2[k + 1074];
}

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0; // the word holding the exponent bits

/**
 * ⌊log₂ v⌋ exactly, for a normal v > 0 (2^−1022 ≤ v < 2^1024): read off the exponent bits.
 * @example exponentOf(8) // 3; exponentOf(0.75) // -1
 */
export function exponentOf(v: number): number {
  F64[0] = v;
  return ((U32[HIGH] >>> 20) & 0x7ff) - 1023;
}

/** Parallel mantissa and exponent arrays (value[j] = m[j]·2^e[j]), all zero at first. */
export interface ExtArray {
  m: Float64Array;
  e: Int32Array;
}

/**
 * A zero-filled ExtArray of `n` entries.
 * @example extArray(3).e[0] === ZERO_EXPONENT // true
 */
export function extArray(n: number): ExtArray {
  return { m: new Float64Array(n), e: new Int32Array(n).fill(ZERO_EXPONENT) };
}

/**
 * Stores v·2^E at x[j] (v ≥ 0 any finite double): exact, a rescaling by a power of two.
 * @example const x = extArray(1); setExt(x, 0, 3, 10); [x.m[0], x.e[0]] // [1.5, 11]
 */
export function setExt(x: ExtArray, j: number, v: number, E: number): void {
  if (v === 0) {
    x.m[j] = 0;
    x.e[j] = ZERO_EXPONENT;
    return;
  }
  if (v < 2 ** -1022) {
    setExt(x, j, v * 2 ** 100, E - 100); // a subnormal: lift it first so that 2^−k stays finite
    return;
  }
  const k = exponentOf(v);
  x.m[j] = v * pow2(-k);
  x.e[j] = E + k;
}

/**
 * Adds v·2^E (v > 0, at least 2^−1022) to x[j] with one rounding: the aligned mantissas are
 * added once, or the far smaller one is dropped (a relative change below 2^−998 < u).
 * @example const x = extArray(1); addExt(x, 0, 1, 5000); addExt(x, 0, 1, 5000); [x.m[0], x.e[0]] // [1, 5001]
 */
export function addExt(x: ExtArray, j: number, v: number, E: number): void {
  const k = exponentOf(v);
  const mv = v * pow2(-k);
  const ev = E + k;
  const m0 = x.m[j];
  const e0 = x.e[j];
  if (m0 === 0 || ev - e0 > DROP_GAP) {
    x.m[j] = mv;
    x.e[j] = ev;
    return;
  }
  const d = e0 - ev;
  if (d > DROP_GAP) return;
  let m = d >= 0 ? m0 + mv * pow2(-d) : m0 * pow2(d) + mv;
  let e = d >= 0 ? e0 : ev;
  while (m >= 2) {
    m /= 2; // a loop only for safety: two mantissas below 2 sum to at most 4 − 2^−51
    e++;
  }
  x.m[j] = m;
  x.e[j] = e;
}

/**
 * x[j] as a double: exact when at least 2^−1022, rounded into the subnormals or to 0 below.
 * @example const x = extArray(1); setExt(x, 0, 1, -2000); toDouble(x, 0) // 0
 */
export function toDouble(x: ExtArray, j: number): number {
  const e = x.e[j];
  if (x.m[j] === 0 || e < -1100) return 0;
  if (e > 1023) return Infinity;
  return e >= -1022 ? x.m[j] * pow2(e) : x.m[j] * pow2(e + 60) * pow2(-60);
}

/**
 * The natural log of x[j] (−∞ for 0), with absolute error at most 4u·(|result| + 1).
 * @example const x = extArray(1); setExt(x, 0, 1, -2000); toLog(x, 0) // -1386.29…
 */
export function toLog(x: ExtArray, j: number): number {
  return x.m[j] === 0 ? -Infinity : Math.log(x.m[j]) + x.e[j] * Math.LN2;
}

/** A non-negative dyadic rational m·2^e, exact. */
export interface Dyadic {
  m: bigint;
  e: number;
}

const BITS = new DataView(new ArrayBuffer(8));

/**
 * A finite double x ≥ 0 as the exact dyadic rational it is.
 * @example dyadic(0.75) // { m: 6755399441055744n, e: -53 }
 */
export function dyadic(x: number): Dyadic {
  if (x === 0) return { m: 0n, e: 0 };
  BITS.setFloat64(0, x);
  const bits = BITS.getBigUint64(0);
  const exp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  return exp === 0 ? { m: frac, e: -1074 } : { m: frac | (1n << 52n), e: exp - 1075 };
}
