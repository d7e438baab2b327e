// The secret's own window, exactly (docs/math.md §19, "boundary-coupled"): given the states just
// outside the window of time i (X_{s−1} = u, X_{e+1} = v), the window's count is independent of
// every other window, and its law given X_i = a is a bridge of the chain from u through a to v.
// This module computes those bridge laws and couples the boundary states; windows.ts combines them
// with the path-coupled values of the outer windows.
import { EPS } from '../numerics/float.js';

/** A law of a window's count: `masses[j]` is the mass of the count `lo + j`; `id` names it (equal ids, equal laws). */
export interface CountLaw {
  readonly lo: number;
  readonly masses: Float64Array;
  readonly id: number;
  /** The counts with positive mass, as the divergences read a law. */
  readonly support: { readonly values: Float64Array; readonly masses: Float64Array };
}

/**
 * What the boundary-coupled bound keeps across scales for one chain: the window laws (which do
 * not depend on the noise) and the noise-free divergences between them, keyed by the laws' ids.
 */
export interface BoundaryCache {
  laws?: WindowLaws;
  data: Map<number, number>;
  /** Per secret time and pair, the scale-free part of its bound (windows.ts). */
  skeletons?: Map<number, unknown>;
  /** The sorted couplings of pairs of laws, by the same keys as `data`. */
  sorted?: Map<number, SortedCoupling>;
}

/** A part of the window's count (before or after the secret time) with its bridge's total mass. */
interface Part {
  lo: number;
  masses: Float64Array;
  /** The probability of the bridge's end given its start (its masses' sum, before normalising). */
  z: number;
}

/**
 * The laws of a window's count given the secret X_i = a and the boundary states, for one chain.
 * A bridge between two given states depends on the kernel only, so windows of equal shape share
 * them: the part before i is keyed by its length, a and u (the first window's by i, as it starts
 * from the initial law), the part after i by its length, a and v (the last window's has no v).
 */
export class WindowLaws {
  private readonly k: number;
  private readonly fmin: number;
  private readonly fmax: number;
  private readonly parts = new Map<string, Part>();
  private readonly laws = new Map<number, Map<number, CountLaw>>();
  private count = 0;

  constructor(
    private readonly P: readonly (readonly number[])[],
    private readonly mu: readonly (readonly number[])[],
    private readonly f: readonly number[],
  ) {
    this.k = P.length;
    this.fmin = Math.min(...f);
    this.fmax = Math.max(...f);
  }

  /**
   * The count over the m times before the secret (after the state u, or from the chain's start when
   * u < 0, then the secret is at time m), ending in a. Forward over the m times: g(x, c), the mass of
   * paths with X = x and count c so far.
   */
  before(m: number, a: number, u: number): Part {
    const key = `b${m},${a},${u}`;
    const hit = this.parts.get(key);
    if (hit) return hit;
    const { k, f, P, fmin } = this;
    if (m === 0) return this.keep(key, { lo: 0, masses: Float64Array.of(1), z: u < 0 ? this.mu[0][a] : P[u][a] });
    const width = m * (this.fmax - fmin) + 1;
    let g = new Float64Array(k * width);
    // Counts are stored from m·fmin on; after t times the count lies in [t·fmin, t·fmax].
    const at = (x: number, c: number) => x * width + c;
    for (let x = 0; x < k; x++) {
      const start = u < 0 ? this.mu[0][x] : P[u][x];
      if (start > 0) g[at(x, f[x] - fmin)] = start;
    }
    for (let t = 1; t < m; t++) {
      const next = new Float64Array(k * width);
      for (let x = 0; x < k; x++)
        for (let c = 0; c < width; c++) {
          const w = g[at(x, c)];
          if (w === 0) continue;
          for (let y = 0; y < k; y++) if (P[x][y] > 0) next[at(y, c + f[y] - fmin)] += w * P[x][y];
        }
      g = next;
    }
    const masses = new Float64Array(width);
    for (let x = 0; x < k; x++) if (P[x][a] > 0) for (let c = 0; c < width; c++) masses[c] += g[at(x, c)] * P[x][a];
    return this.keep(key, normalised(m * fmin, masses));
  }

