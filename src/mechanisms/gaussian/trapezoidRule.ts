import { entirePower } from '../../divergence/certificate.js';
import { renyiIntegrand, type OnePassIntegral } from '../../divergence/kernel.js';
import { logAddExp, U, type Mixture } from '../../divergence/mixture.js';
import { EXP_NON_POSITIVE_ULPS, expNonPositive } from '../../numerics/expNonPositive.js';
import { boxFromParts, gaussianBoxParts } from './certificate.js';
import { gaussianMoments } from './moments.js';
import { gaussianWholeLine } from './tails.js';

/** Half-width of the sample panels that bound |f| on the strip, in units of σ/√α′ (α′ = max(1, α − ½)). */
const SAMPLE_HALF_WIDTH = 0.5;
/** Strip half-heights tried, in units of σ (the mixtures' complex zeros sit about σ²/spread away). */
const HEIGHTS = [0.2, 0.3, 0.45, 0.6, 0.8, 1, 1.3, 1.7, 2.2];
/** Below this node step (units of σ/√α′) the grid rule costs less: decline. */
const MIN_STEP = 0.04;
/** ρ (the other atoms' share against the end atom, off the real line) must stay below this beyond the cut-offs. */
const RHO_MAX = 0.5;

/**
 * log Σ_{k≥1} (w_k/w_0)·e^{−(x_k − x_0)(x_k + x_0 − 2y)/2σ²} for the left end (x_0 the smallest atom),
 * or its mirror for the right end: the modulus of the other atoms' terms against the end atom's,
 * at y + ib for every b. It decreases as y moves outwards, so beyond y the mixture is at least
 * (1 − ρ)·w_0|φ(y + ib − x_0)| > 0 when ρ < 1 (docs/math.md §8, "Trapezoidal rule").
 */
function logRho(m: Mixture, sigma: number, y: number, side: 'left' | 'right'): number {
  const K = m.x.length;
  const e = side === 'left' ? 0 : K - 1;
  const inv = 1 / (2 * sigma * sigma);
  let acc = -Infinity;
  for (let k = 0; k < K; k++) {
    if (k === e) continue;
    const gap = Math.abs(m.x[k] - m.x[e]);
    const far = side === 'left' ? m.x[k] + m.x[e] - 2 * y : 2 * y - m.x[k] - m.x[e];
    acc = logAddExp(acc, m.logw[k] - m.logw[e] - gap * far * inv);
  }
  // Rounding of a sum of K terms, each a few operations: relative 1e-9 is far above it.
  return acc === -Infinity ? acc : acc + 1e-9 * (1 + Math.abs(acc));
}

/**
 * log ∫ p^α q^{1−α} (and, with `both`, log ∫ q^α p^{1−α}) over the whole line for Gaussian mixtures
 * P, Q at noise sd σ, certified, by the trapezoidal rule τ·Σ_j f(lo + jτ) (docs/math.md §8,
 * "Trapezoidal rule"). f is analytic in the strip |Im z| < a wherever neither mixture vanishes
 * there; then |I_τ − ∫f| ≤ 2M/(e^{2πa/τ} − 1) with M ≥ ∫|f(x + ib)|dx for |b| < a (Trefethen and
 * Weideman 2014, Thm 5.1). M comes from the Gaussian box bound on sample panels tiling the domain
 * (which also proves m ≠ 0 there) and, beyond the cut-offs, from the end atom dominating the
 * mixture (ρ < 1/2) times the tail bound. The strip height a is chosen for the widest step; the
 * nodes beyond the cut-offs are bounded by the tail integral plus τ times the tail density at the
 * cut-off (it increases towards it). Equally spaced nodes need no quadrature order per panel; on
 * dense atoms they take about two thirds of the grid rule's evaluations.
 *
 * Returns null (the grid rule runs) where some sample panel has no strip of height 0.2σ free of
 * zeros, the end atoms do not dominate beyond the cut-offs, the step would be below 0.04σ/√α′, or
 * the tolerance is missed.
 *
 * Kept whole (over 120 lines): a certified quadrature kernel, whose error bound is one argument over
 * the loop it bounds; split, the pieces would pass the partial sums and their bounds between them.
 */
