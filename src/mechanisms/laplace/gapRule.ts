import { log2x } from '../../numerics/float.js';
import type { OnePassIntegral } from '../../divergence/kernel.js';
import { logAddExp, U, type Mixture } from '../../divergence/mixture.js';
import { gaussLegendre } from '../../numerics/gaussLegendre.js';
import { cachedSweeps, halvesAt } from './sweeps.js';
import { scaledSums } from '../../numerics/scaledSums.js';

/** Highest Gauss–Legendre order tried on a panel, and the most panels one gap may take. */
const MAX_ORDER = 12;
export const MAX_PANELS_PER_GAP = 512;
/** The same for a quick check (`quick`): a gap's middle is bounded from this many panels on. */
const QUICK_PANELS_PER_GAP = 64;
/** Ellipse heights tried (in units of b; below π/2, where a Laplace mixture's gap form can vanish). */
const HEIGHTS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 1, 1.2, 1.4, 1.5];

/**
 * log of c(n, r) with |∫_panel f − G_n(f)| ≤ r·c·f(t*) for an n-point Gauss–Legendre panel of
 * half-width r (units of b) and t* its node nearest the centre (docs/math.md §8, "Gap rule").
 * G_n has positive weights summing to 2 on [−1, 1], is exact to degree 2n − 1 and symmetric (odd
 * T_j cancel), so with |a_j| ≤ 2Mρ^{−j} [T13, Thm 8.1], |∫T_j| ≤ 2/(j²−1) and |G_n(T_j)| ≤ 2:
 *     |∫f − G_n f| ≤ Σ_{j ≥ 2n even} 2Mρ^{−j}·(2 + 2/(4n²−1)) = 4(1 + 1/(4n²−1))·M·ρ^{2−2n}/(ρ²−1).
 * M ≤ f(t*)·e^{S(A + d·r)}·cos(B)^{−N} on the box of semi-axes A = √(B² + r²), B, minimised over
 * the heights B tried; S = Σ|a_k|, N = Σ_{a_k<0}|a_k|, d·r the distance of t* from the centre.
 * Increasing in r (for each B, ρ falls and A grows with r).
 */
function logPanelCoefficient(n: number, r: number, S: number, N: number): number {
  const x = gaussLegendre(n).nodes;
  const d = Math.abs(x[Math.floor(n / 2)]);
  let best = Infinity;
  for (const B of HEIGHTS) {
    const A = Math.sqrt(B * B + r * r);
    const rho = (B + A) / r;
    const v =
      Math.log(4 * (1 + 1 / (4 * n * n - 1))) + (2 - 2 * n) * Math.log(rho) - Math.log((rho - 1) * (rho + 1)) - N * Math.log(Math.cos(B)) + S * (A + d * r);
    if (v < best) best = v;
  }
  // The few roundings above: 1e-12 relative on a bound that only needs to be an upper bound.
  return best + 1e-12 * (1 + Math.abs(best));
}

/**
 * For each order n, the widest panel half-width (units of b) whose certified error is at most
 * `rtol`/4 of the panel's integral (which is ≥ 2r·f(t*)·e^{−S(1+d)r}: |d log f/dy| ≤ S/b), and the
 * coefficient at that width (a valid bound for every narrower panel).
 */
export function orderTable(S: number, N: number, rtol: number): { rmax: Float64Array; logCoef: Float64Array } {
  const key = `${S}|${N}|${rtol}`;
  const hit = tables.get(key);
  if (hit) return hit;
  const rmax = new Float64Array(MAX_ORDER + 1),
    logCoef = new Float64Array(MAX_ORDER + 1).fill(Infinity);
  const target = Math.log(rtol / 4);
  for (let n = 1; n <= MAX_ORDER; n++) {
    const rel = (r: number) => logPanelCoefficient(n, r, S, N) + S * 2 * r - Math.log(2);
    let lo = 0,
      hi = 2;
    if (rel(hi) <= target) lo = hi;
    else
      for (let it = 0; it < 60; it++) {
        const mid = lo === 0 ? hi / 2 ** 20 : Math.sqrt(lo * hi);
        if (lo === 0 && rel(mid) > target) {
          hi = mid;
          if (hi < 1e-300) break;
          continue;
        }
        if (rel(mid) <= target) lo = mid;
        else hi = mid;
      }
    rmax[n] = lo;
    if (lo > 0) logCoef[n] = logPanelCoefficient(n, lo, S, N);
  }
  const t = { rmax, logCoef };
  if (tables.size >= 256) tables.clear(); // one entry per (α, tolerance): bounded in a long-lived process
  tables.set(key, t);
  return t;
}
const tables = new Map<string, { rmax: Float64Array; logCoef: Float64Array }>();

