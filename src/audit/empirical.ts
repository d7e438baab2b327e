import { checkSetting } from '../settings.js';
import { InputError } from '../errors.js';
import { logGamma } from '../numerics/float.js';
import { rdpToDpSharp } from './conversion.js';

/** log B(a, b) and the regularized incomplete beta I_x(a, b) (continued fraction, Lentz). */
function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}
function betacf(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1,
    d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < tiny ? tiny : d);
  let h = d;
  for (let m = 1; m <= 10000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    d = 1 / (Math.abs(d) < tiny ? tiny : d);
    c = 1 + aa / c;
    c = Math.abs(c) < tiny ? tiny : c;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    d = 1 / (Math.abs(d) < tiny ? tiny : d);
    c = 1 + aa / c;
    c = Math.abs(c) < tiny ? tiny : c;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(a * Math.log(x) + b * Math.log1p(-x) - logBeta(a, b));
  return x < (a + 1) / (a + b + 2) ? (front * betacf(a, b, x)) / a : 1 - (front * betacf(b, a, 1 - x)) / b;
}
/**
 * The q-quantile of Beta(a, b) by bisection (60 halvings), returning the bracket end on the
 * conservative side: `down` for a lower confidence bound, up for an upper one.
 */
function betaQuantile(q: number, a: number, b: number, down: boolean): number {
  let lo = 0,
    hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (incompleteBeta(mid, a, b) < q) lo = mid;
    else hi = mid;
  }
  return down ? lo : hi;
}

/**
 * Clopper–Pearson one-sided bounds for a binomial proportion k/n, each holding with
 * probability ≥ 1 − a: lower = Beta(a; k, n−k+1), upper = Beta(1−a; k+1, n−k).
 */
function clopperPearson(k: number, n: number, a: number): { lower: number; upper: number } {
  return { lower: k === 0 ? 0 : betaQuantile(a, k, n - k + 1, true), upper: k === n ? 1 : betaQuantile(1 - a, k + 1, n - k, false) };
}

/** The guarantee an empirical audit tests: (α, ε)-Rényi Pufferfish privacy (α = ∞: ε-Pufferfish). */
export interface EmpiricalClaim {
  /** Claimed (α, ε)-RPP; α = ∞ is ε-Pufferfish privacy. */
  alpha: number;
  epsilon: number;
}

/** A sampling test of a claimed (α, ε): the lower bound on ε it found, its verdict and power, and the witness of a violation. */
export interface EmpiricalAuditResult {
  samples: number;
  level: number;
  delta: number;
  /** The ε′ the claim implies at δ (sharper conversion; α = ∞: ε itself). */
  claimed: number;
  /** Lower confidence bound on the ε achievable at δ, from the best threshold set. */
  lowerBound: number;
  verdict: 'no violation detected' | 'violation';
  /**
   * Its power, roughly: at the best threshold set the confidence bounds cost this much ε (point
   * estimate minus lower bound), so violations smaller than about this go undetected. null
   * without a usable set.
   */
  resolution: number | null;
  witness: { set: string; direction: string; pFirst: number; pSecond: number } | null;
}

/**
 * Sample-based privacy audit (docs/math.md §7, ours): draws outputs of a release path under two
 * secrets, and for threshold sets {y > t}, {y ≤ t} (thresholds chosen on a separate pilot
 * sample) bounds P₁(E) from below and P₂(E) from above by Clopper–Pearson, giving
 * ε ≥ log((P₁(E) − δ)/P₂(E)) for any mechanism that is (ε, δ)-indistinguishable. With a union
 * bound over all sets and both directions, a "violation" is reported with probability at most
 * `level` when the claimed guarantee holds: the test can only reject wrongly that rarely.
 * @example
 * let k = 0;
 * empiricalAudit(() => k++ % 7, () => k++ % 7, { alpha: Infinity, epsilon: 1 }, { samples: 1000 }).verdict // "no violation detected": the same law twice
 */
export function empiricalAudit(
  first: () => number,
  second: () => number,
  claim: EmpiricalClaim,
  opts: { samples?: number; level?: number; delta?: number; thresholds?: number } = {},
): EmpiricalAuditResult {
  const n = opts.samples ?? 50_000;
  const level = opts.level ?? 1e-3;
  const delta = opts.delta ?? 1e-3;
  const T = opts.thresholds ?? 32;
  if (!Number.isSafeInteger(n) || n < 100) throw new InputError(`must be a whole number ≥ 100, got ${n}`, 'samples');
  checkSetting('level', level);
  checkSetting('delta', delta);
  const claimed = claim.alpha === Infinity ? claim.epsilon : rdpToDpSharp(claim.epsilon, claim.alpha, delta);
  // Pilot: thresholds at the quantiles of a separate sample, so they do not depend on the test data.
  const pilot = [...Array.from({ length: 2000 }, first), ...Array.from({ length: 2000 }, second)].sort((a, b) => a - b);
  const ts = Array.from({ length: T }, (_, i) => pilot[Math.floor(((i + 0.5) / T) * pilot.length)]);
  const a = Array.from({ length: n }, first).sort((x, y) => x - y);
  const b = Array.from({ length: n }, second).sort((x, y) => x - y);
  const above = (xs: number[], t: number) => {
    let lo = 0,
      hi = xs.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (xs[m] > t) hi = m;
      else lo = m + 1;
    }
    return xs.length - lo;
  };
  const tests = T * 2 * 2; // thresholds × {>, ≤} × directions
  const each = level / (2 * tests); // two one-sided bounds per test
  let best = -Infinity;
  let witness: EmpiricalAuditResult['witness'] = null;
  for (const t of ts) {
    const ka = above(a, t),
      kb = above(b, t);
    for (const [set, k1, k2, dir] of [
      [`y > ${t}`, ka, kb, '1 vs 2'],
      [`y > ${t}`, kb, ka, '2 vs 1'],
      [`y ≤ ${t}`, n - ka, n - kb, '1 vs 2'],
      [`y ≤ ${t}`, n - kb, n - ka, '2 vs 1'],
    ] as const) {
      const p1 = clopperPearson(k1, n, each).lower,
        p2 = clopperPearson(k2, n, each).upper;
      if (p1 <= delta) continue;
      const e = Math.log((p1 - delta) / p2);
      if (e > best) {
        best = e;
        witness = { set, direction: dir, pFirst: k1 / n, pSecond: k2 / n };
      }
    }
  }
  const point = witness && witness.pFirst > delta && witness.pSecond > 0 ? Math.log((witness.pFirst - delta) / witness.pSecond) : null;
  const resolution = point === null || !Number.isFinite(best) ? null : Math.max(0, point - best);
  return { samples: n, level, delta, claimed, lowerBound: best, verdict: best > claimed ? 'violation' : 'no violation detected', resolution, witness };
}