export function gaussianTrapezoidRule(P: Mixture, Q: Mixture, alpha: number, sigma: number, rtol: number, both: boolean): OnePassIntegral[] | null {
  const fs = both ? [renyiIntegrand(P, Q, alpha, sigma), renyiIntegrand(Q, P, alpha, sigma)] : [renyiIntegrand(P, Q, alpha, sigma)];
  const F = fs.length;
  const { doms, lo, hi, unit, powers: powersPQ, maxPanels, pointErr } = gaussianWholeLine(fs, P, Q, sigma, 0);
  const hs = SAMPLE_HALF_WIDTH * unit;
  const N = Math.max(1, Math.ceil((hi - lo) / (2 * hs)));
  if (N > maxPanels) return null;
  const hiG = lo + 2 * N * hs; // the sample panels cover [lo, hiG] ⊇ [lo, hi]
  const mixtures = [P, Q];

  // Beyond the cut-offs: every mixture with a non-entire power must be dominated by its end atom.
  // For a negative power the lower bound (1 − ρ)·w₀|φ| enters M as (1 − ρ)^{power}.
  const tailFactor = new Float64Array(F); // log of Π (1 − ρ)^{a_k} over a_k < 0, worst side
  for (let m = 0; m < 2; m++) {
    const needs = powersPQ.some((a) => !entirePower(a[m]) && a[m] !== 0);
    if (!needs) continue;
    const rho = Math.exp(Math.max(logRho(mixtures[m], sigma, lo, 'left'), logRho(mixtures[m], sigma, hiG, 'right')));
    if (!(rho <= RHO_MAX)) return null;
    for (let k = 0; k < F; k++) if (powersPQ[k][m] < 0) tailFactor[k] += powersPQ[k][m] * Math.log1p(-rho) * (1 + 8 * U);
  }

  // Samples on the grid lo + j·hs (panel i: centre j = 2i+1), with posterior moments.
  const S = 2 * N + 1;
  const ys = new Float64Array(S),
    dy = new Float64Array(S);
  for (let j = 0; j < S; j++) {
    ys[j] = lo + j * hs;
    dy[j] = pointErr(ys[j], j, hs);
  }
  const at = [gaussianMoments(P, sigma, ys, true, dy), gaussianMoments(Q, sigma, ys, true, dy)];
  const err = new Float64Array(S);
  for (let j = 0; j < S; j++) err[j] = Math.max(at[0].err[j] + at[0].lip[j] * dy[j], at[1].err[j] + at[1].lip[j] * dy[j]);

  // A rough estimate of each integral (trapezoid on the samples) sets the target.
  const logTarget = new Float64Array(F);
  for (let k = 0; k < F; k++) {
    const a = powersPQ[k];
    let mx = -Infinity;
    for (let j = 0; j < S; j++) mx = Math.max(mx, a[0] * at[0].ld[j] + a[1] * at[1].ld[j]);
    if (!(mx > -Infinity)) return null;
    let sum = 0;
    for (let j = 0; j < S; j++) sum += Math.exp(a[0] * at[0].ld[j] + a[1] * at[1].ld[j] - mx);
    logTarget[k] = Math.log(rtol / 4) + mx + Math.log(sum * hs);
  }

  // Each sample panel's real-line bound and V bounds, once; then log M per integrand for each strip
  // height (∞ where some panel may hold a zero), and the widest step.
  const parts = fs.map(() => new Float64Array(N * 3));
  const one = new Float64Array(3);
  for (let k = 0; k < F; k++)
    for (let i = 0; i < N; i++) {
      const c = 2 * i + 1;
      gaussianBoxParts(powersPQ[k], sigma, hs, at, c - 1, c, c + 1, Math.max(err[c - 1], err[c], err[c + 1]), one);
      parts[k].set(one, 3 * i);
    }
  let best = { a: 0, tau: 0, logM: new Float64Array(F) };
  for (const hb of HEIGHTS) {
    const a = hb * sigma;
    const logM = new Float64Array(F).fill(-Infinity);
    let ok = true;
    for (let k = 0; k < F && ok; k++) {
      let mx = -Infinity;
      const boxes = new Float64Array(N);
      for (let i = 0; i < N; i++) {
        const box = boxFromParts(powersPQ[k], sigma, a, parts[k].subarray(3 * i, 3 * i + 3));
        if (!(box < Infinity)) {
          ok = false;
          break;
        }
        boxes[i] = box;
        if (box > mx) mx = box;
      }
      if (!ok) break;
      let sum = 0;
      for (let i = 0; i < N; i++) sum += Math.exp(boxes[i] - mx);
      // Σ 2h·e^{box}, with a margin for its N exponentials and additions, and beyond the cut-offs
      // |f(x+ib)| ≤ e^{b²/2σ²}·(1 − ρ)^{a_neg}·(the real-line tail bound).
      const margin = 1e-12 + (N + 8) * 4 * U + 8 * U * Math.abs(mx);
      logM[k] = logAddExp(mx + Math.log(2 * hs * sum) + margin, (a * a) / (2 * sigma * sigma) + tailFactor[k] + doms[k].tails.logBound);
    }
    if (!ok) break; // taller strips only hold more zeros
    // 2M/(e^{2πa/τ} − 1) ≤ target  ⟺  τ ≤ 2πa / log(1 + 2M/target).
    let tau = Infinity;
    for (let k = 0; k < F; k++) {
      const x = Math.LN2 + logM[k] - logTarget[k];
      tau = Math.min(tau, (2 * Math.PI * a) / (x > 30 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x))));
    }
    if (tau > best.tau) best = { a, tau: tau * (1 - 1e-12), logM };
  }
  if (!(best.tau >= MIN_STEP * unit)) return null;
  const { a, tau, logM } = best;

  // Nodes lo + jτ over [lo, hiG]; those beyond are bounded through the tails. Evaluated in blocks,
  // keeping per node only each integrand's log value and the densities' error (`nodeLogs`).
  const J = Math.ceil((hiG - lo) / tau);
  const { lf: lfs, eMax } = nodeLogs(
    P,
    Q,
    powersPQ,
    sigma,
    J + 1,
    (j) => lo + j * tau,
    (y, j) => pointErr(y, j, tau),
  );
  const out: OnePassIntegral[] = [];
  for (let k = 0; k < F; k++) {
    const Sk = fs[k].sensitivity;
    const lf = lfs[k];
    let mx = -Infinity;
    for (let j = 0; j <= J; j++) if (lf[j] > mx) mx = lf[j];
    if (!(mx > -Infinity)) return null;
    let sum = 0,
      round = 0;
    for (let j = 0; j <= J; j++) {
      if (lf[j] === -Infinity) continue;
      const v = expNonPositive(lf[j] - mx);
      // Node value exact to e^{±δ}: the densities' rounding, the node's position through each Lipschitz bound, the combination.
      const delta = Sk * eMax[j] + 4 * U * (Math.abs(lf[j]) + Math.abs(mx) + 1);
      if (!(delta < 0.5)) return null;
      sum += v;
      round += v * (delta * (1 + delta) + (EXP_NON_POSITIVE_ULPS + 2) * U);
    }
    // Relative to e^{mx}: value τ·sum; rounding, plus the summation of J + 1 terms and a margin.
    const T = tau * sum;
    const R = tau * round + (J + 16) * U * T;
    // The bound itself, rounded up by a relative 1e-12 (a few operations).
    const quad = Math.exp(Math.LN2 + logM[k] - mx - Math.log(Math.expm1((2 * Math.PI * a) / tau))) * (1 + 1e-12);
    const omitted = Math.exp(logAddExp(doms[k].tails.logBound, Math.log(tau) + (doms[k].tails.logEdge ?? Infinity)) - mx);
    if (!(quad / T <= rtol / 2) || !(omitted / T <= rtol / 2)) return null;
    const rel = (quad + omitted + R) / T;
    const value = mx + Math.log(T);
    out.push({ value, error: rel / (1 - rel) + 2 * U * Math.abs(value), nodes: S + J + 1, tailShare: omitted / T });
  }
  return out;
}

