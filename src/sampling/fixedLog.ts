import { bitLength } from '../numerics/float.js';

/**
 * Natural logarithm in binary fixed point with a rigorous enclosure: for s = n/2^k > 0,
 * returns integers [lo, hi] with lo·2^-P ≤ ln s ≤ hi·2^-P.
 *
 * s = m·2^j with m ∈ [1/√2, √2), ln s = j·ln 2 + 2·atanh(t), t = (m−1)/(m+1), |t| ≤ 0.1716;
 * atanh(t) = Σ t^{2i+1}/(2i+1). Every fixed-point step truncates (error ≤ 1 unit each, counted),
 * and the series tail is bounded by |t|^{2N+1}/(1−t²) ≤ one unit when it stops.
 * ln 2 = 2·atanh(1/3) is computed once per precision the same way.
 */

/** 2·atanh(t) with t = num/den (|t| ≤ 1/3) at P fractional bits: [value, error bound] in units of 2^-P. */
function twoAtanh(num: bigint, den: bigint, P: number): [bigint, bigint] {
  const t = (num << BigInt(P)) / den; // error ≤ 1
  const t2 = (t * t) >> BigInt(P); // error ≤ 1 + 2|t|
  let pow = t;
  let sum = t;
  let ops = 2n;
  for (let i = 1n; ; i++) {
    pow = (pow * t2) >> BigInt(P);
    const term = pow / (2n * i + 1n);
    sum += term;
    ops += 4n;
    if ((pow < 0n ? -pow : pow) < 2n) break;
    if (i > BigInt(P)) throw new Error('fixed ln: series did not converge');
  }
  // Errors: truncations (ops units), propagated error of t and t² through the powers (≤ 4 units
  // since |t| ≤ 1/3 damps them geometrically), and the tail (≤ 1 unit).
  return [2n * sum, 2n * (ops + 8n)];
}

const ln2Cache = new Map<number, [bigint, bigint]>();
function ln2(P: number): [bigint, bigint] {
  let v = ln2Cache.get(P);
  if (!v) {
    v = twoAtanh(1n, 3n, P);
    ln2Cache.set(P, v);
  }
  return v;
}

/** Enclosure [lo, hi] of ln(n / 2^k)·2^P, for n ≥ 1. */
export function lnEnclosure(n: bigint, k: number, P: number): [bigint, bigint] {
  if (n <= 0n) throw new RangeError('lnEnclosure: argument must be positive');
  let j = bitLength(n) - 1; // n = m·2^j, m ∈ [1, 2)
  let a = n,
    b = 1n << BigInt(j); // m = a/b
  // move m into [1/√2, √2): if m² ≥ 2, halve it
  if (a * a >= 2n * b * b) {
    b <<= 1n;
    j += 1;
  }
  const [t, et] = twoAtanh(a - b, a + b, P);
  const [l2, e2] = ln2(P);
  const exp = BigInt(j - k);
  const value = exp * l2 + t;
  const err = (exp < 0n ? -exp : exp) * e2 + et;
  return [value - err, value + err];
}
