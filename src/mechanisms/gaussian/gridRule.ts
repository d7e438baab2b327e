import { renyiIntegrand, type OnePassIntegral, type PowerIntegrand } from '../../divergence/kernel.js';
import { U, type Mixture } from '../../divergence/mixture.js';
import { EXP_NON_POSITIVE_ULPS, expNonPositive } from '../../numerics/expNonPositive.js';
import { maxOf } from '../../numerics/float.js';
import { gaussLegendre } from '../../numerics/gaussLegendre.js';
import { gaussianBoxBound } from './certificate.js';
import { gaussianMoments } from './moments.js';
import { quietStretches } from './quietGaps.js';
import { gaussianWholeLine } from './tails.js';
import { scaledSums } from '../../numerics/scaledSums.js';

/** Highest Gauss–Legendre order a panel may take. */
const MAX_ORDER = 16;
/** Level-0 panel half-width in units of σ/√α′, α′ = max(1, α − ½): wide, yet on atoms about σ apart the ellipses below still keep m ≠ 0. */
const HALF_WIDTH = 0.45;
/** Ellipses whose real semi-axis is a multiple of the half-width h: A = k·h puts their samples on the grid. */
const MULTIPLES = [2, 3] as const;
/** Times a panel may be halved. */
const MAX_LEVEL = 8;
/** Over an interval, the most level-0 panels per atom before the adaptive quadrature is cheaper. */
const INTERVAL_PANELS_PER_ATOM = 64;
/** The most level-0 panels the rule lays in all (and no more than `gaussianWholeLine` allows). */
const MAX_PANELS = 4_000_000;

/**
 * log of 4(1 + 1/(4n²−1))·ρ^{2−2n}/(ρ² − 1): the Gauss–Legendre G_n error per unit of M·h on a
 * panel of half-width h whose integrand is bounded by M inside the Bernstein ellipse E_ρ
 * (docs/math.md §8, "Gap rule": exact to degree 2n − 1, symmetric, positive weights summing to 2).
 */
function logLegendreCoefficient(n: number, rho: number): number {
  return Math.log(4 * (1 + 1 / (4 * n * n - 1))) + (2 - 2 * n) * Math.log(rho) - Math.log((rho - 1) * (rho + 1));
}
const COEF = MULTIPLES.map((k) => {
  const rho = k + Math.sqrt(k * k - 1); // (ρ + 1/ρ)/2 = k
  // A relative 1e-12 on a bound that only needs to be an upper bound covers the roundings here.
  return Array.from({ length: MAX_ORDER + 1 }, (_, n) => (n === 0 ? Infinity : logLegendreCoefficient(n, rho) * (1 - 1e-12) + 1e-12));
});
const HEIGHT = MULTIPLES.map((k) => Math.sqrt(k * k - 1)); // B/h = (ρ − 1/ρ)/2
const RULES = Array.from({ length: MAX_ORDER + 1 }, (_, n) => gaussLegendre(Math.max(1, n)));

/**
 * log ∫ p^α q^{1−α} (and, with `both`, log ∫ q^α p^{1−α}) over the whole line for Gaussian mixtures
 * P, Q at noise sd σ, certified, in one pass over equal panels (docs/math.md §8, "Grid rule").
 * The panels of half-width h tile the integration domain; every mixture is evaluated once, with
 * its posterior moments, on the grid of spacing h (panel ends and centres), which holds every
 * sample the certificates need: for the ellipse with A = k·h (ρ = k + √(k² − 1)) the samples sit
 * at the panel centre and k·h either side, all grid points. Each panel then takes the lowest
 * Gauss–Legendre order whose certified error is within its share of the tolerance, or no node at
 * all where 2h·sup f already is (far tails, empty gaps).
 *
 * A panel no order up to 16 certifies (a mixture may vanish near it: atoms several σ apart) is
 * halved, up to 8 times. Returns null when that is not enough, the certified quadrature error
 * misses rtol/2, the tail bound stays above rtol/2, or the domain would take more than 64 panels
 * per atom (atoms hundreds of σ apart): the adaptive quadrature handles those.
 *
 * With `interval` [LO, HI] (a truncated release, docs/math.md §5; α = 1: a mixture's mass in it) the
 * domain is the whole line's cut to it, the tails bounded only where a cut-off, not an interval end,
 * ends it. The panels then tile the domain exactly: their half-width is its length over 2N, and the
 * panels' end, lo + 2N·h0 within 3u(hi − lo) of hi (h0 is rounded), is charged that length times
 * a certified bound on the integrand within 2h of the panel's centre (it may lie past HI or short of it).
 */