/**
 * The order with the fewest nodes for a span of `sb` noise scales: a single panel of the lowest
 * order that covers it when that is at most 2 nodes (nothing cheaper exists), else the best
 * order × panel count (`perWidth[k]` = 1/(2·rmax[k])); null when no order certifies.
 */
export function panelsFor(rmax: Float64Array, perWidth: ArrayLike<number>, sb: number): { n: number; m: number } | null {
  let n = 1,
    m = 1;
  while (n <= 2 && !(sb <= 2 * rmax[n])) n++;
  if (n <= 2) return { n, m };
  let cost = Infinity;
  // Order k costs at least k nodes: stop once that is no better.
  for (let k = 1; k <= MAX_ORDER && k < cost; k++) {
    if (!(rmax[k] > 0)) continue;
    const mk = Math.max(1, Math.ceil(sb * perWidth[k]));
    if (mk * k < cost) {
      cost = mk * k;
      n = k;
      m = mk;
    }
  }
  return cost < Infinity ? { n, m } : null;
}

/**
 * log ∫ p^α q^{1−α} (and, with `both`, log ∫ q^α p^{1−α}) over the whole line for Laplace
 * mixtures P, Q at scale b, certified, in one pass over the gaps between consecutive atoms of
 * either mixture (docs/math.md §8, "Gap rule"). On a gap both mixtures are exactly
 * L·e^{−t/b} + R·e^{t/b}, so each gap is cut into equal panels no wider than the order table
 * allows and integrated by an n-point Gauss–Legendre rule, n chosen per gap for the fewest nodes:
 * where many atoms lie within one noise scale a gap is one panel of one or two nodes. The tails
 * beyond the outer atoms are exact (b·f at the end atom).
 *
 * A gap that would need more than 512 panels (atoms hundreds of scales apart) takes panels near
 * its two atoms and a closed-form bound on its middle (`wideGap`). Returns null where that middle
 * is not negligible or the powers could overflow: the adaptive quadrature handles those cases.
 *
 * With an `interval` [LO, HI] (a truncated release; α = 1: a mixture's mass there) the integral is
 * over it alone: a gap is cut at LO and HI, and beyond the outer atoms the integrand is exactly
 * f(z)·e^{−|y−z|/b}, so a clipped tail is b·f(z)·(e^{−|u−z|/b} − e^{−|v−z|/b}) in closed form. A
 * clipped gap that would need the wide-gap bound returns null.
 *
 * Kept whole (over 120 lines): a certified quadrature kernel, whose error bound is one argument over
 * the loop it bounds; split, the pieces would pass the partial sums and their bounds between them.
 */
