import type { Discrete } from '../distribution/discrete.js';

/** Unit roundoff 2^-53. */
const U = 2 ** -53;

/**
 * W∞ of the comonotone coupling π* (docs/math.md §2) without building it: the largest |x_i − y_j|
 * over the pairs the north-west-corner walk gives positive mass, the walk steered by the sign of
 * F(i) − G(j) (the two laws' distribution functions at their i-th and j-th atoms: i moves on
 * when F(i) ≤ G(j), j when G(j) ≤ F(i)).
 *
 * Each sign is read from doubles when they decide it and from the exact rational masses
 * otherwise, so the walk — and the number — is `wInf(comonotoneCoupling(p, q))`'s exactly. The
 * masses are the correctly scaled doubles of the exact ones (relative error ≤ 1.0001·u), so a
 * prefix sum of n of them is within (n + 2)·1.01·u of the exact F(i) relative to it, and a suffix
 * sum likewise of the exact 1 − F(i); the sign is taken from whichever of F(i) − G(j) and
 * (1 − G(j)) − (1 − F(i)) exceeds its error bound (the tails keep their digits where F is near
 * 1), and from F(i)·D_Q versus G(j)·D_P in integers where neither does (ties and near ties).
 * It reads `masses` as the doubles of `numerators / denominator`, as every law built by
 * `distribution/discrete.ts` carries them. O(K) double operations plus a few integer comparisons.
 * @example comonotoneWInf(fromCounts([0, 1], [1, 1]), fromCounts([0, 2], [1, 1])) // 1
 */
export function comonotoneWInf(p: Discrete, q: Discrete): number {
  const [K, L] = [p.values.length, q.values.length];
  const [Fp, Tp] = cumulative(p.masses);
  const [Fq, Tq] = cumulative(q.masses);
  const exact = exactCompare(p, q);
  let w = 0;
  let i = 0,
    j = 0;
  while (i < K && j < L) {
    const d = Math.abs(p.values[i] - q.values[j]);
    if (d > w) w = d;
    const byTails = sign(Tp[i], Tq[j], (K - i + 2) * 1.01 * U, (L - j + 2) * 1.01 * U);
    const c = sign(Fp[i], Fq[j], (i + 3) * 1.01 * U, (j + 3) * 1.01 * U) ?? (byTails === null ? exact(i, j) : -byTails);
    if (c <= 0) i++;
    if (c >= 0) j++;
  }
  return w;
}

/**
 * Prefix sums F[i] = Σ_{k≤i} m_k and suffix sums T[i] = Σ_{k>i} m_k of positive doubles (each
 * within its relative bound of the exact sum, docs above).
 */
function cumulative(m: Float64Array): [Float64Array, Float64Array] {
  const F = new Float64Array(m.length),
    T = new Float64Array(m.length);
  let s = 0;
  for (let k = 0; k < m.length; k++) {
    s += m[k];
    F[k] = s;
  }
  s = 0;
  for (let k = m.length - 1; k >= 0; k--) {
    T[k] = s;
    s += m[k];
  }
  return [F, T];
}

/** The sign of a − b when the relative error bounds ra, rb of a and b cannot change it, else null. */
function sign(a: number, b: number, ra: number, rb: number): -1 | 1 | null {
  // The bounds are relative to the exact sums, read here from the computed ones (a factor 1 + r
  // more), and the slack and the difference are rounded once or twice each: 8u covers them.
  const slack = (a * ra + b * rb) * (1 + 2 * (ra + rb) + 8 * U);
  if (a - b > slack) return 1;
  if (b - a > slack) return -1;
  return null;
}

/** sign(F(i) − G(j)) in integers: Σ_{k≤i} n^P_k·D_Q against Σ_{k≤j} n^Q_k·D_P (prefix sums built on first need). */
function exactCompare(p: Discrete, q: Discrete): (i: number, j: number) => -1 | 0 | 1 {
  let SP: bigint[] | null = null,
    SQ: bigint[] | null = null;
  const prefix = (ns: readonly bigint[]) => {
    const out: bigint[] = [];
    let s = 0n;
    for (const n of ns) {
      s += n;
      out.push(s);
    }
    return out;
  };
  return (i, j) => {
    SP ??= prefix(p.numerators);
    SQ ??= prefix(q.numerators);
    const a = SP[i] * q.denominator,
      b = SQ[j] * p.denominator;
    return a < b ? -1 : a > b ? 1 : 0;
  };
}
