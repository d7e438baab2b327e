import type { Discrete } from '../distribution/discrete.js';
import { NumericalError } from '../errors.js';
import { EPS } from '../numerics/float.js';
import { gk21Points, gk21Sums } from '../numerics/gaussKronrod.js';
import type { Bounded } from '../numerics/logExpectation.js';
import { logAddExp, mixtureLogDensity, mixtureLogDensityPlain, mixtureOf, type Mixture, type Noise } from './mixture.js';

export interface ExactOptions {
  /** Target relative accuracy of ∫p^α q^{1−α}. Default 1e-12. */
  rtol?: number;
  /** `fast` (O(N+K) sweeps, default) or `plain` (O(N·K), the oracle). */
  evaluator?: 'fast' | 'plain';
  /** Integrate over [lo, hi] only (truncated releases); default the whole line. */
  interval?: [number, number];
}

export interface ExactDivergence extends Bounded {
  /** Density evaluations used (per mixture). */
  nodes: number;
}

const MAX_ROUNDS = 60;
const MAX_PANELS = 2_000_000;

/** log of the Mills-ratio bound Φ(−z) ≤ φ(z)/z, z > 0. */
const logMills = (z: number) => -0.5 * z * z - Math.log(z * Math.sqrt(2 * Math.PI));

/**
 * Exact Rényi divergence D_α(P_Y ‖ Q_Y) of Y = X + N for discrete X (MATH.md §4, derived):
 * P_Y, Q_Y are finite mixtures of shifted noise densities, so
 *     D_α = 1/(α−1) · log ∫ p(y)^α q(y)^{1−α} dy,   α ∈ (0,1) ∪ (1,∞),
 * computed by globally adaptive Gauss–Kronrod (G10/K21) quadrature in log-space.
 *
 * Method. Laplace panels never straddle an atom (the integrand has kinks there); Gaussian
 * panels start at atoms at least 4σ apart. Each gap is cut into panels growing geometrically
 * from both ends, starting at half the noise scale (Gaussian: σ), so the mass near every atom is resolved
 * from the first round. Panels whose |K21 − G10| share of
 * the total is large are bisected until Σ|K21 − G10| ≤ rtol·∫.
 * Tails. Laplace: beyond the outermost atoms both mixtures are ∝ e^{∓y/b}, so each tail is
 * exactly b·p(z)^α q(z)^{1−α} at the end atom z. Gaussian: integration stops at Lo/Hi, at least
 * 8.8σ beyond the atoms and beyond the centres α·x + (1−α)·x′ of the end atoms; the rest is
 * bounded in closed form (p ≤ φ(y−x₀) and q ≥ v₀φ(y−x′₀) on the left tail, φ^αφ^{1−α} a shifted
 * Gaussian, Mills' ratio; for α < 1, p^α q^{1−α} ≤ αp + (1−α)q) and added to the error.
 * Error. `error` bounds |computed − true| of D_α as (Σ|K21−G10| + tail bound)/∫ plus rounding
 * (node count and log-density magnitudes times 2^-52), divided by |α−1|. |K21−G10| is the
 * standard a-posteriori estimate, not a proof; it is conservative by orders of magnitude for
 * these analytic integrands and is checked against closed forms in the tests.
 *
 * @example exactRenyi(fromCounts([0], [1]), fromCounts([1], [1]), { family: 'gaussian', scale: 1 }, 2).value // α/2 = 1
 */
export function exactRenyi(p: Discrete, q: Discrete, noise: Noise, alpha: number, opts: ExactOptions = {}): ExactDivergence {
  if (!(alpha > 0) || alpha === 1 || alpha === Infinity) throw new RangeError(`exactRenyi: α must be in (0,1) ∪ (1,∞), got ${alpha}`);
  if (!(noise.scale > 0)) throw new RangeError(`exactRenyi: noise scale must be > 0, got ${noise.scale}`);
  const P = mixtureOf(p), Q = mixtureOf(q);
  const logI = logIntegralRetry(P, Q, noise, alpha, opts);
  if (!opts.interval) {
    const value = logI.value / (alpha - 1);
    return { value, error: logI.error / Math.abs(alpha - 1) + 2 * EPS * Math.abs(value), nodes: logI.nodes };
  }
  // Truncated outputs p·1_I/P(I), q·1_I/Q(I) (seed 004, MATH.md §5):
  //   ∫_I (p/P_I)^α (q/Q_I)^{1−α} = P_I^{−α} Q_I^{α−1} ∫_I p^α q^{1−α}.
  const mp = logIntegralRetry(P, P, noise, 1, opts), mq = logIntegralRetry(Q, Q, noise, 1, opts);
  const value = (logI.value - alpha * mp.value + (alpha - 1) * mq.value) / (alpha - 1);
  const error = (logI.error + alpha * mp.error + Math.abs(alpha - 1) * mq.error) / Math.abs(alpha - 1) + 2 * EPS * Math.abs(value);
  return { value, error, nodes: logI.nodes + mp.nodes + mq.nodes };
}