export function laplaceGapRule(
  P: Mixture,
  Q: Mixture,
  alpha: number,
  b: number,
  rtol: number,
  both: boolean,
  quick = false,
  interval: readonly [number, number] = [-Infinity, Infinity],
  logFloor?: number,
): OnePassIntegral[] | null {
  const [LO, HI] = interval;
  // log ∫ is at least 0 over the whole line at α > 1 (D_α ≥ 0); on an interval, at least the floor given.
  const logLeast = LO === -Infinity && HI === Infinity ? 0 : (logFloor ?? null);
  // A quick check bounds a gap's middle wherever that saves panels (more than 64 in the gap), not only past 512.
  const panelLimit = quick ? QUICK_PANELS_PER_GAP : MAX_PANELS_PER_GAP;
  const S = alpha + Math.abs(1 - alpha),
    N = Math.max(0, alpha - 1);
  const sp = cachedSweeps(P, b),
    sq = cachedSweeps(Q, b);
  // The sweeps' rounding already costs about S·err of the integral: quadrature finer than that
  // buys nothing (the target is rounded down to a power of 2 to share tables).
  const floor = S * Math.max(sp.err, sq.err);
  const { rmax, logCoef } = orderTable(S, N, Math.max(rtol, floor > 0 ? 2 ** Math.floor(Math.log2(floor)) : 0));
  // (P/Q)^α on a panel lies within e^{±α(log 2 + 2·rb)}: keep it far from overflow.
  if (alpha * (Math.LN2 + 2 * Math.max(...rmax)) > 600) return null;
  const norm = log2x(b);
  const coef = logCoef.map(Math.exp);
  const perWidth = rmax.map((r) => 1 / (2 * r));
  const px = P.x,
    qx = Q.x;
  const KP = px.length,
    KQ = qx.length;
  const D = both ? 2 : 1;
  // A quick check at α > 1 (∫ ≥ e^{logLeast}) leaves out gaps whose whole integral is provably below
  // rtol/8 of that shared among the gaps, charging each one's bound as error (a long chain's laws carry
  // almost no mass over most of their support); a search integrates every gap.
  const negligible = quick && alpha > 1 && logLeast !== null && Number.isFinite(logLeast) ? Math.log(rtol / (8 * (KP + KQ))) + logLeast : null;
  // Per direction: value, certified error and rounding, relative to a running shift e^M.
  const { M, T, E, R, add } = scaledSums(2);
  // The halves of each mixture at the current atom z and their rounding (`halvesAt`):
  // hv = [L_p, R_p, err_p, L_q, R_q, err_q].
  const hv = new Float64Array(6);
  const halves = () => {
    halvesAt(P, sp, b, norm, jp, z, hv, 0);
    halvesAt(Q, sq, b, norm, jq, z, hv, 3);
  };
  const fin = (v: number) => (v === -Infinity ? 0 : Math.abs(v));
  const magnitude = () => Math.max(fin(hv[0]), fin(hv[1]), fin(hv[3]), fin(hv[4]));
  // Tails: beyond the outer atom z both mixtures are ∝ e^{−|y−z|/b}, so the integrand is exactly
  // f(z)·e^{−t/b} at t = |y − z|, and its integral over t from `near` on, `span` long (clipped to
  // the interval), is b·f(z)·e^{−near/b}·(1 − e^{−span/b}). Each is one difference of doubles,
  // within an ulp of the true one: the exponent within 2u·near/b, and 1 − e^{−x} within 2u + u
  // relative (x·e^{−x}/(1 − e^{−x}) ≤ 1); charged only where the tail is clipped.
  const tail = (near: number, span: number) => {
    if (!(span > 0)) return;
    const lp = logAddExp(hv[0], hv[1]),
      lq = logAddExp(hv[3], hv[4]);
    const mag = magnitude() + 1;
    const nb = near / b;
    const clip = near > 0 || span < Infinity ? 4 * U * (nb + 1) : 0;
    const delta = S * (Math.max(hv[2], hv[5]) + 8 * U * (4 + 3 * mag)) + 4 * U * (S * mag + 1) + clip;
    const v = b * (span === Infinity ? 1 : -Math.expm1(-span / b));
    add(0, alpha * lp + (1 - alpha) * lq - nb, v, 0, v * (Math.expm1(delta) + 16 * U));
    if (D === 2) add(1, alpha * lq + (1 - alpha) * lp - nb, v, 0, v * (Math.expm1(delta) + 16 * U));
  };

  // m equal panels of the n-point rule over `span` (units of y) starting `off` noise scales past the
  // current atom z, added to the sums; δ bounds the node values' relative rounding.
  const integrate = (off: number, span: number, n: number, m: number, delta: number) => {
    const { nodes: xs, weights: ws } = RULES[n];
    const near = n >> 1;
    const r = span / (2 * m); // panel half-width (units of y)
    const rb = r / b;
    const grow = delta * (1 + delta); // ≥ e^δ − 1 for δ ≤ 1/2
    const round = grow + (2 * n + 10) * U;
    const cert = coef[n] * (1 + 2 * grow);
    // e^{±u} at the rule's offsets u = rb·x_i from a panel's centre: the same on every panel of the gap.
    for (let i = 0; i < n; i++) {
      if (xs[i] < 0) continue;
      const e = Math.exp(rb * xs[i]);
      ex[i] = e;
      exi[i] = 1 / e;
      ex[n - 1 - i] = 1 / e;
      exi[n - 1 - i] = e;
    }
    const Lp = hv[0],
      Rp = hv[1],
      Lq = hv[3],
      Rq = hv[4];
    for (let j = 0; j < m; j++) {
      const c = off + (2 * j + 1) * rb; // panel centre, from z, in units of b
      // m(z + c + u) = e^{ℓ}(a·e^{−u} + d·e^{u}) with max(a, d) = 1: |u| ≤ rb keeps the bracket
      // within [e^{−rb}, 2e^{rb}], so f = Q·(P/Q)^α and q^α p^{1−α} = P/(P/Q)^α need no logs.
      const lpL = Lp - c,
        lpR = Rp + c,
        lqL = Lq - c,
        lqR = Rq + c;
      // The smaller half relative to the larger: one exp per mixture (the larger is 1).
      const ellP = Math.max(lpL, lpR),
        ellQ = Math.max(lqL, lqR);
      const eP = Math.exp(Math.min(lpL, lpR) - ellP),
        eQ = Math.exp(Math.min(lqL, lqR) - ellQ);
      const pLeft = lpL >= lpR,
        qLeft = lqL >= lqR;
      const aP = pLeft ? 1 : eP,
        dP = pLeft ? eP : 1,
        aQ = qLeft ? 1 : eQ,
        dQ = qLeft ? eQ : 1;
      let s0 = 0,
        s1 = 0,
        f0 = 0,
        f1 = 0;
      for (let i = 0; i < n; i++) {
        const Pv = aP * exi[i] + dP * ex[i],
          Qv = aQ * exi[i] + dQ * ex[i];
        const w = (Pv / Qv) ** alpha;
        const v0 = Qv * w;
        s0 += ws[i] * v0;
        if (i === near) f0 = v0;
        if (D === 2) {
          const v1 = Pv / w;
          s1 += ws[i] * v1;
          if (i === near) f1 = v1;
        }
      }
      add(0, alpha * ellP + (1 - alpha) * ellQ, r * s0, r * cert * f0, r * s0 * round);
      if (D === 2) add(1, alpha * ellQ + (1 - alpha) * ellP, r * s1, r * cert * f1, r * s1 * round);
    }
    nodes += n * m;
    panels += m;
  };

  // Walk the union of the atoms; jp/jq = last atom of each mixture ≤ z.
  let ip = 0,
    iq = 0,
    jp = -1,
    jq = -1;
  let z = Math.min(px[0], qx[0]);
  const z0 = z;
  if (px[0] === z) jp = ip++;
  if (qx[0] === z) jq = iq++;
  halves();
  // The left tail, y ≤ z, clipped to [LO, HI]: from y = min(z, HI) down to LO.
  tail(z - Math.min(z, HI), Math.min(z, HI) - LO);
  let nodes = 0,
    panels = 0;
  while (ip < KP || iq < KQ) {
    const a = ip < KP ? px[ip] : Infinity,
      c0 = iq < KQ ? qx[iq] : Infinity;
    const zn = Math.min(a, c0);
    const h = zn - z; // a gap of the union: no atom strictly inside
    const hb = h / b;
    const mag = magnitude() + hb + 1;
    // Node values are exact to a factor e^{±δ}: the halves' rounding, the few operations per node
    // (exp and pow within 2 ulp), and the node's own position error (|d log f/dy| ≤ S/b times a few u·h).
    const delta = S * (Math.max(hv[2], hv[5]) + 8 * U * (4 + 3 * mag)) + 4 * U * (S * mag + 1) + S * 8 * U * hb;
    // The part of the gap in [LO, HI]: none, a clipped piece, or all of it.
    const [s0, s1] = [Math.max(z, LO), Math.min(zn, HI)];
    const clipped = s0 > z || s1 < zn;
    const whole = panelsFor(rmax, perWidth, clipped ? (s1 - s0) / b : hb);
    // A negligible gap's bound covers any piece of it (the integrand is positive).
    const skipped = negligible === null || !(s1 > s0) ? null : negligibleGap(alpha, hv, hb, D, b, negligible);
    if (!(s1 > s0)) {
      // Outside the interval: nothing to add.
    } else if (skipped) {
      for (let k = 0; k < D; k++) add(k, skipped[k], 0, 1, 0);
    } else if (clipped) {
      // The panels start (s0 − z)/b past z: that offset's rounding moves every node by up to 2u of it.
      const moved = delta + S * 4 * U * ((s0 - z) / b);
      if (!whole || whole.m > MAX_PANELS_PER_GAP || !(moved < 0.5)) return null;
      integrate((s0 - z) / b, s1 - s0, whole.n, whole.m, moved);
    } else if (whole && whole.m <= panelLimit) {
      if (!(delta < 0.5)) return null;
      integrate(0, h, whole.n, whole.m, delta);
    } else {
      // Atoms hundreds of scales apart: panels near both ends, the middle bounded (docs/math.md §8).
      const w = wideGap(alpha, hv, hb, D, rtol);
      const ends = w === null ? null : panelsFor(rmax, perWidth, w.W);
      const wide = !!w && !!ends && ends.m <= MAX_PANELS_PER_GAP && (!quick || !whole || 2 * ends.n * ends.m < whole.n * whole.m);
      if (!(delta < 0.5)) return null;
      if (wide) {
        integrate(0, w!.W * b, ends!.n, ends!.m, delta);
        integrate(hb - w!.W, w!.W * b, ends!.n, ends!.m, delta);
        for (let k = 0; k < D; k++) add(k, w!.logBound[k], 0, b, 0);
      } else if (quick && whole && whole.m <= MAX_PANELS_PER_GAP) {
        // A quick check whose shortcut saves nothing here integrates the whole gap as the search would.
        integrate(0, h, whole.n, whole.m, delta);
      } else return null;
    }
    z = zn;
    if (a === z) jp = ip++;
    if (c0 === z) jq = iq++;
    halves();
  }
  // The right tail, y ≥ z, clipped to [LO, HI]: from y = max(z, LO) up to HI.
  tail(Math.max(z, LO) - z, HI - Math.max(z, LO));
  const out: OnePassIntegral[] = [];
  for (let k = 0; k < D; k++) {
    // Summation rounding (panels + tails + a margin), and terms that underflowed relative to e^M
    // (each < 2^−1022 times its panel's length, so < 2^−1022 times the span plus the tails' 2b).
    const Rk = R[k] + (panels + 16) * U * T[k] + (z - z0 + 2 * b) * 2 ** -1022;
    const rel = (E[k] + Rk) / T[k];
    const value = M[k] + Math.log(T[k]);
    out.push({ value, error: rel < 0.5 ? rel / (1 - rel) + 2 * U * Math.abs(value) : Infinity, nodes, tailShare: 0 });
  }
  return out;
}

