import { EPS } from './float.js';

/** A computed quantity with a rigorous bound on its absolute floating-point error. */
export interface Bounded {
  value: number;
  error: number;
}

/**
 * The worse of certified quantities: the one whose upper end (value + error) is largest (the first
 * on a tie). Null (a rule that declined), none, or a NaN among them is unbounded: Infinity, so
 * nothing is ever certified on it.
 * @example worseOf([{ value: 1, error: 0.5 }, { value: 1.2, error: 0 }]) // { value: 1, error: 0.5 }
 */
export function worseOf(xs: readonly Bounded[] | null): Bounded {
  const unbounded = { value: Infinity, error: 0 };
  if (!xs?.length) return unbounded;
  let worst = xs[0];
  for (const x of xs) {
    if (Number.isNaN(x.value + x.error)) return unbounded;
    if (x.value + x.error > worst.value + worst.error) worst = x;
  }
  return worst;
}

/**
 * `log Σ_k m_k · e^{t_k}` for probability masses `m` (Σ m = 1 in exact arithmetic, each m_k
 * within a relative 2·2^-53 of its true value) and exponents `t`, with an absolute error bound.
 *
 * Two evaluations, both log-space (no overflow for any finite t):
 * - all |t_k| ≤ 1: `log1p(Σ m_k·expm1(t_k))`. Uses Σ m = 1 exactly, so tiny budgets
 *   ((α−1)ε ≈ 1e-12) keep full relative accuracy; error ≤ (n+16)·EPS·Σ m|expm1 t| / (1+S).
 * - otherwise log-sum-exp around the largest exponent M; error ≤ (n+16)·EPS·(1 + max|t| + |value|).
 * Both bounds assume the standard model (each +,×,exp,log within 1 ulp) and add slack for the
 * rounding of `t_k` itself (computed by the caller from a few multiplications).
 */
export function logExpectationExp(m: ArrayLike<number>, t: ArrayLike<number>): Bounded {
  const n = m.length;
  let maxAbs = 0;
  let maxT = -Infinity;
  for (let k = 0; k < n; k++) {
    const a = Math.abs(t[k]);
    if (a > maxAbs) maxAbs = a;
    if (t[k] > maxT) maxT = t[k];
  }
  const slack = (n + 16) * EPS;
  if (maxAbs <= 1) {
    let s = 0;
    let a = 0;
    for (let k = 0; k < n; k++) {
      const e = m[k] * Math.expm1(t[k]);
      s += e;
      a += Math.abs(e);
    }
    const value = Math.log1p(s);
    return { value, error: (slack * a) / (1 + s) + 2 * EPS * Math.abs(value) };
  }
  let s = 0;
  for (let k = 0; k < n; k++) s += m[k] * Math.exp(t[k] - maxT);
  const value = maxT + Math.log(s);
  return { value, error: slack * (1 + maxAbs + Math.abs(value)) };
}

/**
 * `logExpectationExp([m0, m1], [t0, t1])` without the arrays: the same operations in the same
 * order, so the same doubles (a coupled bound calls it once per coupled pair at every trial scale).
 * @example logExpectationExp2(0.5, 0.5, 0, 0).value // 0
 */
export function logExpectationExp2(m0: number, m1: number, t0: number, t1: number): Bounded {
  let maxAbs = 0,
    maxT = -Infinity;
  if (Math.abs(t0) > maxAbs) maxAbs = Math.abs(t0);
  if (Math.abs(t1) > maxAbs) maxAbs = Math.abs(t1);
  if (t0 > maxT) maxT = t0;
  if (t1 > maxT) maxT = t1;
  const slack = 18 * EPS;
  if (maxAbs <= 1) {
    const e0 = m0 * Math.expm1(t0),
      e1 = m1 * Math.expm1(t1);
    const s = 0 + e0 + e1;
    const value = Math.log1p(s);
    return { value, error: (slack * (0 + Math.abs(e0) + Math.abs(e1))) / (1 + s) + 2 * EPS * Math.abs(value) };
  }
  const s = 0 + m0 * Math.exp(t0 - maxT) + m1 * Math.exp(t1 - maxT);
  const value = maxT + Math.log(s);
  return { value, error: slack * (1 + maxAbs + Math.abs(value)) };
}