/** log of the probability a mixture's output lands in [lo, hi], with its error bound. */
export function logMassIn(p: Discrete, noise: Noise, interval: [number, number]): Bounded {
  const P = mixtureOf(p);
  return logIntegralRetry(P, P, noise, 1, { interval });
}

/**
 * Exact ε-Pufferfish level of the truncated Laplace release: sup over y ∈ I of
 * log p(y)/q(y) − log P(I) + log Q(I); the ratio is monotone between atoms, so the sup is at an
 * atom inside I or at a finite end of I.
 */
export function exactLaplaceDInfTruncated(p: Discrete, q: Discrete, b: number, interval: [number, number]): Bounded {
  const [lo, hi] = interval;
  const sup = supLogRatio(p, q, b, [lo, hi].filter(Number.isFinite), (y) => y >= lo && y <= hi);
  const noise: Noise = { family: 'laplace', scale: b };
  const mp = logMassIn(p, noise, interval), mq = logMassIn(q, noise, interval);
  return { value: sup.value - mp.value + mq.value, error: sup.error + mp.error + mq.error };
}

/** max of log p/q over the atoms of either mixture (plus `extra` points), kept where `keep` holds. */
function supLogRatio(p: Discrete, q: Discrete, b: number, extra: number[] = [], keep: (y: number) => boolean = () => true): Bounded {
  const P = mixtureOf(p), Q = mixtureOf(q);
  const pts = Float64Array.from(new Set([...P.x, ...Q.x, ...extra].filter(keep))).sort();
  const noise: Noise = { family: 'laplace', scale: b };
  const lp = mixtureLogDensity(P, noise, pts), lq = mixtureLogDensity(Q, noise, pts);
  let value = -Infinity, mag = 0;
  for (let i = 0; i < pts.length; i++) {
    value = Math.max(value, lp[i] - lq[i]);
    mag = Math.max(mag, Math.abs(lp[i]), Math.abs(lq[i]));
  }
  return { value, error: (16 + 4 * pts.length) * EPS * (1 + 2 * mag) };
}

/** logIntegral, moving the Gaussian cut-offs out when the integral is so small (α < 1) that the tail bound matters. */
function logIntegralRetry(P: Mixture, Q: Mixture, noise: Noise, alpha: number, opts: ExactOptions) {
  return integrateRetry(renyiIntegrand(P, Q, alpha, noise.scale), noise, opts);
}

/** Retries with the Gaussian cut-offs further out when the tail bound is not negligible (small integrals). */
export function integrateRetry(f: Integrand, noise: Noise, opts: ExactOptions) {
  const rtol = opts.rtol ?? 1e-12;
  const first = logIntegral(f, noise, opts, 0);
  return first.tailShare > rtol ? logIntegral(f, noise, opts, Math.log(first.tailShare / rtol) + 5) : first;
}

/**
 * A non-negative integrand built from mixture densities and homogeneous of degree 1 in them
 * (so beyond the outer atoms of a Laplace mixture it is ∝ e^{∓y/b}, and the tails are exact).
 */
export interface Integrand {
  mixtures: Mixture[];
  /** log of the integrand at node i, from each mixture's log density there. */
  combine(ld: Float64Array[], i: number): number;
  /** Multiplier of |log density| in the rounding error of the combined log. */
  sensitivity: number;
  /**
   * Gaussian tails: `shifted` = Rényi α > 1 (the mass sits near αx + (1−α)x′, bounded via
   * p ≤ φ(y−x₀), q ≥ v₀φ(y−x′₀)); `mass` = integrand ≤ e^{logC}·(a mixture's density), bounded
   * by Mills' ratio from the outer atoms.
   */
  tail: { mode: 'shifted'; muL: number; muR: number; shiftL: number; shiftR: number } | { mode: 'mass'; logC: number };
}