export function gaussianGridRule(
  P: Mixture,
  Q: Mixture,
  alpha: number,
  sigma: number,
  rtol: number,
  both: boolean,
  interval?: readonly [number, number],
): OnePassIntegral[] | null {
  const fs = both ? [renyiIntegrand(P, Q, alpha, sigma), renyiIntegrand(Q, P, alpha, sigma)] : [renyiIntegrand(P, Q, alpha, sigma)];
  const first = grid(fs, P, Q, sigma, rtol, 0, interval);
  if (!first) return null;
  // When the tail bound is not negligible (small integrals, α < 1), cut off further out once.
  const share = Math.max(...first.map((r) => r.tailShare));
  const out = share > rtol / 4 ? grid(fs, P, Q, sigma, rtol, Math.log(share / rtol) + 5, interval) : first;
  return out?.every((r) => r.tailShare <= rtol / 2) ? out : null;
}

/**
 * One pass of the grid rule with the cut-offs `extraNats` further out (`gaussianGridRule`).
 * Kept whole (over 120 lines): a certified quadrature kernel, whose error bound is one argument over
 * the loop it bounds; split, the pieces would pass the partial sums and their bounds between them.
 */
function grid(
  fs: PowerIntegrand[],
  P: Mixture,
  Q: Mixture,
  sigma: number,
  rtol: number,
  extraNats: number,
  interval?: readonly [number, number],
): OnePassIntegral[] | null {
  const F = fs.length;
  const { doms, lo, hi, unit, powers: powersPQ, maxPanels, pointErr } = gaussianWholeLine(fs, P, Q, sigma, extraNats, interval);
  if (!(hi > lo)) return null;
  const N = Math.max(1, Math.ceil((hi - lo) / (2 * HALF_WIDTH * unit)));
  // Over an interval, atoms many σ apart (a truncated release's search halves the scale far down)
  // are the adaptive quadrature's: it places its panels at the atoms, where these would tile the gaps.
  if (interval && N > INTERVAL_PANELS_PER_ATOM * (P.x.length + Q.x.length)) return null;
  // Over the whole line the last panel may reach past the cut-off (the tail bound covers it); over an
  // interval it must end at the domain's end: narrower panels, at most the rule's own width.
  const h0 = interval ? (hi - lo) / (2 * N) : HALF_WIDTH * unit;
  // Log of the length by which the panels' end lo + 2N·h0 (exact) may miss hi: h0 is (hi − lo)/2N
  // with two roundings, so 2N·h0 is within (2u + u²)(hi − lo) of hi − lo (interval only).
  const logEndSlack = interval ? Math.log(3 * U * (hi - lo)) : -Infinity;
  const lastSup = new Float64Array(F).fill(-Infinity);
  // Grid indices reach 2N·2^MAX_LEVEL + 4 at the finest level: they must stay exact integers.
  if (N * 2 ** (MAX_LEVEL + 2) + 8 > 2 ** 53) return null;
  // The middles of wide gaps (atoms many σ apart) are bounded in closed form and take no panel. That
  // pass evaluates both mixtures at every atom: where the atoms outnumber the level-0 panels (dense
  // atoms, or σ wide against the support) it would cost more than every panel it could skip.
  const quiet = P.x.length + Q.x.length <= N ? quietStretches(P, Q, powersPQ, sigma, rtol, 16 * h0, lo, hi) : [];
  const skip = quiet.map(({ s, t }) => skippedPanels(s, t, lo, h0));
  let active = N;
  for (const [first, last] of skip) active -= Math.max(0, last - first + 1);
  if (active > MAX_PANELS || active > maxPanels) return null;
  const logF = (k: number, ldP: number, ldQ: number) => powersPQ[k][0] * ldP + powersPQ[k][1] * ldQ;

  // Level L has half-width h0/2^L; its panel i spans lo + [2i, 2i+2]·h_L. Level 0 tiles the domain
  // but the quiet stretches; a panel no order certifies is split into its two halves at the next level.
  let level = levelZero(N, skip);
  // Accepted panels as flat typed columns (level, index, order, F certificates each): an object and
  // a typed array per panel spent a quarter of a chain's evaluation in the collector.
  const acc = acceptedPanels(F);
  const logMean = new Float64Array(F);
  let samples = 0;
  for (let L = 0; level.length > 0; L++) {
    // Halving past the budget of level-0 panels (a few unresolved panels near distant atoms) is the adaptive quadrature's work.
    // Over an interval, samples within four times the level-0 panels: where more are needed (the redrawn
    // law's far atoms, weighted up by their tiny chances of landing in it, dominate its ends) the
    // adaptive quadrature is cheaper.
    if (L > MAX_LEVEL || samples > 4 * Math.min(MAX_PANELS, maxPanels) || (interval && samples > 4 * N)) return null;
    const h = h0 / 2 ** L;
    // Grid indices the certificates need: each centre 2i+1 and 1, 2, 3 half-widths either side.
    const idx: number[] = [];
    for (const i of level) for (let j = Math.max(2 * i - 2, idx.length ? idx[idx.length - 1] + 1 : -Infinity); j <= 2 * i + 4; j++) idx.push(j);
    const ys = new Float64Array(idx.length),
      dy = new Float64Array(idx.length);
    for (let p = 0; p < idx.length; p++) {
      ys[p] = lo + idx[p] * h;
      dy[p] = pointErr(ys[p], idx[p], h);
    }
    const at = [gaussianMoments(P, sigma, ys, true, dy), gaussianMoments(Q, sigma, ys, true, dy)];
    const { ld: ldP, err: eP, lip: lipP } = at[0],
      { ld: ldQ, err: eQ, lip: lipQ } = at[1];
    samples += ys.length;
    const err = new Float64Array(ys.length);
    const lf = fs.map(() => new Float64Array(ys.length));
    for (let p = 0; p < ys.length; p++) {
      err[p] = Math.max(eP[p] + lipP[p] * dy[p], eQ[p] + lipQ[p] * dy[p]);
      for (let k = 0; k < F; k++) lf[k][p] = logF(k, ldP[p], ldQ[p]);
    }
    if (L === 0) {
      // A rough estimate of each integral (trapezoid on the level-0 grid) sets the panels' error budgets.
      // Over an interval only the grid points inside it: the integrand may be largest just outside.
      const inside = (p: number) => !interval || (idx[p] >= 0 && idx[p] <= 2 * N);
      for (let k = 0; k < F; k++) {
        const v = lf[k];
        const mx = interval ? maxOf(v.filter((_, p) => inside(p))) : maxOf(v);
        if (mx === -Infinity) return null;
        let sum = 0;
        for (let p = 0; p < v.length; p++) if (inside(p)) sum += Math.exp(v[p] - mx);
        logMean[k] = mx + Math.log((sum * h) / active); // ≈ Î/N
      }
    }
    const next: number[] = [];
    const logH = Math.log(h),
      log2H = Math.log(2 * h);
    const logRtol = Math.log(rtol / 4);
    // Per integrand: the crude bound and log M on each ellipse (the Gauss–Legendre bound is logH + logM + COEF[t][n]).
    const crude = new Float64Array(F),
      logM = new Float64Array(F * MULTIPLES.length).fill(Infinity);
    // The crude bound holds for any order too: ∫f and G_n f both lie in [0, 2h·sup f].
    const certAt = (k: number, n: number) => {
      let b = crude[k];
      if (n > 0) for (let t = 0; t < MULTIPLES.length; t++) b = Math.min(b, logH + logM[k * MULTIPLES.length + t] + COEF[t][n]);
      return b;
    };
    let c = 0;
    for (const i of level) {
      while (idx[c] !== 2 * i + 1) c++; // the centre's position in idx (both increase)
      const e = Math.max(err[c - 3], err[c - 2], err[c - 1], err[c], err[c + 1], err[c + 2], err[c + 3]);
      // log sup f within 2h of the last level-0 panel's centre (its end's slack lies there), over an interval.
      if (interval && L === 0 && i === N - 1) for (let k = 0; k < F; k++) lastSup[k] = gaussianBoxBound(powersPQ[k], sigma, 2 * h, 0, at, c - 2, c, c + 2, e);
      let need = 0;
      for (let k = 0; k < F && need <= MAX_ORDER; k++) {
        const v = lf[k];
        // Panel budget: rtol/4 of (Î/N at this level + the panel's own trapezoid estimate), about rtol/2 of Î in all.
        const own = logH - Math.LN2 + logSum4(v[c - 1], v[c], v[c], v[c + 1]);
        const mean = logMean[k] - L * Math.LN2;
        const budget = logRtol + Math.max(mean, own) + Math.log1p(Math.exp(-Math.abs(mean - own)));
        const a = powersPQ[k];
        crude[k] = log2H + gaussianBoxBound(a, sigma, h, 0, at, c - 1, c, c + 1, e);
        logM.fill(Infinity, k * MULTIPLES.length, (k + 1) * MULTIPLES.length);
        if (crude[k] <= budget) continue; // no node needed for this integrand
        let n = MAX_ORDER + 1;
        for (let t = 0; t < MULTIPLES.length; t++) {
          const mult = MULTIPLES[t];
          const lm = gaussianBoxBound(a, sigma, mult * h, HEIGHT[t] * h, at, c - mult, c, c + mult, e);
          logM[k * MULTIPLES.length + t] = lm;
          // COEF[t][·] decreases: the lowest order within budget on this ellipse.
          const room = budget - logH - lm;
          for (let m = 1; m < n; m++)
            if (COEF[t][m] <= room) {
              n = m;
              break;
            }
        }
        need = Math.max(need, n);
      }
      if (need > MAX_ORDER) next.push(2 * i, 2 * i + 1);
      else {
        const at = acc.push(L, i, need);
        for (let k = 0; k < F; k++) acc.cert[at * F + k] = certAt(k, need);
      }
    }
    level = next;
  }

  // Per integrand: value, certified error and rounding, relative to a running shift e^M.
  const { M, T, E, R, add } = scaledSums(F);
  // A quiet stretch's whole bound, charged as error where it took the place of panels.
  quiet.forEach((q, j) => {
    if (skip[j][1] >= skip[j][0]) for (let k = 0; k < F; k++) add(k, q.logBound[k], 0, 1, 0);
  });
  // The end's slack: its length times sup f around the last panel.
  if (interval) for (let k = 0; k < F; k++) add(k, lastSup[k] + logEndSlack, 0, 1, 0);
  // Nodes level by level (each level's panels are in increasing order, so its nodes are sorted).
  let count = 0,
    panels = 0;
  const lfn = new Float64Array(MAX_ORDER);
  const { cert } = acc;
  for (let L = 0, a = 0; a < acc.count; L++) {
    let b = a;
    while (b < acc.count && acc.L[b] === L) b++;
    const h = h0 / 2 ** L;
    const first = a;
    a = b;
    let cnt = 0;
    for (let q = first; q < b; q++) cnt += acc.n[q];
    const ys = new Float64Array(cnt),
      dys = new Float64Array(cnt);
    let o = 0;
    for (let q = first; q < b; q++) {
      const x = RULES[acc.n[q]].nodes;
      const i = acc.i[q];
      for (let t = 0; t < acc.n[q]; t++, o++) {
        ys[o] = lo + h * (2 * i + 1 + x[t]);
        dys[o] = pointErr(ys[o], 2 * i + 2, h);
      }
    }
    // With m1 at the nodes, |d log m/dy| is the posterior mean offset over σ², not the window radius.
    const ev = [gaussianMoments(P, sigma, ys, 'mean', dys), gaussianMoments(Q, sigma, ys, 'mean', dys)];
    const { ld: nldP, err: neP, lip: nlipP } = ev[0],
      { ld: nldQ, err: neQ, lip: nlipQ } = ev[1];
    count += cnt;
    panels += b - first;
    o = 0;
    for (let q = first; q < b; q++) {
      const n = acc.n[q];
      for (let k = 0; k < F; k++) {
        if (n === 0) {
          add(k, cert[q * F + k], 0, 1, 0); // no node: |∫_panel f| ≤ 2h·sup f, charged in full
          continue;
        }
        const S = fs[k].sensitivity;
        const w = RULES[n].weights;
        let mx = -Infinity,
          delta = 0;
        for (let t = 0; t < n; t++) {
          const j = o + t;
          const v = logF(k, nldP[j], nldQ[j]);
          lfn[t] = v;
          if (v > mx) mx = v;
          // The node's own position error through each mixture's Lipschitz bound, and the combination's rounding.
          const d = S * Math.max(neP[j] + nlipP[j] * dys[j], neQ[j] + nlipQ[j] * dys[j]) + 4 * U * (Math.abs(v) + 1);
          if (v !== -Infinity && d > delta) delta = d;
        }
        if (mx === -Infinity) {
          add(k, cert[q * F + k], 0, 1, 0);
          continue;
        }
        if (!(delta < 0.5)) return null;
        let sum = 0;
        for (let t = 0; t < n; t++) sum += w[t] * expNonPositive(lfn[t] - mx);
        // Node values exact to e^{±δ} (δ(1+δ) ≥ e^δ − 1 for δ ≤ 1/2); nodes and weights of G_n and the sum: (2n + 10)u; expNonPositive.
        add(k, mx, h * sum, Math.exp(cert[q * F + k] - mx), h * sum * (delta * (1 + delta) + (2 * n + 10 + EXP_NON_POSITIVE_ULPS) * U));
      }
      o += n;
    }
  }
  const out: OnePassIntegral[] = [];
  for (let k = 0; k < F; k++) {
    if (!(T[k] > 0)) return null;
    const tail = Math.exp(doms[k].tails.logBound - M[k]);
    // Summation over panels plus a margin; terms that underflowed against e^M (each below 2^−1022·2h0).
    const Rk = R[k] + (panels + 16) * U * T[k] + 2 * panels * h0 * 2 ** -1022;
    // The quadrature must meet the tolerance (rounding is the same for any rule); the tail bound decides a retry further out.
    // Over an interval, the adaptive quadrature's own target rtol: the level-0 estimate that sets the
    // panels' budgets can run several times the integral there (the redrawn law's weights put narrow
    // spikes between atoms), leaving the sum just past rtol/2, where the adaptive run would cost 20×.
    if (!(E[k] / T[k] <= (interval ? rtol : rtol / 2))) return null;
    const rel = (E[k] + tail + Rk) / T[k];
    const value = M[k] + Math.log(T[k]);
    out.push({ value, error: rel / (1 - rel) + 2 * U * Math.abs(value), nodes: count + samples, tailShare: tail / T[k] });
  }
  return out;
}