/**
 * g(s) = α·max(A − s, B + s) + (1−α)·max(C − s, D + s): on a gap, s noise scales past its left atom,
 * with A, B the log halves of the first mixture there and C, D the second's, each mixture lies within
 * a factor 2 of e^{max}, so the integrand lies within 2^{lc}·e^g and 2^{uc}·e^g (`wideGap`).
 */
const hull = (alpha: number, h: Float64Array, s: number) => alpha * Math.max(h[0] - s, h[1] + s) + (1 - alpha) * Math.max(h[2] - s, h[3] + s);

/**
 * log of an upper bound on ∫_u^v e^{g(s)} ds. g is piecewise linear with slopes −1, ±(2α − 1), +1 in
 * that order (each mixture switches once from its left half to its right), so it is quasi-convex:
 * on each piece between the switches its maximum is at an end and it falls away from there at the
 * piece's exact slope k: ∫ ≤ e^{max}·(1 − e^{−|k|·len})/|k|. A margin covers the rounding.
 */
function logHullIntegral(alpha: number, h: Float64Array, u: number, v: number): number {
  const cuts = [u, v];
  for (const t of [(h[0] - h[1]) / 2, (h[2] - h[3]) / 2]) if (t > u && t < v) cuts.push(t);
  cuts.sort((x, y) => x - y);
  let top = -Infinity;
  const logs: number[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const a = cuts[i],
      c = cuts[i + 1],
      len = c - a;
    if (!(len > 0)) continue;
    const mid = (a + c) / 2;
    const k = Math.abs(alpha * (mid < (h[0] - h[1]) / 2 ? -1 : 1) + (1 - alpha) * (mid < (h[2] - h[3]) / 2 ? -1 : 1));
    const gmax = Math.max(hull(alpha, h, a), hull(alpha, h, c));
    const l = gmax + (k > 0 ? Math.log(-Math.expm1(-k * len)) - Math.log(k) : Math.log(len));
    logs.push(l);
    top = Math.max(top, l);
  }
  let sum = 0;
  for (const l of logs) sum += Math.exp(l - top);
  const value = top + Math.log(sum);
  const fin = (x: number) => (Number.isFinite(x) ? Math.abs(x) : 0);
  const size = (Math.abs(alpha) + Math.abs(1 - alpha)) * (1 + fin(h[0]) + fin(h[1]) + fin(h[2]) + fin(h[3]) + 2 * Math.abs(v));
  return value + 64 * U * (size + Math.abs(value) + logs.length);
}

