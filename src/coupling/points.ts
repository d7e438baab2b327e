import { comonotoneCoupling } from '../coupling/comonotone.js';
import { bottleneck } from '../coupling/bottleneck.js';
import { transportPlan, treeFlows, type TransportBasis } from '../coupling/transport.js';
import { bitLength, ratioToNumber } from '../numerics/float.js';
import { atomsOf, coord, type PointLaw } from '../distribution/points.js';
import { perPair, type PairMemo, type PointCoupling } from './pointCoupling.js';
import { knotheCouplings } from './knothe.js';

/** The norm a noise family measures displacement in, coordinate i divided by its noise weight wᵢ. */
export type Norm = { kind: 'l1' | 'l2'; weights: readonly number[] };

/** ‖P_i − Q_j‖ in the weighted norm for every atom pair, K·L row-major: the same doubles as `distance`. */
export function distances(P: PointLaw, Q: PointLaw, n: Norm): Float64Array {
  const all = Array.from({ length: P.d }, (_, c) => c);
  if (n.kind === 'l1') return separableCosts(P, Q, all, (c, d) => d / n.weights[c]);
  const squares = separableCosts(P, Q, all, (c, d) => {
    const z = d / n.weights[c];
    return z * z;
  });
  for (let k = 0; k < squares.length; k++) squares[k] = Math.sqrt(squares[k]);
  return squares;
}

/** ‖P_i − Q_j‖ in the weighted norm (relative rounding error ≤ (d + 3)·u, covered by the conditions' slack). */
export function distance(P: PointLaw, Q: PointLaw, i: number, j: number, n: Norm): number {
  let s = 0;
  for (let c = 0; c < P.d; c++) {
    const z = Math.abs(coord(P, i, c) - coord(Q, j, c)) / n.weights[c];
    s += n.kind === 'l1' ? z : z * z;
  }
  return n.kind === 'l1' ? s : Math.sqrt(s);
}

/** One coordinate's distinct values in a law (ascending) and each atom's index among them. */
interface Levels {
  values: Float64Array;
  index: Int32Array;
}

const levelsCache = new WeakMap<PointLaw, Levels[]>();

/** The law's distinct values of coordinate c, computed once per law and coordinate. */
function levelsOf(m: PointLaw, c: number): Levels {
  let all = levelsCache.get(m);
  if (!all) {
    all = [];
    levelsCache.set(m, all);
  }
  if (all[c]) return all[c];
  const n = atomsOf(m);
  const xs = Float64Array.from({ length: n }, (_, k) => coord(m, k, c)).sort();
  let u = 0;
  for (let k = 0; k < n; k++) if (k === 0 || xs[k] !== xs[u - 1]) xs[u++] = xs[k];
  const values = xs.slice(0, u);
  const at = new Map<number, number>();
  for (let r = 0; r < u; r++) at.set(values[r], r);
  all[c] = { values, index: Int32Array.from({ length: n }, (_, k) => at.get(coord(m, k, c)) as number) };
  return all[c];
}

/**
 * Σ over the coordinates `coords` (in their order) of f(c, |P_i,c − Q_j,c|) for every atom pair,
 * K·L row-major: f is evaluated once per pair of distinct coordinate values and read from that
 * table per atom pair, so columns with few distinct values (ages, counts) cost a lookup. The sums
 * are the same doubles as adding f's values pair by pair.
 * @example separableCosts(pointLaw([[0, 1]], { counts: [1] }), pointLaw([[2, 1], [0, 0]], { counts: [1, 1] }), [0, 1], (_c, d) => d) // Float64Array [1, 2] (Q's atoms in lexicographic order)
 */
export function separableCosts(P: PointLaw, Q: PointLaw, coords: readonly number[], f: (c: number, diff: number) => number): Float64Array {
  const K = atomsOf(P),
    L = atomsOf(Q);
  const out = new Float64Array(K * L);
  for (const c of coords) {
    const lp = levelsOf(P, c),
      lq = levelsOf(Q, c);
    const V = lq.values.length;
    const table = new Float64Array(lp.values.length * V);
    for (let r = 0; r < lp.values.length; r++) for (let s = 0; s < V; s++) table[r * V + s] = f(c, Math.abs(lp.values[r] - lq.values[s]));
    for (let i = 0; i < K; i++) {
      const row = lp.index[i] * V;
      for (let j = 0; j < L; j++) out[i * L + j] += table[row + lq.index[j]];
    }
  }
  return out;
}

