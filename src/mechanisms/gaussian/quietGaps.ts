import { logAddExp, U, type Mixture } from '../../divergence/mixture.js';
import { gaussianMoments } from './moments.js';

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/** Distances (in σ) from a gap's breakpoints at which a quiet stretch may start, tried nearest first (0: the whole piece). */
const REACH = [0, 9, 12, 16, 24, 32, 48, 64];

/** A pass is tried only where the gaps' widths beyond this many σ (the domain's ends' too) add up to … */
const GAP_SIGMAS = 4;
/** … at least this share of the domain. */
const APART_SHARE = 0.25;

/** Share of the tolerance all quiet stretches together may take (the panels keep the rest). */
const QUIET_SHARE = 1 / 64;

/** A stretch [s, t] between two atoms on which integrand k's integral is at most e^{logBound[k]}. */
export interface QuietStretch {
  readonly s: number;
  readonly t: number;
  readonly logBound: Float64Array;
}

/**
 * log of an upper bound on ∫_s^t e^{G(y)} dy for G(y) = −[β(y−m₁)² + (1−β)(y−m₂)²]/(2σ²), β > 1:
 * a Gaussian of variance σ² about μ = m₁ + (β−1)(m₁−m₂) whose peak is G(μ) = β(β−1)(m₁−m₂)²/(2σ²)
 * (docs/math.md §8, "Quiet gaps"). Past μ, G(e + u) ≤ G(e) − |e − μ|u/σ², so the integral is at most
 * e^{G(e)}·σ²/|e − μ| from the end e nearer μ; anywhere, at most e^{G(μ)}·min(t − s, σ√2π).
 * Every rounding is charged: 8u of each square's size, 4u of the result, and the centre's side is
 * trusted only beyond its own rounding.
 */
export function logSegment(s: number, t: number, m1: number, m2: number, beta: number, sigma: number): number {
  const v2 = 2 * sigma * sigma;
  const width = Math.log((t - s) * (1 + 4 * U));
  const lift = (m1 - m2) * (beta - 1);
  const peakSq = beta * (beta - 1) * (m1 - m2) * (m1 - m2);
  const peak = peakSq / v2;
  let best = peak * (1 + 8 * U) + Math.min(width, Math.log(sigma) + LOG_SQRT_2PI) + 4 * U;
  const atEnd = (y: number) => {
    const a = y - m1,
      b = y - m2;
    const p1 = beta * a * a,
      p2 = (beta - 1) * b * b;
    const g = (p2 - p1) / v2;
    // y − μ = (y − m₁) − (β−1)(m₁ − m₂), trusted beyond its rounding.
    const d = Math.abs(a - lift) - 8 * U * (Math.abs(a) + Math.abs(lift));
    return { g: g + (8 * U * (p1 + p2)) / v2 + 4 * U * Math.abs(g), d, side: a - lift };
  };
  const left = atEnd(s),
    right = atEnd(t);
  if (left.side > 0 && left.d > 0) best = Math.min(best, left.g + Math.min(width, Math.log((sigma * sigma) / left.d) + 4 * U));
  if (right.side < 0 && right.d > 0) best = Math.min(best, right.g + Math.min(width, Math.log((sigma * sigma) / right.d) + 4 * U));
  return best;
}

/** The union's distinct atoms, ascending. */
function unionAtoms(a: Float64Array, b: Float64Array): number[] {
  const out: number[] = [];
  for (let i = 0, j = 0; i < a.length || j < b.length; ) {
    const v = j >= b.length || (i < a.length && a[i] <= b[j]) ? a[i++] : b[j++];
    if (out.length === 0 || v > out[out.length - 1]) out.push(v);
  }
  return out;
}

/** One integrand's roles: X carries the power β > 1, Y the power 1 − β < 0. */
type Roles = {
  Y: Mixture;
  beta: number;
  sideX: Float64Array;
  /** log σ√2π·f at the piece's left (right) end when that end is the gap's atom, else −∞. */
  atA: (pl: Place, u: number) => number;
  atB: (pl: Place, v: number) => number;
};

/** Where an atom gap (a, b) stands for one integrand: X's atoms at or below a, Y's likewise. */
type Place = { a: number; b: number; jb: number; iy: number };

/**
 * Quiet stretches for the integrands p^{a₀}q^{a₁} (`powers[k]` = [a₀, a₁], a₀ + a₁ = 1) at noise sd
 * σ on [lo, hi] (docs/math.md §8, "Quiet gaps"). Between consecutive breakpoints u < v — the atoms
 * of either mixture, the domain's ends and the centres where the gap bounds below peak — the
 * stretch [u + Kσ, v − Kσ] for the nearest K of 9, 12, …, 64 whose bound is within its share of
 * rtol/64 of an estimate of each integral, if it is at least `minWidth` wide. Only where one power
 * exceeds 1 (for α < 1, none). The estimate is the larger of 1 (for β > 1 each integral is at least
 * (∫p)^β = 1, by Jensen) and the integrand's largest value at a breakpoint times σ; it only steers
 * what is skipped: the caller charges each bound in full and checks the total against rtol.
 */
