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
 * With `tie` > 0, a step where F(i) and G(j) are certainly within (tie/2)·min(p_i, p_{i+1}) is
 * taken as the tie it is up to that: the W∞ of π*(P′, Q) for a law P′ whose every mass is within a
 * relative `tie` of P's (each adjustment moves mass between atoms i and i + 1 only, and each atom
 * takes part in at most two). For laws computed in floating point (a chain's), whose masses carry
 * rounding that breaks the exact ties of the true laws, the caller charges `tie` with the laws' own
 * error. `tie` = 0: exactly the coupling's W∞.
 * It reads `masses` as the doubles of `numerators / denominator`, as every law built by
 * `distribution/discrete.ts` carries them. O(K) double operations plus a few integer comparisons.
 * @example comonotoneWInf(fromCounts([0, 1], [1, 1]), fromCounts([0, 2], [1, 1])) // 1
 */
export function comonotoneWInf(p: Discrete, q: Discrete, tie = 0): number {
  const [K, L] = [p.values.length, q.values.length];
  const [Fp, Tp] = cumulative(p.masses);
  const [Fq, Tq] = cumulative(q.masses);
  const step = walkStep(p, q, Fp, Tp, Fq, Tq);
  let w = 0;
  let i = 0,
    j = 0;
  while (i < K && j < L) {
    const d = Math.abs(p.values[i] - q.values[j]);
    if (d > w) w = d;
    const c = step(i, j, tie);
    if (c <= 0) i++;
    if (c >= 0) j++;
  }
  return w;
}

/**
 * The walk's step at (i, j): the sign of F(i) − G(j) (−1: i moves on, 1: j, 0: both), from the
 * doubles where they decide it, else from the integers; with `tie` > 0 a near tie is a tie
 * (see `comonotoneWInf`).
 */
function walkStep(p: Discrete, q: Discrete, Fp: Float64Array, Tp: Float64Array, Fq: Float64Array, Tq: Float64Array) {
  const [K, L] = [p.values.length, q.values.length];
  const exact = exactCompare(p, q);
  return (i: number, j: number, tie: number): number => {
    const [rp, rq, tp, tq] = [(i + 3) * 1.01 * U, (j + 3) * 1.01 * U, (K - i + 2) * 1.01 * U, (L - j + 2) * 1.01 * U];
    if (tie > 0 && i + 1 < K && (nearTie(Fp[i], Fq[j], rp, rq, p.masses, i, tie) || nearTie(Tp[i], Tq[j], tp, tq, p.masses, i, tie))) return 0;
    const byTails = sign(Tp[i], Tq[j], tp, tq);
    return sign(Fp[i], Fq[j], rp, rq) ?? (byTails === null ? exact(i, j) : -byTails);
  };
}

/** The mass π* moves by each distance: distinct distances `d` (ascending) and upper bounds `w` on their masses. */
export interface Moves {
  d: Float64Array;
  w: Float64Array;
  /** The walk's steps (each mass one subtraction, summed into its distance's weight). */
  steps: number;
}

/**
 * Upper bounds on the mass the comonotone coupling π* (docs/math.md §2) moves by each distance,
 * without building π*'s exact masses: the walk of `comonotoneWInf` (tie 0) visits π*'s own pairs,
 * steered by certified signs; each step's mass is the difference of two breakpoints of the
 * distribution functions, each read from the prefix sums where it is at most ½ and from the suffix
 * sums (1 − F) above, so its error is (n + 3)·1.01·u times min(F, 1 − F) (see `comonotoneWInf`),
 * plus 2^-1074 per mass for subnormals; each weight adds its steps' masses and errors, rounded up.
 * With `logMomentUp`, a quick sufficient check of a condition log E_π* e^{g(|x − x′|)} ≤ target.
 * @example comonotoneMovesUp(fromCounts([0, 1], [1, 1]), fromCounts([0, 2], [1, 1])).d // Float64Array [0, 1]
 */
export function comonotoneMovesUp(p: Discrete, q: Discrete): Moves {
  const [K, L] = [p.values.length, q.values.length];
  const [Fp, Tp] = cumulative(p.masses);
  const [Fq, Tq] = cumulative(q.masses);
  const step = walkStep(p, q, Fp, Tp, Fq, Tq);
  const byD = new Map<number, number>();
  // A breakpoint as its prefix value, tail value and the error bound of each (0, 1, 0, 0 at the
  // start). A step's mass is read from the prefixes or from the tails of both its ends, and charged
  // both ends' errors in that reading: an end read one way but charged the other's error could
  // leave a long prefix's rounding uncharged.
  let loF = 0,
    loT = 1,
    loErrF = 0,
    loErrT = 0,
    steps = 0;
  let i = 0,
    j = 0;
  while (i < K && j < L) {
    const c = step(i, j, 0);
    // The segment ends at F(i) (c ≤ 0: F(i) ≤ G(j)) or G(j).
    const [hiF, hiT, [hiErrF, hiErrT]] = c <= 0 ? [Fp[i], Tp[i], breakErrs(Fp[i], Tp[i], i, K)] : [Fq[j], Tq[j], breakErrs(Fq[j], Tq[j], j, L)];
    const byPrefix = hiF <= 0.5;
    const m = byPrefix ? hiF - loF : loT - hiT;
    const err = byPrefix ? hiErrF + loErrF : hiErrT + loErrT;
    const d = Math.abs(p.values[i] - q.values[j]);
    byD.set(d, (byD.get(d) ?? 0) + (Math.max(0, m) * (1 + U) + err));
    steps++;
    [loF, loT, loErrF, loErrT] = [hiF, hiT, hiErrF, hiErrT];
    if (c <= 0) i++;
    if (c >= 0) j++;
  }
  const ds = [...byD.keys()].sort((x, y) => x - y);
  // Each weight is a sum of at most `steps` terms: rounded up by that many ulps.
  const up = 1 + 2 * U * (steps + 4);
  return { d: Float64Array.from(ds), w: Float64Array.from(ds, (d) => byD.get(d)! * up), steps };
}

/**
 * An upper bound on log E_π e^{g(d)} from the masses a coupling moves by each distance (`Moves`),
 * g ≥ 0 non-decreasing: Σ w·e^{g(d)} rounded up (each exp of a g a few ulps off, g ≤ g(max d)).
 * @example logMomentUp({ d: Float64Array.of(0, 1), w: Float64Array.of(0.5, 0.5), steps: 2 }, (d) => d) >= Math.log((1 + Math.E) / 2) // true
 */
export function logMomentUp(moves: Moves, g: (d: number) => number): number {
  const { d, w } = moves;
  let sum = 0;
  for (let k = 0; k < d.length; k++) sum += w[k] * Math.exp(g(d[k]));
  const gMax = d.length ? g(d[d.length - 1]) : 0;
  return Math.log(sum * (1 + 2 * U * (d.length + 8)) * Math.exp(8 * U * (1 + gMax))) * (1 + 2 * U) + 2 ** -1000;
}

/** A breakpoint's errors: (n + 3)·1.01·u·F by the prefix and (N − n + 2)·1.01·u·T by the tail, each with the subnormals' 2^-1074 per mass summed. */
function breakErrs(F: number, T: number, n: number, N: number): [number, number] {
  return [(n + 3) * 1.01 * U * F + (n + 1) * 2 ** -1074, (N - n + 2) * 1.01 * U * T + (N - n) * 2 ** -1074];
}

/**
 * Whether F(i) and G(j) (or their tails) are certainly within (tie/2)·min(p_i, p_{i+1}) of each
 * other: then moving that much mass between P's atoms i and i + 1 makes F(i) = G(j) exactly and
 * leaves every other value of F, and so every other step of the walk, as it was (docs/math.md §13).
 */
function nearTie(a: number, b: number, ra: number, rb: number, m: Float64Array, i: number, tie: number): boolean {
  if (a < NORMAL || b < NORMAL || m[i] < NORMAL || m[i + 1] < NORMAL) return false;
  const slack = (a * ra + b * rb) * (1 + 2 * (ra + rb) + 8 * U);
  // The masses are within 1.0001·u of the exact ones: the bound read off them is shrunk by more.
  const room = (tie / 2) * Math.min(m[i], m[i + 1]) * (1 - 1e-9);
  return Math.abs(a - b) + slack <= room;
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

/**
 * Below 2^-1000 the doubles of the masses (subnormals near 2^-1074) carry an absolute, not a
 * relative, error: such sums are left to the integers.
 */
const NORMAL = 2 ** -1000;

/** The sign of a − b when the relative error bounds ra, rb of a and b cannot change it, else null. */
function sign(a: number, b: number, ra: number, rb: number): -1 | 1 | null {
  if (a < NORMAL || b < NORMAL) return null;
  // The bounds are relative to the exact sums, read here from the computed ones (a factor 1 + r
  // more), and the slack and the difference are rounded once or twice each: 8u covers them.
  const slack = (a * ra + b * rb) * (1 + 2 * (ra + rb) + 8 * U);
  if (a - b > slack) return 1;
  if (b - a > slack) return -1;
  return null;
}

/**
 * sign(F(i) − G(j)) in integers: Σ_{k≤i} n^P_k·D_Q against Σ_{k≤j} n^Q_k·D_P in the walk's first
 * half, and in its second the same sign from the tails (D = Σ n exactly, so F(i) − G(j) =
 * (1 − G(j)) − (1 − F(i))): Σ_{k>j} n^Q_k·D_P against Σ_{k>i} n^P_k·D_Q. The walk only moves
 * forward and its near ties lie mostly in a tail, so each side's sums are built once, from its own
 * end, only as far as asked.
 */
function exactCompare(p: Discrete, q: Discrete): (i: number, j: number) => -1 | 0 | 1 {
  const [K, L] = [p.numerators.length, q.numerators.length];
  const heads = [sums(p.numerators, false), sums(q.numerators, false)];
  const tails = [sums(p.numerators, true), sums(q.numerators, true)];
  return (i, j) => {
    const byTails = i + j >= (K + L) / 2;
    const [a, b] = byTails ? [tails[1](j) * p.denominator, tails[0](i) * q.denominator] : [heads[0](i) * q.denominator, heads[1](j) * p.denominator];
    return a < b ? -1 : a > b ? 1 : 0;
  };
}

/**
 * Σ_{m≤k} ns_m (`tail` false) or Σ_{m>k} ns_m (`tail` true) at k, each built once and only as far
 * from its end as asked.
 */
function sums(ns: readonly bigint[], tail: boolean): (k: number) => bigint {
  const out: bigint[] = [];
  const n = ns.length;
  // out[m] is the sum at k = m (prefix) or at k = n − 1 − m (tail).
  return (k) => {
    const at = tail ? n - 1 - k : k;
    for (let m = out.length; m <= at; m++) out.push((m > 0 ? out[m - 1] : 0n) + (tail ? (m > 0 ? ns[n - m] : 0n) : ns[m]));
    return out[at];
  };
}
