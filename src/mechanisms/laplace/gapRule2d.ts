import type { OnePassIntegral } from '../../divergence/kernel.js';
import { U, type Mixture2 } from '../../divergence/mixture.js';
import { scaledSums } from '../../numerics/scaledSums.js';
import { laplaceGapRule, MAX_PANELS_PER_GAP, orderTable, panelsFor, RULES } from './gapRule.js';

/** A law's atoms grouped by their first coordinate, for its slices at any second coordinate. */
interface Slicer {
  /** The distinct first coordinates, ascending. */
  xs: Float64Array;
  /** Atoms in the order of their first coordinate; group g is order[start[g]] … order[start[g + 1] − 1]. */
  order: Int32Array;
  start: Int32Array;
  c: Float64Array;
  logw: Float64Array;
}

function slicer(m: Mixture2): Slicer {
  const order = Int32Array.from(m.a.keys()).sort((i, j) => m.a[i] - m.a[j]);
  const xs: number[] = [];
  const start: number[] = [];
  order.forEach((k, i) => {
    if (i === 0 || m.a[k] !== m.a[order[i - 1]]) {
      xs.push(m.a[k]);
      start.push(i);
    }
  });
  start.push(order.length);
  return { xs: Float64Array.from(xs), order, start: Int32Array.from(start), c: m.c, logw: m.logw };
}

/**
 * The slice of a law at second coordinate y, as a law on the first: out[g] = log Σ_{a_k = xs[g]}
 * w_k·e^{−|y − c_k|/b} (without the 1/2b, which the caller restores). Returns δ with every out[g]
 * within ±δ of the exact log: the terms' roundings (a difference, a quotient, a difference: within
 * 3u of their magnitudes), each exp and the sum (n + 4 ulps), the log and the final addition.
 */
function sliceAt(s: Slicer, y: number, b: number, out: Float64Array): number {
  let delta = 0;
  for (let g = 0; g + 1 < s.start.length; g++) {
    let top = -Infinity,
      size = 0;
    for (let i = s.start[g]; i < s.start[g + 1]; i++) {
      const k = s.order[i];
      const d = Math.abs(y - s.c[k]) / b;
      top = Math.max(top, s.logw[k] - d);
      size = Math.max(size, Math.abs(s.logw[k]) + d);
    }
    let sum = 0;
    for (let i = s.start[g]; i < s.start[g + 1]; i++) {
      const k = s.order[i];
      sum += Math.exp(s.logw[k] - Math.abs(y - s.c[k]) / b - top);
    }
    out[g] = top + Math.log(sum);
    const n = s.start[g + 1] - s.start[g];
    delta = Math.max(delta, 8 * U * (size + Math.abs(top) + 1) + 2 * U * (n + 4) + 2 * U * Math.abs(out[g]));
  }
  return delta;
}

/** The distinct values of two arrays, ascending. */
function distinct(a: Float64Array, b: Float64Array): Float64Array {
  const all = Float64Array.from([...a, ...b]).sort();
  return all.filter((v, i) => i === 0 || v !== all[i - 1]);
}

/**
 * The most work one evaluation on ℝ² takes on: its slices (the outer rule's nodes) times each
 * slice's cost (both laws' atoms, summed into the slice, and the inner rule's nodes). The work grows
 * as the scale falls against the atoms' spacing: adult's age and fnlwgt at b = 1 (a ledger plan's
 * first trial) asked for 6·10¹⁰, minutes of one evaluation; the tests' largest is 1.6·10⁷.
 */
const PLANE_MAX_WORK = 5e8;

/** The nodes a gap rule lays over the gaps between consecutive values of `xs` at scale b, with its two tails; ∞ where a gap would need over `MAX_PANELS_PER_GAP` panels. */
function ruleNodes(xs: Float64Array, b: number, rmax: Float64Array, perWidth: ArrayLike<number>): number {
  let nodes = 2;
  for (let j = 0; j + 1 < xs.length; j++) {
    const plan = panelsFor(rmax, perWidth, (xs[j + 1] - xs[j]) / b);
    if (!plan || plan.m > MAX_PANELS_PER_GAP) return Infinity;
    nodes += plan.n * plan.m;
  }
  return nodes;
}

/**
 * log ∫∫ p^α q^{1−α} (and, with `both`, log ∫∫ q^α p^{1−α}) over ℝ² for two finite laws P, Q on
 * ℝ² under independent Laplace noise of scales b = (b₁, b₂) per coordinate, certified (docs/math.md
 * §12, "Exact in two dimensions"). A gap rule in the second coordinate over gap rules in the first:
 * at each y₂ the slices p(·, y₂), q(·, y₂) are Laplace mixtures in y₁ (`laplaceGapRule`, certified),
 * and between consecutive second coordinates of the atoms every slice's integrand is, for each y₁,
 * of the two-exponential form the gap rule's certificate covers, so G(y₂) = ∫ f(y₁, y₂) dy₁ obeys
 * the same bound by its value at the panel's middle node. Beyond the outer second coordinates f
 * falls exactly as e^{−|y₂ − z|/b₂}: each tail is b₂·G(z).
 *
 * Null where a gap would need more than 512 panels (atoms hundreds of scales apart), where the work
 * would pass `PLANE_MAX_WORK`, or where a slice's rule declines: the caller keeps its other bounds there.
 */
