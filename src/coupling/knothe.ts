import { atomsOf, coord, type PointLaw } from '../distribution/points.js';
import { perPair, type PairMemo, type PointCoupling } from './pointCoupling.js';
import { bitLength } from '../numerics/float.js';

/** An atom's index and its weight in the current units (whole numbers: the masses stay exact). */
interface Item {
  k: number;
  w: bigint;
}

/** Items grouped by one coordinate's value, in increasing order, with each group's total. */
function groupsBy(m: PointLaw, items: readonly Item[], c: number): { items: Item[]; total: bigint }[] {
  const sorted = [...items].sort((x, y) => coord(m, x.k, c) - coord(m, y.k, c));
  const out: { items: Item[]; total: bigint }[] = [];
  for (const it of sorted) {
    const last = out[out.length - 1];
    if (last && coord(m, last.items[0].k, c) === coord(m, it.k, c)) {
      last.items.push(it);
      last.total += it.w;
    } else out.push({ items: [it], total: it.w });
  }
  return out;
}

/** The comonotone walk of two lists of whole weights with equal totals: calls `emit(i, j, mass)` per piece. */
function walk(a: readonly bigint[], b: readonly bigint[], emit: (i: number, j: number, m: bigint) => void): void {
  let i = 0,
    j = 0,
    ra = a[0],
    rb = b[0];
  while (i < a.length && j < b.length) {
    // biome-ignore lint/complexity/useMathMinMax: bigints (Math.min takes numbers only)
    const m = ra < rb ? ra : rb;
    if (m > 0n) emit(i, j, m);
    ra -= m;
    rb -= m;
    if (ra === 0n) ra = a[++i];
    if (rb === 0n) rb = b[++j];
  }
}

/** Binary digits of a positive whole number (`bitLength`: the same count as its base-2 text, without the text). */
const bits = bitLength;

/** x/den as a double within one rounding: 64 significant bits by integer division, then one conversion. */
function ratio(x: bigint, den: bigint): number {
  const shift = 64 - (bits(x) - bits(den));
  const q = shift >= 0 ? (x << BigInt(shift)) / den : x / (den << BigInt(-shift));
  return Number(q) * 2 ** -shift;
}

/**
 * The most coordinates a bound couples by Knothe–Rosenblatt: the exact masses gain two group
 * totals' bits per coordinate (never reduced), so past three the coupling costs more than the
 * transports it would spare (a private-group ledger of 8 groups: 97 s against 5.7 s).
 */
export const KNOTHE_MAX_D = 3;

/**
 * The most items a Knothe–Rosenblatt coupling copies (each coupled piece of a level takes both
 * groups' conditionals to the next): where one law's mass sits on one value of a coordinate against
 * the other's many — a private group's units at (v, 0) and (0, v) — that value's whole conditional is
 * coupled to each of the many, and the coupling itself has their product of atoms (10⁸ for adult's
 * fnlwgt by sex, gigabytes). Past it the coupling is not built: any coupling gives a valid bound.
 */
const KNOTHE_MAX_ITEMS = 2_000_000;

/**
 * Both coordinate orders' Knothe–Rosenblatt couplings (first to last, last to first), each where it
 * has at most `KNOTHE_MAX_ITEMS` items; none past `KNOTHE_MAX_D` coordinates.
 */
export function knotheCouplings(P: PointLaw, Q: PointLaw): PointCoupling[] {
  if (P.d > KNOTHE_MAX_D) return [];
  const forward = Array.from({ length: P.d }, (_, c) => c);
  return [forward, [...forward].reverse()].flatMap((order) => conditionalCoupling(P, Q, order) ?? []);
}

/**
 * The Knothe–Rosenblatt coupling of two laws on ℝ^d (docs/math.md §12): the first coordinate of
 * `order` coupled comonotonically, then, given each coupled pair of its values, the two laws'
 * conditionals on the rest, recursively; the last coordinate comonotone. Its masses are exact
 * rationals (whole weights scaled per level by the coupled groups' totals), each rounded once to a
 * double. A sort per level, no transport solve: any coupling gives a valid coupled bound, and
 * where a law's coordinates move together this one is often near the transport's.
 * @example conditionalCoupling(pointLaw([[0, 0], [1, 1]], { counts: [1, 1] }), pointLaw([[0, 1], [1, 2]], { counts: [1, 1] }), [0, 1]).mass // Float64Array [0.5, 0.5]
 */
export function conditionalCoupling(P: PointLaw, Q: PointLaw, order: readonly number[]): PointCoupling | null {
  // Kept per pair of laws and order: a search over scales couples the same laws at every scale.
  return perPair(knotheCache, P, Q, order.join(','), () => knothe(P, Q, order));
}

const knotheCache: PairMemo<PointCoupling | null> = new WeakMap();

/** Thrown inside `knothe` when the coupling passes `KNOTHE_MAX_ITEMS`. */
const TOO_MANY = Symbol('too many items');

/** `conditionalCoupling` computed, or null past `KNOTHE_MAX_ITEMS`. */
function knothe(P: PointLaw, Q: PointLaw, order: readonly number[]): PointCoupling | null {
  try {
    return knotheWithin(P, Q, order);
  } catch (e) {
    if (e === TOO_MANY) return null;
    throw e;
  }
}

function knotheWithin(P: PointLaw, Q: PointLaw, order: readonly number[]): PointCoupling {
  const p: number[] = [],
    q: number[] = [],
    mass: number[] = [];
  let items = 0;
  // Root units: P's atom k weighs n_k·D_Q, Q's atom l weighs n'_l·D_P, both totalling D_P·D_Q.
  const root = (m: PointLaw, other: bigint): Item[] => Array.from({ length: atomsOf(m) }, (_, k) => ({ k, w: m.numerators[k] * other }));
  const couple = (a: readonly Item[], b: readonly Item[], level: number, den: bigint): void => {
    // A level's pieces number at most its two lists' lengths, so this bounds the atoms too.
    items += a.length + b.length;
    if (items > KNOTHE_MAX_ITEMS) throw TOO_MANY;
    const c = order[level];
    if (level === order.length - 1) {
      const [sa, sb] = [[...a].sort((x, y) => coord(P, x.k, c) - coord(P, y.k, c)), [...b].sort((x, y) => coord(Q, x.k, c) - coord(Q, y.k, c))];
      walk(
        sa.map((it) => it.w),
        sb.map((it) => it.w),
        (i, j, m) => {
          p.push(sa[i].k);
          q.push(sb[j].k);
          mass.push(ratio(m, den));
        },
      );
      return;
    }
    const ga = groupsBy(P, a, c),
      gb = groupsBy(Q, b, c);
    walk(
      ga.map((g) => g.total),
      gb.map((g) => g.total),
      (i, j, m) => {
        // The piece m of groups i and j: their conditionals scaled to it, in units of den·T_i·T_j.
        const [ti, tj] = [ga[i].total, gb[j].total];
        couple(
          ga[i].items.map((it) => ({ k: it.k, w: it.w * m * tj })),
          gb[j].items.map((it) => ({ k: it.k, w: it.w * m * ti })),
          level + 1,
          den * ti * tj,
        );
      },
    );
  };
  couple(root(P, Q.denominator), root(Q, P.denominator), 0, P.denominator * Q.denominator);
  return {
    p: Int32Array.from(p),
    q: Int32Array.from(q),
    mass: Float64Array.from(mass),
    how: `Knothe–Rosenblatt coupling (coordinates in the order ${order.map((c) => c + 1).join(', ')})`,
  };
}