const hullScratch = new Float64Array(4);

/**
 * Per direction, the log of a bound on ∫ f dy over a whole gap `hb` noise scales wide (the hull of
 * `logHullIntegral`, 2^{max(α,1)} for the mixtures' factor 2, the halves' rounding charged), when
 * every direction's is at most e^{budget}; else null (the gap is integrated).
 */
function negligibleGap(alpha: number, hv: Float64Array, hb: number, D: number, b: number, budget: number): number[] | null {
  const uc = Math.max(alpha, 1) * Math.LN2;
  const out: number[] = [];
  for (let k = 0; k < D; k++) {
    const [a, b2, c, d] = k === 0 ? [hv[0], hv[1], hv[3], hv[4]] : [hv[3], hv[4], hv[0], hv[1]];
    hullScratch.set([a, b2, c, d]);
    const bound =
      Math.log(b) +
      4 * U * (1 + Math.abs(Math.log(b))) +
      uc +
      logHullIntegral(alpha, hullScratch, 0, hb) +
      (Math.abs(alpha) + Math.abs(1 - alpha)) * Math.max(hv[2], hv[5]);
    if (!(bound <= budget)) return null;
    out.push(bound);
  }
  return out;
}

/**
 * A gap `hb` noise scales wide (docs/math.md §8, "Wide gaps"): the span W integrated by panels at
 * each end, and per direction the log of a bound on ∫ f dy/b over the middle (charged as error),
 * for the smallest W in 24·2^k whose middle bound is at most rtol/64 of what the two ends hold
 * (by the same hull, from below). Null when the middle never becomes negligible before the ends meet.
 */