  /** The count over the m times after the secret a, ending before the state v (or at the chain's end when v < 0). */
  after(m: number, a: number, v: number): Part {
    const key = `a${m},${a},${v}`;
    const hit = this.parts.get(key);
    if (hit) return hit;
    const { k, f, P, fmin } = this;
    if (m === 0) return this.keep(key, { lo: 0, masses: Float64Array.of(1), z: v < 0 ? 1 : P[a][v] });
    const width = m * (this.fmax - fmin) + 1;
    const at = (x: number, c: number) => x * width + c;
    // Backward: r(x, c), the mass of paths from X = x over the remaining times with count c (x's own included), ending before v.
    let r = new Float64Array(k * width);
    for (let x = 0; x < k; x++) {
      const end = v < 0 ? 1 : P[x][v];
      if (end > 0) r[at(x, f[x] - fmin)] = end;
    }
    for (let t = 1; t < m; t++) {
      const next = new Float64Array(k * width);
      for (let x = 0; x < k; x++)
        for (let y = 0; y < k; y++) {
          const p = P[x][y];
          if (!(p > 0)) continue;
          for (let c = 0; c + f[x] - fmin < width; c++) {
            const w = r[at(y, c)];
            if (w !== 0) next[at(x, c + f[x] - fmin)] += p * w;
          }
        }
      r = next;
    }
    const masses = new Float64Array(width);
    for (let x = 0; x < k; x++) if (P[a][x] > 0) for (let c = 0; c < width; c++) masses[c] += P[a][x] * r[at(x, c)];
    return this.keep(key, normalised(m * fmin, masses));
  }

  /** The window's count given its boundary states and X_i = a: f(a) plus the two independent parts. */
  law(before: number, after: number, a: number, u: number, v: number): CountLaw {
    const k1 = this.k + 1;
    const shape = before * 2 ** 24 + after;
    const laws = this.laws.get(shape) ?? new Map<number, CountLaw>();
    this.laws.set(shape, laws);
    const key = (a * k1 + u + 1) * k1 + v + 1;
    const hit = laws.get(key);
    if (hit) return hit;
    const p = this.before(before, a, u),
      q = this.after(after, a, v);
    const masses = new Float64Array(p.masses.length + q.masses.length - 1);
    for (let x = 0; x < p.masses.length; x++) {
      if (p.masses[x] === 0) continue;
      for (let y = 0; y < q.masses.length; y++) masses[x + y] += p.masses[x] * q.masses[y];
    }
    const lo = p.lo + q.lo + this.f[a];
    const values: number[] = [],
      positive: number[] = [];
    masses.forEach((m, j) => {
      if (m > 0) {
        values.push(lo + j);
        positive.push(m);
      }
    });
    const law = { lo, masses, id: this.count++, support: { values: Float64Array.from(values), masses: Float64Array.from(positive) } };
    laws.set(key, law);
    return law;
  }

  private keep(key: string, part: Part): Part {
    this.parts.set(key, part);
    return part;
  }
}

/** Masses divided by their sum, which is kept as the bridge's total. */
function normalised(lo: number, masses: Float64Array): Part {
  let z = 0;
  for (const m of masses) z += m;
  return { lo, masses: z > 0 ? masses.map((m) => m / z) : masses, z };
}

/**
 * A coupling of two laws on the states known up to a relative error `eta` per mass: the maximal
 * coupling γ̃ of the computed laws, scaled by c ≤ 1 so that cγ̃'s margins lie below the true laws'
 * (each margin of γ̃ is recomputed and compared), and the mass `rest` = 1 − c·Σγ̃ (rounded up)
 * that a true coupling moves in some other way. So a true coupling is cγ̃ plus a coupling of mass
 * `rest`: the caller charges `rest` at the largest factor any pair can have.
 */
export function boundaryCoupling(p: readonly number[], q: readonly number[], eta: number): { entries: { u: number; v: number; mass: number }[]; rest: number } {
  const k = p.length;
  const entries: { u: number; v: number; mass: number }[] = [];
  const ru = new Float64Array(k),
    rv = new Float64Array(k);
  for (let z = 0; z < k; z++) {
    const c = Math.min(p[z], q[z]);
    if (c > 0) entries.push({ u: z, v: z, mass: c });
    ru[z] = p[z] - c;
    rv[z] = q[z] - c;
  }
  // Divided by the larger residual: the computed laws' totals may differ slightly, and both margins
  // of the unmet part then stay below their laws, however small it is.
  let rest = 0,
    restV = 0;
  for (const r of ru) rest += r;
  for (const r of rv) restV += r;
  rest = Math.max(rest, restV);
  if (rest > 0)
    for (let x = 0; x < k; x++) if (ru[x] > 0) for (let y = 0; y < k; y++) if (rv[y] > 0) entries.push({ u: x, v: y, mass: (ru[x] * rv[y]) / rest });
  // Margins of γ̃ (each a sum of at most k + 1 terms, each within 4 roundings of exact: relative (k + 6)·2⁻⁵³).
  const rows = new Float64Array(k),
    cols = new Float64Array(k);
  let total = 0;
  for (const e of entries) {
    rows[e.u] += e.mass;
    cols[e.v] += e.mass;
    total += e.mass;
  }
  const { keep, lost } = keptShare(p, q, rows, cols, total, eta);
  for (const e of entries) e.mass *= keep;
  return { entries, rest: lost };
}