/** p^α q^{1−α}. */
function renyiIntegrand(P: Mixture, Q: Mixture, alpha: number, s: number): Integrand {
  const tail: Integrand['tail'] = alpha > 1
    ? {
        mode: 'shifted',
        muL: alpha * P.x[0] + (1 - alpha) * Q.x[0],
        muR: alpha * P.x[P.x.length - 1] + (1 - alpha) * Q.x[Q.x.length - 1],
        shiftL: (1 - alpha) * Q.logw[0] + (alpha * (alpha - 1) * (P.x[0] - Q.x[0]) ** 2) / (2 * s * s),
        shiftR: (1 - alpha) * Q.logw[Q.x.length - 1] + (alpha * (alpha - 1) * (P.x[P.x.length - 1] - Q.x[Q.x.length - 1]) ** 2) / (2 * s * s),
      }
    : { mode: 'mass', logC: 0 }; // α ≤ 1: p^α q^{1−α} ≤ αp + (1−α)q
  return { mixtures: [P, Q], combine: (ld, i) => alpha * ld[0][i] + (1 - alpha) * ld[1][i], sensitivity: alpha + Math.abs(1 - alpha), tail };
}

function evaluate(m: Mixture, noise: Noise, ys: Float64Array, plain: boolean): Float64Array {
  return plain ? mixtureLogDensityPlain(m, noise, ys) : mixtureLogDensity(m, noise, ys);
}