function wideGap(alpha: number, hv: Float64Array, hb: number, D: number, rtol: number): { W: number; logBound: number[] } | null {
  const uc = (alpha > 1 ? alpha : 1) * Math.LN2,
    lc = (alpha > 1 ? 1 - alpha : 0) * Math.LN2;
  for (let W = 24; 2 * W < hb; W *= 2) {
    const logBound: number[] = [];
    for (let k = 0; k < D; k++) {
      // Direction 0 integrates p^α q^{1−α}; direction 1 q^α p^{1−α}.
      const [a, b2, c, d] = k === 0 ? [hv[0], hv[1], hv[3], hv[4]] : [hv[3], hv[4], hv[0], hv[1]];
      hullScratch.set([a, b2, c, d]);
      const mid = logHullIntegral(alpha, hullScratch, W, hb - W);
      const left = logHullIntegral(alpha, hullScratch, 0, W),
        right = logHullIntegral(alpha, hullScratch, hb - W, hb);
      // W only decides how tight the result is (the middle is charged in full whatever W is):
      // the larger end stands for what the ends hold, the hull within its small margin.
      const ends = Math.max(left, right);
      if (!(uc + mid <= lc + ends + Math.log(rtol) - 6 * Math.LN2 - 1e-6 * (1 + Math.abs(ends)))) break;
      // The halves' own rounding moves g by at most (|α| + |1 − α|) times it.
      logBound.push(uc + mid + (Math.abs(alpha) + Math.abs(1 - alpha)) * Math.max(hv[2], hv[5]));
    }
    if (logBound.length === D) return { W, logBound };
  }
  return null;
}

export const RULES = Array.from({ length: MAX_ORDER + 1 }, (_, n) => gaussLegendre(Math.max(1, n)));

/** Scratch: e^{u} and e^{−u} at one gap's node offsets. */
const ex = new Float64Array(MAX_ORDER),
  exi = new Float64Array(MAX_ORDER);