/**
 * Every atom pair's coordinate differences as one index among their distinct combinations, where
 * those are few (columns of whole numbers: ages, counts): a cost that is a function of the |Δ_c|
 * is then evaluated once per combination and read per pair.
 */
export interface PairDiffs {
  /** Per coordinate, the distinct |P_i,c − Q_j,c| over all pairs, ascending. */
  diffs: Float64Array[];
  /** Combination k has coordinate c's difference diffs[c][⌊k / strides[c]⌋ mod diffs[c].length]. */
  strides: number[];
  combos: number;
  /** Pair (i, j)'s combination, at i·L + j. */
  arc: Int32Array;
}

/** Value pairs per coordinate up to which `pairDiffs` looks for repeated differences. */
const VALUE_PAIRS = 1 << 16;

/** One coordinate's distinct differences between the two laws' values, and each value pair's index among them. */
function coordinateDiffs(lp: Levels, lq: Levels): { diffs: Float64Array; of: Int32Array } {
  const V = lq.values.length;
  const all = new Float64Array(lp.values.length * V);
  for (let r = 0; r < lp.values.length; r++) for (let s = 0; s < V; s++) all[r * V + s] = Math.abs(lp.values[r] - lq.values[s]);
  const sorted = Float64Array.from(all).sort();
  let u = 0;
  for (let k = 0; k < sorted.length; k++) if (k === 0 || sorted[k] !== sorted[u - 1]) sorted[u++] = sorted[k];
  const diffs = sorted.slice(0, u);
  const at = new Map<number, number>();
  for (let k = 0; k < u; k++) at.set(diffs[k], k);
  return { diffs, of: Int32Array.from(all, (x) => at.get(x) as number) };
}

/**
 * The pairs' difference combinations over all d coordinates, or null when there are more than
 * `limit`, or a coordinate has over 2¹⁶ pairs of distinct values (then costs are better computed per
 * pair).
 * @example pairDiffs(pointLaw([[0, 1]], { counts: [1] }), pointLaw([[2, 1], [0, 0]], { counts: [1, 1] }), 16)?.combos // 4
 */
export function pairDiffs(P: PointLaw, Q: PointLaw, limit: number): PairDiffs | null {
  const per = Array.from({ length: P.d }, (_, c) => [levelsOf(P, c), levelsOf(Q, c)] as const);
  // A coordinate of many distinct values on both sides has about as many differences as pairs.
  if (per.some(([lp, lq]) => lp.values.length * lq.values.length > VALUE_PAIRS)) return null;
  const cds = per.map(([lp, lq]) => coordinateDiffs(lp, lq));
  const strides: number[] = [];
  let combos = 1;
  for (const cd of cds) {
    strides.push(combos);
    combos *= cd.diffs.length;
    if (combos > limit) return null;
  }
  const K = atomsOf(P),
    L = atomsOf(Q);
  const arc = new Int32Array(K * L);
  per.forEach(([lp, lq], c) => {
    const V = lq.values.length,
      { of } = cds[c],
      stride = strides[c];
    for (let i = 0; i < K; i++) {
      const row = lp.index[i] * V;
      for (let j = 0; j < L; j++) arc[i * L + j] += of[row + lq.index[j]] * stride;
    }
  });
  return { diffs: cds.map((cd) => cd.diffs), strides, combos, arc };
}

/**
 * Σ over the coordinates `coords` (in their order) of f(c, |Δ_c|) for every combination of
 * `pairDiffs`: the same doubles `separableCosts` gives each pair of that combination.
 * @example comboCosts(pairDiffs(pointLaw([[0, 1]], { counts: [1] }), pointLaw([[2, 1], [0, 0]], { counts: [1, 1] }), 16)!, [0, 1], (_c, d) => d) // Float64Array [0, 2, 1, 3]
 */