/** log ∫ f with its error bound; `extraNats` pushes the Gaussian cut-offs further out. */
function logIntegral(f: Integrand, noise: Noise, opts: ExactOptions, extraNats: number): Bounded & { nodes: number; tailShare: number } {
  const rtol = opts.rtol ?? 1e-12;
  const plain = opts.evaluator === 'plain';
  const s = noise.scale;
  const sens = f.sensitivity;
  const atoms = Float64Array.from(new Set(f.mixtures.flatMap((m) => [...m.x]))).sort();
  const z0 = atoms[0], zN = atoms[atoms.length - 1];
  const h = (ys: Float64Array) => {
    const ld = f.mixtures.map((m) => evaluate(m, noise, ys, plain));
    let mag = 0;
    const out = new Float64Array(ys.length);
    for (let i = 0; i < ys.length; i++) {
      out[i] = f.combine(ld, i);
      for (const l of ld) mag = Math.max(mag, Math.abs(l[i]));
    }
    return { h: out, mag };
  };

  // Domain, extra breakpoints and the log of the (exact or bounding) tail terms.
  const [LO, HI] = opts.interval ?? [-Infinity, Infinity];
  let lo = Math.max(z0, LO), hi = Math.min(zN, HI);
  const breaks = [...atoms, LO, HI];
  let tails: { logValue: number; logBound: number };
  if (noise.family === 'laplace') {
    // Beyond the outer atoms the integrand is e^{h(z)}·e^{−|y−z|/s}: integrate it in closed form
    // over the part of each tail inside [LO, HI]. log(e^u − e^v) = u + log(−expm1(v − u)), v < u ≤ 0.
    const ends = h(Float64Array.of(z0, zN));
    const piece = (hz: number, u: number, v: number) => (v < u ? hz + Math.log(s) + u + Math.log(-Math.expm1(v - u)) : -Infinity);
    const left = piece(ends.h[0], (Math.min(HI, z0) - z0) / s, (LO - z0) / s);
    const right = piece(ends.h[1], -(Math.max(LO, zN) - zN) / s, -(HI - zN) / s);
    tails = { logValue: logAddExp(left, right), logBound: -Infinity };
  } else {
    const shifted = f.tail.mode === 'shifted';
    const muL = f.tail.mode === 'shifted' ? f.tail.muL : z0;
    const muR = f.tail.mode === 'shifted' ? f.tail.muR : zN;
    const shiftL = f.tail.mode === 'shifted' ? f.tail.shiftL : f.tail.logC;
    const shiftR = f.tail.mode === 'shifted' ? f.tail.shiftR : f.tail.logC;
    const zstar = Math.sqrt(2 * (39 + Math.max(0, shiftL, shiftR) + extraNats));
    const cutL = Math.min(z0, muL) - zstar * s, cutR = Math.max(zN, muR) + zstar * s;
    // An interval lying wholly in a tail keeps zstar·σ of itself (the integrand peaks at its near end).
    lo = Math.max(LO, Math.min(cutL, HI - zstar * s));
    hi = Math.min(HI, Math.max(cutR, LO + zstar * s));
    breaks.push(lo, hi, muL, muR);
    // Tails are bounded only where a cut-off (not the interval) ends the domain; there lo ≤ min(x₀, μ_L).
    const left = LO < lo ? shiftL + logMills(((shifted ? muL : z0) - lo) / s) : -Infinity;
    const right = HI > hi ? shiftR + logMills((hi - (shifted ? muR : zN)) / s) : -Infinity;
    tails = { logValue: -Infinity, logBound: logAddExp(left, right) };
  }

  // Initial panels: geometric from both ends of every gap. The Gaussian integrand has no kinks,
  // so its breakpoints are thinned to at least σ apart (dense atoms share panels).
  let pts = Float64Array.from(new Set(breaks)).sort().filter((x) => x >= lo && x <= hi);
  if (!(hi > lo)) pts = new Float64Array(0);
  if (noise.family === 'gaussian' && pts.length > 0) {
    const kept = [pts[0]];
    for (let i = 1; i < pts.length; i++) if (pts[i] - kept[kept.length - 1] >= 4 * s || i === pts.length - 1) kept.push(pts[i]);
    pts = Float64Array.from(kept);
  }
  // Panels as flat [a0, b0, a1, b1, …], kept in increasing order so each round's nodes are sorted.
  let pending: number[] = [];
  for (let i = 0; i + 1 < pts.length; i++) {
    const a = pts[i], b = pts[i + 1];
    let w = noise.family === 'gaussian' ? s : s / 2, l = a, r = b;
    const right: number[] = [];
    while (r - l > 4 * w) {
      pending.push(l, l + w);
      right.push(r, r - w);
      l += w; r -= w; w *= 2;
    }
    pending.push(l, r);
    for (let k = right.length - 2; k >= 0; k -= 2) pending.push(right[k + 1], right[k]);
  }

  // Finished panels, struct-of-arrays: ends, log-shift, Kronrod and Gauss sums.
  let A: number[] = [], B: number[] = [], Mx: number[] = [], Kr: number[] = [], Ga: number[] = [];
  let nodes = 2, mag = 0;
  for (let round = 0; ; round++) {
    const n = pending.length / 2;
    const ys = new Float64Array(n * 21);
    for (let i = 0; i < n; i++) gk21Points(pending[2 * i], pending[2 * i + 1], ys, i * 21);
    const ev = h(ys);
    nodes += ys.length;
    mag = Math.max(mag, ev.mag);
    // Merge the new panels into the sorted finished list.
    const nA: number[] = [], nB: number[] = [], nM: number[] = [], nK: number[] = [], nG: number[] = [];
    let j = 0;
    for (let i = 0; i < n; i++) {
      const a = pending[2 * i], b = pending[2 * i + 1];
      while (j < A.length && A[j] < a) { nA.push(A[j]); nB.push(B[j]); nM.push(Mx[j]); nK.push(Kr[j]); nG.push(Ga[j]); j++; }
      let m = -Infinity;
      for (let t = 0; t < 21; t++) if (ev.h[i * 21 + t] > m) m = ev.h[i * 21 + t];
      const sums = m === -Infinity ? { kronrod: 0, gauss: 0 } : gk21Sums(ev.h, i * 21, a, b, m);
      nA.push(a); nB.push(b); nM.push(m); nK.push(sums.kronrod); nG.push(sums.gauss);
    }
    for (; j < A.length; j++) { nA.push(A[j]); nB.push(B[j]); nM.push(Mx[j]); nK.push(Kr[j]); nG.push(Ga[j]); }
    [A, B, Mx, Kr, Ga] = [nA, nB, nM, nK, nG];
    // Totals relative to the largest panel (or tail) shift.
    let M = tails.logValue;
    for (const m of Mx) if (m > M) M = m;
    let T = 0, E = 0;
    const err = new Float64Array(A.length);
    for (let i = 0; i < A.length; i++) {
      const f = Math.exp(Mx[i] - M);
      T += f * Kr[i];
      err[i] = f * Math.abs(Kr[i] - Ga[i]);
      E += err[i];
    }
    if (M === -Infinity) return { value: -Infinity, error: 0, nodes, tailShare: 0 }; // nothing in the domain: ∫ = 0
    const Ttot = T + Math.exp(tails.logValue - M);
    // Rounding floor: each node's exponent carries ~(α+|1−α|)·|log density| ulps, and summing
    // n positive terms up to n ulps; refining below that buys nothing.
    const floor = 64 * EPS * sens * (1 + mag) + (A.length * 21 + 16) * EPS;
    const tol = Math.max(rtol, floor);
    if (E <= tol * Ttot || round >= MAX_ROUNDS) {
      if (E > tol * Ttot && E > 1e-6 * Ttot) throw new NumericalError(`exact divergence: quadrature did not converge (relative error estimate ${E / Ttot})`);
      const bound = Math.exp(tails.logBound - M);
      const relErr = (E + bound) / Ttot + floor;
      return { value: M + Math.log(Ttot), error: relErr / (1 - Math.min(relErr, 0.5)), nodes, tailShare: bound / Ttot };
    }
    // Bisect the panels carrying more than their share of the error.
    const share = (tol * Ttot) / A.length;
    const kA: number[] = [], kB: number[] = [], kM: number[] = [], kK: number[] = [], kG: number[] = [];
    pending = [];
    for (let i = 0; i < A.length; i++) {
      if (err[i] > share && B[i] - A[i] > 4 * EPS * Math.max(Math.abs(A[i]), Math.abs(B[i]))) {
        const mid = (A[i] + B[i]) / 2;
        pending.push(A[i], mid, mid, B[i]);
      } else {
        kA.push(A[i]); kB.push(B[i]); kM.push(Mx[i]); kK.push(Kr[i]); kG.push(Ga[i]);
      }
    }
    if (pending.length === 0 || kA.length + pending.length / 2 > MAX_PANELS) {
      throw new NumericalError(`exact divergence: quadrature cannot refine further (relative error estimate ${E / Ttot})`);
    }
    [A, B, Mx, Kr, Ga] = [kA, kB, kM, kK, kG];
  }
}