/**
 * For a coupling computed from laws p, q known within a relative η per mass, with margins `rows`,
 * `cols` and total `total` (each margin a sum of at most k + 1 masses): the factor `keep` ≤ 1 that
 * puts the scaled margins below the true laws, and the mass `lost` (rounded up) a true coupling
 * then moves some other way.
 */
export function keptShare(
  p: readonly number[],
  q: readonly number[],
  rows: ArrayLike<number>,
  cols: ArrayLike<number>,
  total: number,
  eta: number,
): { keep: number; lost: number } {
  const k = p.length;
  const up = 1 + (k + 6) * EPS * 1.01;
  let c = 1;
  for (let z = 0; z < k; z++) {
    if (rows[z] > 0) c = Math.min(c, (p[z] * (1 - eta)) / (rows[z] * up));
    if (cols[z] > 0) c = Math.min(c, (q[z] * (1 - eta)) / (cols[z] * up));
  }
  c *= 1 - 2 * EPS;
  // The true total of cγ̃ is at least its computed total less (k² + k + 8) roundings.
  const left = 1 - c * total * (1 - (k * k + k + 8) * EPS);
  return { keep: c, lost: Math.max(0, left) * (1 + 2 * EPS) };
}

/**
 * The sorted (comonotone) coupling of two count laws, as the mass it moves by each distance
 * d = 0, 1, …: each step moves the smaller remaining mass. The rounding of the remainders, and the
 * laws' own relative error `eta` per mass, leave at most `lost` = (2n + 8)·2⁻⁵³ + 2η of mass that a
 * true coupling moves otherwise; `widest` is the largest distance between the supports.
 */
export interface SortedCoupling {
  moved: Float64Array;
  lost: number;
  widest: number;
}

/** The sorted coupling of p and q (see SortedCoupling). */
export function sortedCoupling(p: CountLaw, q: CountLaw, eta: number): SortedCoupling {
  const [xs, pm] = [p.support.values, p.support.masses];
  const [ys, qm] = [q.support.values, q.support.masses];
  const widest = Math.max(Math.abs(xs[xs.length - 1] - ys[0]), Math.abs(ys[ys.length - 1] - xs[0]));
  const moved = new Float64Array(widest + 1);
  let i = 0,
    j = 0;
  let rp = pm[0],
    rq = qm[0];
  while (i < xs.length && j < ys.length) {
    const m = Math.min(rp, rq);
    moved[Math.abs(xs[i] - ys[j])] += m;
    rp -= m;
    rq -= m;
    if (rp <= 0 && ++i < xs.length) rp = pm[i];
    if (rq <= 0 && ++j < ys.length) rq = qm[j];
  }
  return { moved, lost: (2 * (xs.length + ys.length) + 8) * EPS + 2 * eta, widest };
}

/**
 * The bound E_γ[F(|X − Y|)] of a sorted coupling at the factors F[d] of a shift by d: an upper
 * bound for α > 1 (F non-decreasing: the lost mass at the widest shift's factor, each per-distance
 * sum of n masses within n·2⁻⁵³), a lower bound for α < 1 (`below`: the lost mass dropped).
 */
export function sortedShiftBound(c: SortedCoupling, F: (d: number) => number, below: boolean): number {
  let sum = 0;
  for (let d = 0; d < c.moved.length; d++) if (c.moved[d] > 0) sum += c.moved[d] * F(d);
  const n = 2 * c.moved.length + 8;
  return below ? sum * (1 - c.lost) * (1 - n * EPS) : sum * (1 + n * EPS) + c.lost * F(c.widest);
}