export function quietStretches(
  P: Mixture,
  Q: Mixture,
  powers: Float64Array[],
  sigma: number,
  rtol: number,
  minWidth: number,
  lo: number,
  hi: number,
): QuietStretch[] {
  if (!powers.every(([a0, a1]) => a0 > 1 || a1 > 1)) return [];
  const atoms = unionAtoms(P.x, Q.x);
  // The pass evaluates both densities at every atom and breakpoint: worth it only where gaps wider than
  // a few σ cover a good part of the domain (a dense law with one wide gap keeps its panels anyway).
  let apart = Math.max(0, atoms[0] - lo - GAP_SIGMAS * sigma) + Math.max(0, hi - atoms[atoms.length - 1] - GAP_SIGMAS * sigma);
  for (let j = 1; j < atoms.length; j++) apart += Math.max(0, atoms[j] - atoms[j - 1] - GAP_SIGMAS * sigma);
  if (!(apart >= APART_SHARE * (hi - lo))) return [];
  const sides = sideWeights(P, Q, atoms, sigma);
  const roles: Roles[] = powers.map(([a0, a1]) => {
    const [x, y, beta] = a0 > 1 ? [0, 1, a0] : [1, 0, a1];
    // log σ√2π·f at atom j, from the side weights: σ√2π·X^β Y^{1−β} = (σ√2π X)^β (σ√2π Y)^{1−β}.
    const f = (j: number) => beta * sides[x][j] + (1 - beta) * sides[y][j];
    return {
      Y: [P, Q][y],
      beta,
      sideX: sides[x],
      atA: (pl: Place, u: number) => (pl.jb > 0 && pl.a === u ? f(pl.jb - 1) : -Infinity),
      atB: (pl: Place, v: number) => (pl.jb < atoms.length && pl.b === v ? f(pl.jb) : -Infinity),
    };
  });
  const points = breakpoints(atoms, roles, lo, hi);
  const share = Math.log((rtol * QUIET_SHARE) / points.length);
  const logBudget = logEstimates(P, Q, powers, sigma, points).map((e) => share + e);
  const out: QuietStretch[] = [];
  const places = roles.map((): Place => ({ a: -Infinity, b: atoms[0], jb: 0, iy: 0 }));
  for (let j = 0; j + 1 < points.length; j++) {
    const u = points[j],
      v = points[j + 1];
    for (const [k, r] of roles.entries()) placeAt(places[k], r, atoms, u);
    // A piece ending at an atom where σ·f is well above the budget is not quiet whole: skip that try.
    const loud = roles.some((r, k) => Math.max(r.atA(places[k], u), r.atB(places[k], v)) > logBudget[k] + 5);
    for (const K of REACH) {
      const s = u + K * sigma,
        t = v - K * sigma;
      if (K === 0 && loud) continue;
      if (K > 0 && !(t - s >= minWidth)) break;
      const logBound = Float64Array.from(roles, (r, k) => gapBound(r, places[k], s, t, sigma));
      if (!logBound.every((b, k) => b <= logBudget[k])) continue;
      const last = out[out.length - 1];
      // Whole pieces that meet are one stretch (panels across an atom between them are skipped too).
      if (K === 0 && last?.t === s) out[out.length - 1] = { s: last.s, t, logBound: last.logBound.map((b, k) => logAddExp(b, logBound[k])) };
      else out.push({ s, t, logBound });
      break;
    }
  }
  return out;
}

/**
 * Per mixture, log of σ√2π times its density at each union atom (rounded up by its certified
 * error): for y beyond an atom a, Σ_{x ≤ a} w_x φ(y − x) ≤ φ(y − a)·σ√2π·m(a), since
 * (y − x)² ≥ (a − x)² + (y − a)² there (docs/math.md §8, "Quiet gaps").
 */
function sideWeights(P: Mixture, Q: Mixture, atoms: number[], sigma: number): Float64Array[] {
  const ys = Float64Array.from(atoms);
  return [P, Q].map((m) => {
    const { ld, err } = gaussianMoments(m, sigma, ys, false);
    return ld.map((v, i) => v + err[i] + Math.log(sigma) + LOG_SQRT_2PI + 4 * U * (1 + Math.abs(v)));
  });
}