/**
 * Exact ε-Pufferfish level of Laplace noise, D∞(P_Y ‖ Q_Y) = sup_y log p(y)/q(y) (MATH.md §4,
 * derived): between consecutive atoms both mixtures are A e^{y/b} + B e^{−y/b}, whose ratio is
 * monotone there, and beyond the outermost atoms the ratio is constant; so the sup is attained
 * at an atom. Evaluated at every atom of either support.
 */
export function exactLaplaceDInf(p: Discrete, q: Discrete, b: number): Bounded {
  return supLogRatio(p, q, b);
}

/**
 * D_α of the data itself, P_X vs Q_X (discrete): by data processing D_α(P_Y) ≤ D_α(P_X), so when
 * this meets the budget no noise is needed. ∞ when α ≥ 1 and P has mass where Q has none.
 */
export function discreteRenyi(p: Discrete, q: Discrete, alpha: number): Bounded {
  const qm = new Map<number, number>();
  q.values.forEach((v, i) => qm.set(v, q.masses[i]));
  const terms: number[] = [];
  for (let i = 0; i < p.values.length; i++) {
    const qq = qm.get(p.values[i]);
    if (qq === undefined) {
      if (alpha > 1) return { value: Infinity, error: 0 };
      continue;
    }
    terms.push(alpha * Math.log(p.masses[i]) + (1 - alpha) * Math.log(qq));
  }
  if (alpha === Infinity) {
    return { value: Math.max(...p.values.map((v, i) => Math.log(p.masses[i]) - Math.log(qm.get(v)!))), error: 8 * EPS * 40 };
  }
  if (terms.length === 0) return { value: Infinity, error: 0 };
  const M = Math.max(...terms);
  const value = (M + Math.log(terms.reduce((s, t) => s + Math.exp(t - M), 0))) / (alpha - 1);
  return { value, error: ((terms.length + 16) * EPS * (1 + Math.abs(M) * (alpha + Math.abs(1 - alpha)))) / Math.abs(alpha - 1) + 2 * EPS * Math.abs(value) };
}