/** A growable list of accepted panels: level, index, order and `F` certificates per panel. */
function acceptedPanels(F: number) {
  const list = { count: 0, L: new Uint8Array(256), i: new Float64Array(256), n: new Uint8Array(256), cert: new Float64Array(256 * F), push };
  function push(L: number, i: number, n: number): number {
    if (list.count === list.L.length) {
      list.L = doubled(list.L);
      list.i = doubled(list.i);
      list.n = doubled(list.n);
      list.cert = doubled(list.cert);
    }
    list.L[list.count] = L;
    list.i[list.count] = i;
    list.n[list.count] = n;
    return list.count++;
  }
  return list;
}

/** A typed array twice as long, starting with `a` (the rest zeros). */
function doubled<T extends Uint8Array | Float64Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
}

/**
 * The level-0 panels lying inside [s, t] with a panel to spare at each end (so computed grid points,
 * within a few ulps of lo + jh, stay inside): first and last index, last < first when none.
 */
function skippedPanels(s: number, t: number, lo: number, h0: number): [number, number] {
  return [Math.ceil((s - lo) / (2 * h0)) + 1, Math.floor((t - lo) / (2 * h0)) - 2];
}

/** Level-0 panel indices 0…N−1 without the skipped ranges (ascending, disjoint). */
function levelZero(N: number, skip: [number, number][]): number[] {
  const out: number[] = [];
  let from = 0;
  for (const [first, last] of skip) {
    if (last < first) continue;
    for (let i = from; i < first; i++) out.push(i);
    from = last + 1;
  }
  for (let i = from; i < N; i++) out.push(i);
  return out;
}

/** log(e^a + e^b + e^c + e^d). */
function logSum4(a: number, b: number, c: number, d: number): number {
  const m = Math.max(a, b, c, d);
  return m === -Infinity ? m : m + Math.log(Math.exp(a - m) + Math.exp(b - m) + Math.exp(c - m) + Math.exp(d - m));
}