/** Nodes evaluated per block: the mixtures' moments of a block are dropped once its logs are kept. */
const NODE_BLOCK = 1 << 16;

/**
 * At the nodes y(0), …, y(n − 1) (ascending): each integrand's log value a₀·log p + a₁·log q, and
 * the larger of the two mixtures' certified log-density errors there (own error plus the node's
 * position error `dy(y, j)` through the Lipschitz bound). The same numbers as evaluating every node
 * at once, in memory for two arrays per node instead of ten.
 */
function nodeLogs(P: Mixture, Q: Mixture, powers: Float64Array[], sigma: number, n: number, y: (j: number) => number, dy: (y: number, j: number) => number) {
  const lf = powers.map(() => new Float64Array(n));
  const eMax = new Float64Array(n);
  for (let from = 0; from < n; from += NODE_BLOCK) {
    const m = Math.min(NODE_BLOCK, n - from);
    const ny = new Float64Array(m),
      ndy = new Float64Array(m);
    for (let t = 0; t < m; t++) {
      ny[t] = y(from + t);
      ndy[t] = dy(ny[t], from + t);
    }
    const [p, q] = [gaussianMoments(P, sigma, ny, 'mean', ndy), gaussianMoments(Q, sigma, ny, 'mean', ndy)];
    for (let t = 0; t < m; t++) {
      eMax[from + t] = Math.max(p.err[t] + p.lip[t] * ndy[t], q.err[t] + q.lip[t] * ndy[t]);
      for (let k = 0; k < powers.length; k++) lf[k][from + t] = powers[k][0] * p.ld[t] + powers[k][1] * q.ld[t];
    }
  }
  return { lf, eMax };
}