export function comboCosts(pd: PairDiffs, coords: readonly number[], f: (c: number, diff: number) => number): Float64Array {
  const out = new Float64Array(pd.combos);
  for (const c of coords) {
    const values = pd.diffs[c].map((x) => f(c, x));
    const n = values.length,
      stride = pd.strides[c];
    for (let k = 0; k < pd.combos; k++) out[k] += values[Math.floor(k / stride) % n];
  }
  return out;
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

/** The scale masses are rounded to where they have no common denominator below 2⁵³ (`roundedTransport`). */
const ROUNDED = 2 ** 40;

/**
 * The most arcs (K·L) a rounded transport is solved on: above, the lexicographic coupling stands, as
 * before such laws had transports (a chain histogram of 40 steps, 861 atoms per law and 120 pairs,
 * took 139 s against 8 s for 1.5% less noise; 6 days of Seattle's 5 states, 210 atoms, 14% less).
 */
const ROUNDED_MAX_ARCS = 100_000;

/**
 * The optimal coupling of laws whose masses have no common denominator below 2⁵³ (a chain's laws,
 * computed in floating point): the transport solved on the masses rounded to whole multiples of
 * 2⁻⁴⁰ (each at least one), then its optimal tree's flows recomputed exactly for the true masses
 * (`treeFlows`): where they are all ≥ 0 that tree is optimal for the true masses as well, and its
 * plan has their marginals exactly (docs/math.md §12, "Couplings"). Null where a flow would fall below 0.
 */
function roundedTransport(P: PointLaw, Q: PointLaw, cost: ((i: number, j: number) => number) | Float64Array, warm?: TransportBasis): PointCoupling | null {
  if (atomsOf(P) * atomsOf(Q) > ROUNDED_MAX_ARCS) return null;
  const rounded = (m: PointLaw) => Array.from(m.masses, (x) => Math.max(1, Math.round(x * ROUNDED)));
  const [a, b] = [rounded(P), rounded(Q)];
  // Equal totals: the difference (a few units) goes to the largest sink.
  const top = b.indexOf(Math.max(...b));
  b[top] += a.reduce((s, x) => s + x, 0) - b.reduce((s, x) => s + x, 0);
  if (!(b[top] > 0)) return null;
  const plan = transportPlan(a, b, cost, warm);
  const D = (P.denominator / gcd(P.denominator, Q.denominator)) * Q.denominator;
  const [fp, fq] = [D / P.denominator, D / Q.denominator];
  const supply = [...P.numerators.map((n) => n * fp), ...Q.numerators.map((n) => -n * fq), 0n];
  const exact = treeFlows(plan.basis, a.length, b.length, supply);
  if (!exact) return null;
  const bits = bitLength(D);
  return {
    p: exact.i,
    q: exact.j,
    // Each mass one rounding of its exact rational.
    mass: Float64Array.from(exact.flow, (f) => ratioToNumber(f, D, bits)),
    how: 'optimal transport (network simplex on the masses rounded to 2⁻⁴⁰, then the flows of its optimal tree exact for the true masses)',
    basis: plan.basis,
  };
}

/** A norm as a memo key. */
const normKey = (n: Norm) => `${n.kind}|${n.weights.join(',')}`;

/** Both laws' masses as whole numbers over one denominator, or null beyond 2⁵³ (no exact double flows). */
function integerMasses(P: PointLaw, Q: PointLaw): IntegerMasses | null {
  return perPair(integerCache, P, Q, '', () => integerMassesOf(P, Q));
}

type IntegerMasses = { a: number[]; b: number[]; total: bigint };

/** Each pair's integer masses, computed once (a pair's bounds solve many transports on them). */
const integerCache: PairMemo<IntegerMasses | null> = new WeakMap();

function integerMassesOf(P: PointLaw, Q: PointLaw): IntegerMasses | null {
  const total = (P.denominator / gcd(P.denominator, Q.denominator)) * Q.denominator;
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  const fp = total / P.denominator,
    fq = total / Q.denominator;
  return { a: P.numerators.map((n) => Number(n * fp)), b: Q.numerators.map((n) => Number(n * fq)), total };
}

/** Atoms in lexicographic order: the comonotone coupling of these ranks (exact masses) is the baseline coupling. */
export function lexicographicCoupling(P: PointLaw, Q: PointLaw): PointCoupling {
  const rank = (m: PointLaw) => {
    const order = Array.from({ length: atomsOf(m) }, (_, k) => k).sort((x, y) => {
      for (let c = 0; c < m.d; c++) {
        const dc = coord(m, x, c) - coord(m, y, c);
        if (dc !== 0) return dc;
      }
      return 0;
    });
    return order;
  };
  const [op, oq] = [rank(P), rank(Q)];
  const asRanks = (m: PointLaw, order: number[]) => ({
    values: Float64Array.from(order, (_, r) => r),
    masses: Float64Array.from(order, (k) => m.masses[k]),
    numerators: order.map((k) => m.numerators[k]),
    denominator: m.denominator,
  });
  const c = comonotoneCoupling(asRanks(P, op), asRanks(Q, oq));
  return { p: Int32Array.from(c.x, (r) => op[r]), q: Int32Array.from(c.y, (r) => oq[r]), mass: c.mass, how: 'lexicographic comonotone coupling' };
}

/**
 * The coupling minimising Σ π·cost (`cost` a function of the atoms' indices or their K·L costs row-major; network simplex, exact integer flows: exact marginals,
 * docs/math.md §12). Falls back to the lexicographic coupling (also exact, and valid for every
 * bound, only looser) when the masses have no common denominator below 2⁵³, and to the cheapest
 * sorted coupling where the pair is too large for a transport (`transportable`).
 */
export function optimalCoupling(P: PointLaw, Q: PointLaw, cost: ((i: number, j: number) => number) | Float64Array, warm?: TransportBasis): PointCoupling {
  if (!transportable(P, Q)) {
    const L = atomsOf(Q);
    return smallestBy(sortedCouplings(P, Q), (c) => couplingCost(c, typeof cost === 'function' ? cost : (i, j) => cost[i * L + j])).coupling;
  }
  const ints = integerMasses(P, Q);
  if (!ints)
    return (
      roundedTransport(P, Q, cost, warm) ?? {
        ...lexicographicCoupling(P, Q),
        how: `lexicographic comonotone coupling (the masses have no common denominator below 2⁵³ for the exact transport solve, and ${atomsOf(P) * atomsOf(Q) > ROUNDED_MAX_ARCS ? `the solve on them rounded is left out above ${ROUNDED_MAX_ARCS} atom pairs` : 'the solve on them rounded left a flow below 0'})`,
      }
    );
  const plan = transportPlan(ints.a, ints.b, cost, warm);
  const total = Number(ints.total);
  return {
    p: plan.i,
    q: plan.j,
    // Flows and total are whole numbers below 2⁵³: one correctly rounded division each.
    mass: Float64Array.from(plan.flow, (f) => f / total),
    how: 'optimal transport (network simplex, exact marginals)',
    basis: plan.basis,
  };
}

/**
 * The most atom pairs (K·L) a pair's transport or bottleneck is solved on: both read every pair's
 * cost (K·L doubles, and the solver's own arrays several times that), so two of adult's columns of
 * many values (age and fnlwgt: 11 947 × 7 993 atoms) asked for 10⁸ of them and gigabytes. Above it
 * the couplings found by sorting stand in (`sortedCouplings`): any coupling gives a valid bound.
 */
export const TRANSPORT_MAX_ARCS = 4_000_000;

/** Whether a pair's transports and bottleneck are solved (K·L within `TRANSPORT_MAX_ARCS`). */
export const transportable = (P: PointLaw, Q: PointLaw) => atomsOf(P) * atomsOf(Q) <= TRANSPORT_MAX_ARCS;

/** Couplings of pairs too large for a transport, per pair of laws. */
const sortedCache: PairMemo<PointCoupling[]> = new WeakMap();

/**
 * The couplings a pair too large for a transport is bounded over: the Knothe–Rosenblatt couplings
 * (both coordinate orders, up to `KNOTHE_MAX_D` coordinates) or else the lexicographic one, each a
 * sort, each saying why no transport was solved.
 */
export function sortedCouplings(P: PointLaw, Q: PointLaw): PointCoupling[] {
  return perPair(sortedCache, P, Q, '', () => {
    const knothe = knotheCouplings(P, Q);
    const why = `${atomsOf(P)} × ${atomsOf(Q)} atom pairs exceed the ${TRANSPORT_MAX_ARCS} a transport is solved on`;
    return (knothe.length ? knothe : [lexicographicCoupling(P, Q)]).map((c) => ({ ...c, how: `${c.how}; ${why}` }));
  });
}

/** The coupling among `cs` with the smallest `score` (the first on ties). */
function smallestBy(cs: readonly PointCoupling[], score: (c: PointCoupling) => number): { coupling: PointCoupling; score: number } {
  let best = { coupling: cs[0], score: score(cs[0]) };
  for (const c of cs.slice(1)) {
    const v = score(c);
    if (v < best.score) best = { coupling: c, score: v };
  }
  return best;
}

/** The coupling's largest move in the norm. */
export function largestMove(P: PointLaw, Q: PointLaw, c: PointCoupling, n: Norm): number {
  let w = 0;
  for (let k = 0; k < c.mass.length; k++) w = Math.max(w, distance(P, Q, c.p[k], c.q[k], n));
  return w;
}

/** Base couplings found: `best`'s theorem and coupled start from the same one. */
const baseCache: PairMemo<PointCoupling> = new WeakMap();

/**
 * The W₁ (ℓ₁ norm) or W₂ (ℓ₂ norm, cost its square) optimal coupling: the transport every bound
 * on a pair starts from, solved once per pair of laws and norm (its basis is only ever read: a
 * warm start copies it). `dist`: the K·L distances `distances` gives, where the caller has them.
 * A pair too large for a transport (`transportable`) gets the cheapest of its sorted couplings.
 */
export function baseCoupling(P: PointLaw, Q: PointLaw, n: Norm, dist?: Float64Array): PointCoupling {
  return perPair(baseCache, P, Q, normKey(n), () => {
    if (!transportable(P, Q))
      return smallestBy(sortedCouplings(P, Q), (c) => couplingCost(c, (i, j) => distance(P, Q, i, j, n) ** (n.kind === 'l1' ? 1 : 2))).coupling;
    // Every pair's distance at once (the same doubles as `distance`), unless the caller has them.
    const d = dist ?? distances(P, Q, n);
    return optimalCoupling(P, Q, n.kind === 'l1' ? d : d.map((x) => x ** 2));
  });
}

/** Σ mass·cost of a coupling (for comparisons and tests). */
export function couplingCost(c: PointCoupling, cost: (i: number, j: number) => number): number {
  let s = 0;
  for (let k = 0; k < c.mass.length; k++) s += c.mass[k] * cost(c.p[k], c.q[k]);
  return s;
}

/** W∞ values found: `best` asks for the same W∞ for pierquin and wasserstein-inf. */
const wInfCache: PairMemo<number> = new WeakMap();

/**
 * W∞ in the norm: exact bottleneck (max-flow) with integer masses; else the lexicographic coupling's
 * largest move, or where the pair is too large for the bottleneck the smallest of its sorted
 * couplings' (upper bounds). Computed once per pair of laws and norm.
 */
export function wInfPoints(P: PointLaw, Q: PointLaw, n: Norm): number {
  return perPair(wInfCache, P, Q, normKey(n), () => wInfOnce(P, Q, n));
}

/**
 * `wInfPoints` solved afresh, keeping nothing: for norms asked once (a search's trial weights). A
 * pair too large for the bottleneck (`transportable`) reads the smallest largest move of its sorted
 * couplings: an upper bound on W∞.
 */
export function wInfOnce(P: PointLaw, Q: PointLaw, n: Norm): number {
  if (!transportable(P, Q)) return smallestBy(sortedCouplings(P, Q), (c) => largestMove(P, Q, c, n)).score;
  const ints = integerMasses(P, Q);
  // Every pair's distance at once (the same doubles as `distance`).
  if (ints) return bottleneck(ints.a, ints.b, distances(P, Q, n));
  return largestMove(P, Q, lexicographicCoupling(P, Q), n);
}