/** Moves a place forward to the atom gap holding the breakpoint u (u at an atom: the gap after it). */
function placeAt(pl: Place, r: Roles, atoms: number[], u: number): void {
  while (pl.b <= u) {
    pl.a = pl.b;
    pl.jb++;
    pl.b = pl.jb < atoms.length ? atoms[pl.jb] : Infinity;
  }
  while (pl.iy < r.Y.x.length && r.Y.x[pl.iy] <= pl.a) pl.iy++;
}

/**
 * The atoms, [lo, hi]'s ends, and each gap's centres d + (β−1)(d − c) for X's side d and Y's
 * neighbour c (where `gapBound`'s terms peak) that fall inside the gap and [lo, hi], ascending.
 */
function breakpoints(atoms: number[], roles: Roles[], lo: number, hi: number): number[] {
  const set = [lo, hi, ...atoms.filter((x) => x > lo && x < hi)];
  for (const r of roles) {
    const pl: Place = { a: -Infinity, b: atoms[0], jb: 0, iy: 0 };
    for (let j = -1; j < atoms.length; j++) {
      placeAt(pl, r, atoms, j < 0 ? -Infinity : atoms[j]);
      for (const d of sides(r, pl))
        for (const c of neighbours(r, pl)) {
          const mu = d.at + (r.beta - 1) * (d.at - c.at);
          if (mu > pl.a && mu < pl.b && mu > lo && mu < hi) set.push(mu);
        }
    }
  }
  return [...new Set(set)].sort((x, y) => x - y);
}

/** X's side weights at the gap's two atoms (`sideWeights`), where it has them. */
function sides(r: Roles, pl: Place): { lw: number; at: number }[] {
  const out: { lw: number; at: number }[] = [];
  if (pl.jb > 0 && r.sideX[pl.jb - 1] > -Infinity) out.push({ lw: r.sideX[pl.jb - 1], at: pl.a });
  if (pl.jb < r.sideX.length && r.sideX[pl.jb] > -Infinity) out.push({ lw: r.sideX[pl.jb], at: pl.b });
  return out;
}

/** Y's nearest atom on either side of the gap. */
function neighbours(r: Roles, pl: Place): { lw: number; at: number }[] {
  const { Y } = r;
  return [pl.iy - 1, pl.iy].filter((i) => i >= 0 && i < Y.x.length && Y.logw[i] > -Infinity).map((i) => ({ lw: Y.logw[i], at: Y.x[i] }));
}

/** log of max(1, σ·max f at the breakpoints) per integrand: what its budget is relative to. */
function logEstimates(P: Mixture, Q: Mixture, powers: Float64Array[], sigma: number, points: number[]): number[] {
  const ys = Float64Array.from(points);
  const ldP = gaussianMoments(P, sigma, ys, false).ld,
    ldQ = gaussianMoments(Q, sigma, ys, false).ld;
  return powers.map(([a0, a1]) => {
    let top = -Infinity;
    for (let i = 0; i < ys.length; i++) top = Math.max(top, a0 * ldP[i] + a1 * ldQ[i]);
    return Math.max(0, top + Math.log(sigma));
  });
}

/**
 * log of a bound on ∫_s^t X^β Y^{1−β} for [s, t] inside the atom gap (a, b) (no atom of either
 * strictly inside; a = −∞ or b = ∞ beyond the outer atoms): X ≤ X̃_a φ(y−a) + X̃_b φ(b−y) with the
 * side weights X̃ of `sideWeights`, so X^β ≤ 2^{β−1}(·^β + ·^β); Y ≥ its nearest atom on either side
 * alone, so Y^{1−β} is at most either's power. Each half of [s, t] takes the better of Y's two
 * neighbours; each term is a `logSegment` (φ^βφ^{1−β} keeps the normalisation 1/(σ√2π)).
 */
function gapBound(r: Roles, pl: Place, s: number, t: number, sigma: number): number {
  const { beta } = r;
  const xs = sides(r, pl),
    ys = neighbours(r, pl);
  // The weights' products round: 4u of each.
  const half = (u: number, w: number) => {
    let best = Infinity;
    for (const c of ys) {
      let sum = -Infinity;
      for (const d of xs) {
        const round = 4 * U * (beta * (1 + Math.abs(d.lw)) + (beta - 1) * (1 + Math.abs(c.lw)));
        sum = logAddExp(sum, beta * d.lw + (1 - beta) * c.lw + round + logSegment(u, w, d.at, c.at, beta, sigma));
      }
      best = Math.min(best, sum);
    }
    return best;
  };
  const m = s + (t - s) / 2;
  const v = (beta - 1) * Math.LN2 - Math.log(sigma) - LOG_SQRT_2PI + logAddExp(half(s, m), half(m, t));
  // The sums of two or four terms and the constants: a margin of 1e-9 nats and 8u of the value.
  return v + 1e-9 + 8 * U * Math.abs(v);
}