export function laplaceGapRule2d(P: Mixture2, Q: Mixture2, alpha: number, b: readonly [number, number], rtol: number, both: boolean): OnePassIntegral[] | null {
  const [b1, b2] = b;
  const S = alpha + Math.abs(1 - alpha),
    N = Math.max(0, alpha - 1);
  const D = both ? 2 : 1;
  const sp = slicer(P),
    sq = slicer(Q);
  const zs = distinct(P.c, Q.c);
  const { rmax, logCoef } = orderTable(S, N, rtol);
  const coef = logCoef.map(Math.exp);
  const perWidth = rmax.map((r) => 1 / (2 * r));
  const work = ruleNodes(zs, b2, rmax, perWidth) * (P.c.length + Q.c.length + ruleNodes(distinct(sp.xs, sq.xs), b1, rmax, perWidth));
  if (!(work <= PLANE_MAX_WORK)) return null;
  const lp = new Float64Array(sp.xs.length),
    lq = new Float64Array(sq.xs.length);
  const { M, T, E, R, add } = scaledSums(2);
  let nodes = 0,
    terms = 0;
  const gs = [0, 0],
    errs = [0, 0];
  // One slice at y (`moved`: a bound on |y − the node meant|/b₂): log G̃(y) per direction, and the
  // log error of each (the slice rule's, and S times the weights' rounding and the node's offset:
  // |∂ log f/∂y₂| ≤ S/b₂). False where the slice rule declines.
  const slice = (y: number, moved: number): boolean => {
    const dp = sliceAt(sp, y, b2, lp),
      dq = sliceAt(sq, y, b2, lq);
    const r = laplaceGapRule({ x: sp.xs, logw: lp }, { x: sq.xs, logw: lq }, alpha, b1, rtol, both);
    if (!r) return false;
    nodes += r[0].nodes;
    for (let k = 0; k < D; k++) {
      gs[k] = r[k].value;
      errs[k] = r[k].error + S * (Math.max(dp, dq) + moved);
    }
    return true;
  };
  for (const z of [zs[0], zs[zs.length - 1]]) {
    if (!slice(z, 0)) return null;
    for (let k = 0; k < D; k++) add(k, gs[k], b2, 0, b2 * Math.expm1(errs[k]));
    terms++;
  }
  for (let j = 0; j + 1 < zs.length; j++) {
    const z = zs[j],
      h = zs[j + 1] - z;
    const plan = panelsFor(rmax, perWidth, h / b2);
    if (!plan || plan.m > MAX_PANELS_PER_GAP) return null;
    const { n, m } = plan;
    const { nodes: xs, weights: ws } = RULES[n];
    const r = h / (2 * m);
    // A node's computed position is within a few ulps of z + its offset (|z| and the gap at most).
    const moved = (8 * U * (Math.abs(z) + 2 * h)) / b2;
    for (let p = 0; p < m; p++) {
      const centre = (2 * p + 1) * r;
      for (let i = 0; i < n; i++) {
        if (!slice(z + (centre + r * xs[i]), moved)) return null;
        for (let k = 0; k < D; k++) {
          const up = Math.exp(errs[k]);
          add(k, gs[k], r * ws[i], i === n >> 1 ? r * coef[n] * up : 0, r * ws[i] * (up - 1));
        }
        terms++;
      }
    }
  }
  // The slices lack their 1/2b₂: p and q share it, and f is homogeneous of degree 1 in it.
  const norm = Math.log(2 * b2);
  const out: OnePassIntegral[] = [];
  for (let k = 0; k < D; k++) {
    // Summation rounding (each term's rescaling, product and addition within 4 ulps of it, and a
    // margin); terms underflowed relative to e^M are each
    // below 2^−1022 times their weight, and the weights sum to the span plus the tails' 2b₂.
    const Rk = R[k] + (4 * terms + 16) * U * T[k] + (zs[zs.length - 1] - zs[0] + 2 * b2) * 2 ** -1022;
    const rel = (E[k] + Rk) / T[k];
    const value = M[k] + Math.log(T[k]) - norm;
    out.push({ value, error: rel < 0.5 ? rel / (1 - rel) + 2 * U * (Math.abs(value) + Math.abs(norm)) : Infinity, nodes, tailShare: 0 });
  }
  return out;
}
