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
}

export interface ExactDivergence extends Bounded {
  /** Density evaluations used (per mixture). */
  nodes: number;
}

interface Panel { a: number; b: number; m: number; k: number; g: number }

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
 * Method. Panels never straddle an atom (the Laplace integrand has kinks there); each gap is
 * cut into panels growing geometrically from both ends, starting at half the noise scale, so
 * the mass near every atom is resolved from the first round. Panels whose |K21 − G10| share of
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
  let logI = logIntegral(P, Q, noise, alpha, opts, 0);
  // For α < 1 the integral can be tiny, so the Gaussian tail cut-off may need to move out.
  if (logI.tailShare > (opts.rtol ?? 1e-12)) logI = logIntegral(P, Q, noise, alpha, opts, Math.log(logI.tailShare / (opts.rtol ?? 1e-12)) + 5);
  const value = logI.value / (alpha - 1);
  return { value, error: logI.error / Math.abs(alpha - 1) + 2 * EPS * Math.abs(value), nodes: logI.nodes };
}

function evaluate(m: Mixture, noise: Noise, ys: Float64Array, plain: boolean): Float64Array {
  return plain ? mixtureLogDensityPlain(m, noise, ys) : mixtureLogDensity(m, noise, ys);
}

/** log ∫ p^α q^{1−α} with its error bound; `extraNats` pushes the Gaussian cut-offs further out. */
function logIntegral(P: Mixture, Q: Mixture, noise: Noise, alpha: number, opts: ExactOptions, extraNats: number): Bounded & { nodes: number; tailShare: number } {
  const rtol = opts.rtol ?? 1e-12;
  const plain = opts.evaluator === 'plain';
  const s = noise.scale;
  const atoms = Float64Array.from(new Set([...P.x, ...Q.x])).sort();
  const z0 = atoms[0], zN = atoms[atoms.length - 1];
  const h = (ys: Float64Array) => {
    const lp = evaluate(P, noise, ys, plain), lq = evaluate(Q, noise, ys, plain);
    let mag = 0;
    const out = new Float64Array(ys.length);
    for (let i = 0; i < ys.length; i++) {
      out[i] = alpha * lp[i] + (1 - alpha) * lq[i];
      mag = Math.max(mag, Math.abs(lp[i]), Math.abs(lq[i]));
    }
    return { h: out, mag };
  };

  // Domain, extra breakpoints and the log of the (exact or bounding) tail terms.
  let lo = z0, hi = zN;
  const breaks = [...atoms];
  let tails: { logValue: number; logBound: number };
  if (noise.family === 'laplace') {
    const ends = h(Float64Array.of(z0, zN));
    const logTail = logAddExp(ends.h[0], ends.h[1]) + Math.log(s);
    tails = { logValue: logTail, logBound: -Infinity };
  } else {
    const muL = alpha > 1 ? alpha * P.x[0] + (1 - alpha) * Q.x[0] : z0;
    const muR = alpha > 1 ? alpha * P.x[P.x.length - 1] + (1 - alpha) * Q.x[Q.x.length - 1] : zN;
    const shiftL = alpha > 1 ? (1 - alpha) * Q.logw[0] + (alpha * (alpha - 1) * (P.x[0] - Q.x[0]) ** 2) / (2 * s * s) : 0;
    const shiftR = alpha > 1 ? (1 - alpha) * Q.logw[Q.x.length - 1] + (alpha * (alpha - 1) * (P.x[P.x.length - 1] - Q.x[Q.x.length - 1]) ** 2) / (2 * s * s) : 0;
    const zstar = Math.sqrt(2 * (39 + Math.max(0, shiftL, shiftR) + extraNats));
    lo = Math.min(z0, muL) - zstar * s;
    hi = Math.max(zN, muR) + zstar * s;
    breaks.push(lo, hi, muL, muR);
    const logBound = alpha > 1
      ? logAddExp(shiftL + logMills((muL - lo) / s), shiftR + logMills((hi - muR) / s))
      : logAddExp(logMills((z0 - lo) / s), logMills((hi - zN) / s));
    tails = { logValue: -Infinity, logBound };
  }

  // Initial panels: geometric from both ends of every gap.
  const pts = Float64Array.from(new Set(breaks)).sort().filter((x) => x >= lo && x <= hi);
  let pending: [number, number][] = [];
  for (let i = 0; i + 1 < pts.length; i++) {
    const a = pts[i], b = pts[i + 1];
    let w = s / 2, l = a, r = b;
    const left: [number, number][] = [], right: [number, number][] = [];
    while (r - l > 2 * w) {
      left.push([l, l + w]);
      right.push([r - w, r]);
      l += w; r -= w; w *= 2;
    }
    pending.push(...left, [l, r], ...right.reverse());
  }

  const done: Panel[] = [];
  let nodes = 2, mag = 0;
  for (let round = 0; ; round++) {
    // Evaluate all pending panels in one sorted sweep per mixture.
    pending.sort((x, y) => x[0] - y[0]);
    const ys = new Float64Array(pending.length * 21);
    pending.forEach(([a, b], i) => gk21Points(a, b, ys, i * 21));
    const ev = h(ys);
    nodes += ys.length;
    mag = Math.max(mag, ev.mag);
    pending.forEach(([a, b], i) => {
      let m = -Infinity;
      for (let j = 0; j < 21; j++) m = Math.max(m, ev.h[i * 21 + j]);
      const { kronrod, gauss } = m === -Infinity ? { kronrod: 0, gauss: 0 } : gk21Sums(ev.h, i * 21, a, b, m);
      done.push({ a, b, m, k: kronrod, g: gauss });
    });
    // Totals relative to the largest panel (or tail) shift.
    let M = tails.logValue;
    for (const pn of done) if (pn.m > M) M = pn.m;
    let T = 0, E = 0;
    for (const pn of done) {
      const f = Math.exp(pn.m - M);
      T += f * pn.k;
      E += f * Math.abs(pn.k - pn.g);
    }
    const tl = tails;
    const Ttot = T + Math.exp(tl.logValue - M);
    // Rounding floor: each node's exponent carries ~(α+|1−α|)·|log density| ulps.
    const floor = 64 * EPS * (alpha + Math.abs(1 - alpha)) * (1 + mag);
    const tol = Math.max(rtol, floor);
    if (E <= tol * Ttot || round >= MAX_ROUNDS) {
      if (E > tol * Ttot && E > 1e-6 * Ttot) throw new NumericalError(`exact divergence: quadrature did not converge (relative error estimate ${E / Ttot})`);
      const bound = Math.exp(tl.logBound - M);
      const relErr = (E + bound) / Ttot + (done.length * 21 + 16) * EPS + floor / 4;
      return { value: M + Math.log(Ttot), error: relErr / (1 - Math.min(relErr, 0.5)), nodes, tailShare: bound / Ttot };
    }
    // Bisect the panels carrying more than their share of the error.
    const share = (tol * Ttot) / done.length;
    const keep: Panel[] = [];
    pending = [];
    for (const pn of done) {
      if (Math.exp(pn.m - M) * Math.abs(pn.k - pn.g) > share && pn.b - pn.a > 4 * EPS * Math.max(Math.abs(pn.a), Math.abs(pn.b))) {
        const mid = (pn.a + pn.b) / 2;
        pending.push([pn.a, mid], [mid, pn.b]);
      } else keep.push(pn);
    }
    if (pending.length === 0 || keep.length + pending.length > MAX_PANELS) {
      throw new NumericalError(`exact divergence: quadrature cannot refine further (relative error estimate ${E / Ttot})`);
    }
    done.length = 0;
    done.push(...keep);
  }
}

/**
 * Exact ε-Pufferfish level of Laplace noise, D∞(P_Y ‖ Q_Y) = sup_y log p(y)/q(y) (MATH.md §4,
 * derived): between consecutive atoms both mixtures are A e^{y/b} + B e^{−y/b}, whose ratio is
 * monotone there, and beyond the outermost atoms the ratio is constant; so the sup is attained
 * at an atom. Evaluated at every atom of either support.
 */
export function exactLaplaceDInf(p: Discrete, q: Discrete, b: number): Bounded {
  const P = mixtureOf(p), Q = mixtureOf(q);
  const atoms = Float64Array.from(new Set([...P.x, ...Q.x])).sort();
  const noise: Noise = { family: 'laplace', scale: b };
  const lp = mixtureLogDensity(P, noise, atoms), lq = mixtureLogDensity(Q, noise, atoms);
  let value = -Infinity, mag = 0;
  for (let i = 0; i < atoms.length; i++) {
    value = Math.max(value, lp[i] - lq[i]);
    mag = Math.max(mag, Math.abs(lp[i]), Math.abs(lq[i]));
  }
  return { value, error: (16 + 4 * atoms.length) * EPS * (1 + 2 * mag) };
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
