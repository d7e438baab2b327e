import type { Scenario } from '../distribution/scenario.js';
import { checkNotEmpty, fromCounts, fromWeights, type Discrete } from '../distribution/discrete.js';
import { InputError } from '../errors.js';

/**
 * A finite law of a vector X ∈ ℝ^d: distinct atoms (row-major, `points[k·d + i]` is coordinate i
 * of atom k) with exact rational masses, as for scalars (docs/math.md §2): identical atoms are
 * merged by adding their numerators, never by adding rounded floats.
 */
export interface PointLaw {
  readonly d: number;
  readonly points: Float64Array;
  readonly masses: Float64Array;
  readonly numerators: readonly bigint[];
  readonly denominator: bigint;
}

/** A prior class whose secret-conditional laws are vector laws (a query of several columns). */
export type PointScenario = Scenario<PointLaw>;

/** Coordinate i of atom k. */
export const coord = (m: PointLaw, k: number, i: number): number => m.points[k * m.d + i];

/** Number of atoms. */
export const atomsOf = (m: PointLaw): number => m.masses.length;

/**
 * From vector values (all of length d ≥ 1) with counts or weights; errors name `path`.
 * @example pointLaw([[1, 2], [3, 4], [1, 2]], { counts: [1, 1, 2] }).masses // [3/4, 1/4]
 */
export function pointLaw(
  values: readonly (readonly number[])[],
  w: { counts?: readonly (number | bigint)[]; weights?: readonly number[] },
  path = 'distribution',
): PointLaw {
  checkNotEmpty(values, path);
  const d = values[0].length;
  const ids = new Map<string, number>();
  const firsts: (readonly number[])[] = [];
  const idOf = values.map((v, k) => {
    if (v.length !== d)
      throw new InputError(`has ${v.length} coordinates but values[0] has ${d}; every value must have the same length`, `${path}.values[${k}]`);
    v.forEach((x, i) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) throw new InputError(`value ${String(x)} is not a finite number`, `${path}.values[${k}][${i}]`);
    });
    // Exact key: every double prints as a unique shortest string (−0 folded into 0).
    const key = v.map((x) => String(x === 0 ? 0 : x)).join(',');
    let id = ids.get(key);
    if (id === undefined) {
      id = firsts.length;
      ids.set(key, id);
      firsts.push(v);
    }
    return id;
  });
  // Masses through the scalar builder on the atoms' ids: exact sums, zero masses dropped.
  const byId: Discrete = w.counts ? fromCounts(idOf, w.counts, path) : fromWeights(idOf, w.weights ?? [], path);
  const points = new Float64Array(byId.values.length * d);
  byId.values.forEach((id, k) => {
    firsts[id].forEach((x, i) => {
      points[k * d + i] = x === 0 ? 0 : x;
    });
  });
  return lexicographic({ d, points, masses: byId.masses, numerators: byId.numerators, denominator: byId.denominator });
}

/**
 * A law with its atoms in lexicographic order of their coordinates: one order whatever order the
 * atoms were met in (a table engine may return groups in any order), so every computation on the
 * law — transport solves with their tie-breaking among them — is reproducible bit for bit.
 */
function lexicographic(m: PointLaw): PointLaw {
  const n = m.masses.length;
  const order = Array.from({ length: n }, (_, k) => k).sort((x, y) => {
    for (let c = 0; c < m.d; c++) {
      const dc = m.points[x * m.d + c] - m.points[y * m.d + c];
      if (dc !== 0) return dc;
    }
    return 0;
  });
  if (order.every((k, i) => k === i)) return m;
  const points = new Float64Array(n * m.d);
  order.forEach((k, i) => {
    points.set(m.points.subarray(k * m.d, (k + 1) * m.d), i * m.d);
  });
  return {
    d: m.d,
    points,
    masses: Float64Array.from(order, (k) => m.masses[k]),
    numerators: order.map((k) => m.numerators[k]),
    denominator: m.denominator,
  };
}

/**
 * Two vector laws as scalar laws on shared atom ids (equal vectors, equal ids): what only needs
 * to match atoms — D_α(P_X‖Q_X) of the data itself — reuses the scalar code.
 */
export function asIdLaws(p: PointLaw, q: PointLaw): [Discrete, Discrete] {
  const [a, b] = idLaws([p, q]);
  return [a, b];
}

/** Several vector laws as scalar laws on shared atom ids (equal vectors, equal ids), in order. */
export function idLaws(laws: readonly PointLaw[]): Discrete[] {
  const ids = new Map<string, number>();
  const idsOf = (m: PointLaw) =>
    Array.from({ length: atomsOf(m) }, (_, k) => {
      const key = Array.from(m.points.subarray(k * m.d, (k + 1) * m.d)).join(',');
      if (!ids.has(key)) ids.set(key, ids.size);
      return ids.get(key)!;
    });
  const build = (m: PointLaw, id: number[]): Discrete => {
    const order = id.map((_, k) => k).sort((a, b) => id[a] - id[b]);
    return {
      values: Float64Array.from(order, (k) => id[k]),
      masses: Float64Array.from(order, (k) => m.masses[k]),
      numerators: order.map((k) => m.numerators[k]),
      denominator: m.denominator,
    };
  };
  return laws.map((m) => build(m, idsOf(m)));
}

/**
 * A scalar law over atom indices as the vector law of those atoms (a table's vector query is
 * tallied by index): masses unchanged, exactly.
 */
function fromIndexLaw(d: Discrete, atoms: readonly (readonly number[])[]): PointLaw {
  const dim = atoms[0]?.length ?? 1;
  const points = new Float64Array(d.values.length * dim);
  d.values.forEach((id, k) => {
    atoms[id].forEach((x, i) => {
      points[k * dim + i] = x;
    });
  });
  return lexicographic({ d: dim, points, masses: d.masses, numerators: d.numerators, denominator: d.denominator });
}

/** A scenario over atom numbers (a vector query's table histograms) as the vector scenario of those atoms. */
export function pointScenarioOf(s: Scenario, atoms: readonly (readonly number[])[]): PointScenario {
  return {
    ...s,
    priors: s.priors.map((p) => ({ ...p, conditionals: Object.fromEntries(Object.entries(p.conditionals).map(([k, d]) => [k, fromIndexLaw(d, atoms)])) })),
  };
}

/** Largest weighted coordinate distance allowed: its square, summed over coordinates, stays finite. */
const MAX_WEIGHTED_SPREAD = 1e150;

/**
 * The coordinate weights of a vector scenario (default all 1), checked once for every command:
 * d finite numbers > 0 whose weighted spreads (max − min)/wᵢ of every coordinate stay below
 * 10¹⁵⁰, so transport costs |Δ|/w and (Δ/w)² never overflow to ∞.
 * @example coordinateWeights(s, [1, 2]) // [1, 2]
 */
export function coordinateWeights(scenario: PointScenario, given: readonly number[] | undefined): number[] {
  const laws = scenario.priors.flatMap((p) => Object.values(p.conditionals));
  const d = laws[0].d;
  const w = given ? [...given] : Array<number>(d).fill(1);
  if (w.length !== d) throw new InputError(`has ${w.length} entries for vectors of length ${d}`, 'coordinateScales');
  if (!w.every((x) => Number.isFinite(x) && x > 0)) throw new InputError('must all be finite numbers > 0', 'coordinateScales');
  for (let i = 0; i < d; i++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const m of laws)
      for (let k = 0; k < atomsOf(m); k++) {
        lo = Math.min(lo, coord(m, k, i));
        hi = Math.max(hi, coord(m, k, i));
      }
    if (!((hi - lo) / w[i] <= MAX_WEIGHTED_SPREAD))
      throw new InputError(
        `coordinate ${i + 1}'s spread ${hi - lo} over its weight ${w[i]} exceeds ${MAX_WEIGHTED_SPREAD}: choose weights of comparable size`,
        'coordinateScales',
      );
  }
  return w;
}

/** The dimension of a vector scenario, after checking every conditional has it. */
export function dimensionOf(s: PointScenario): number {
  const d = Object.values(s.priors[0].conditionals)[0].d;
  s.priors.forEach((p, i) => {
    for (const [secret, m] of Object.entries(p.conditionals))
      if (m.d !== d) throw new InputError(`has vectors of length ${m.d} but the first conditional has ${d}`, `priors[${i}].conditionals.${secret}`);
  });
  return d;
}

const projections = new WeakMap<PointLaw, Map<string, PointLaw>>();

/**
 * The law of some coordinates of a vector law (its marginal), masses exact: atoms that agree on
 * those coordinates merge. Made once per law and coordinates (laws never change once made).
 * @example projectedLaw(pointLaw([[1, 2], [1, 3]], { counts: [1, 3] }), [0]).masses // [1]
 */
export function projectedLaw(m: PointLaw, coords: readonly number[]): PointLaw {
  let byKey = projections.get(m);
  if (!byKey) {
    byKey = new Map();
    projections.set(m, byKey);
  }
  const key = coords.join(',');
  let law = byKey.get(key);
  if (!law) {
    const atoms = Array.from({ length: atomsOf(m) }, (_, k) => coords.map((c) => coord(m, k, c)));
    law = pointLaw(atoms, { counts: m.numerators });
    byKey.set(key, law);
  }
  return law;
}

/** One prior of a vector scenario seen through some of its coordinates (see `reducedPriors`). */
export interface ReducedPrior {
  /** The prior alone, on the coordinates that vary under it: finite laws on ℝ when one does. */
  scenario: Scenario | PointScenario;
  /** Where each coordinate of `keep` went in the reduced laws (−1: constant under this prior, dropped). */
  to: number[];
}

/**
 * Each prior of a vector scenario alone, seen through the coordinates `keep`, keeping only what can
 * tell its secrets apart (docs/math.md §20): a coordinate equal to one constant in every atom of
 * every conditional of the prior is dropped (its noisy release is independent of the secret: data
 * processing both ways), and coordinates equal to each other in every atom are merged (their
 * releases are releases of one value). Masses stay exact. A prior with nothing left is omitted.
 * @example reducedPriors(s, [0, 1])[0].to // [0, -1] when coordinate 1 is constant under the first prior
 */
export function reducedPriors(s: PointScenario, keep: readonly number[]): ReducedPrior[] {
  // Kept per scenario and coordinates: a search over scales accounts the same laws many times, and
  // the couplings found for them are kept per pair of law objects (coupling/points.ts).
  const byKeep = reducedCache.get(s) ?? new Map<string, ReducedPrior[]>();
  reducedCache.set(s, byKeep);
  const key = keep.join(',');
  let out = byKeep.get(key);
  if (!out) {
    out = reduce(s, keep);
    byKeep.set(key, out);
  }
  return out;
}

const reducedCache = new WeakMap<PointScenario, Map<string, ReducedPrior[]>>();

/** `reducedPriors` computed. */
function reduce(s: PointScenario, keep: readonly number[]): ReducedPrior[] {
  const out: ReducedPrior[] = [];
  for (const p of s.priors) {
    const laws = Object.values(p.conditionals);
    const column = (c: number) => laws.flatMap((m) => Array.from({ length: atomsOf(m) }, (_, k) => coord(m, k, c)));
    const cols = keep.map(column);
    const reps: number[] = [];
    const to = cols.map((col) => {
      if (col.every((x) => x === col[0])) return -1;
      const same = reps.findIndex((r) => cols[r].every((x, k) => x === col[k]));
      if (same >= 0) return same;
      reps.push(cols.indexOf(col));
      return reps.length - 1;
    });
    if (reps.length === 0) continue;
    const project = (m: PointLaw, path: string) => {
      const atoms = Array.from({ length: atomsOf(m) }, (_, k) => reps.map((r) => coord(m, k, keep[r])));
      return reps.length === 1
        ? fromCounts(
            atoms.map((a) => a[0]),
            m.numerators,
            path,
          )
        : pointLaw(atoms, { counts: m.numerators }, path);
    };
    const conditionals = Object.fromEntries(Object.entries(p.conditionals).map(([secret, m]) => [secret, project(m, secret)]));
    const pairs = s.pairs?.filter(([a, b]) => Object.hasOwn(conditionals, a) && Object.hasOwn(conditionals, b));
    if (pairs && pairs.length === 0) continue;
    const prior = { ...p, conditionals };
    // The kind is read off the reduced laws (one coordinate left: finite laws on ℝ).
    const { lawKind: _kind, ...rest } = s;
    out.push({ scenario: { ...rest, priors: [prior], ...(pairs ? { pairs } : {}) } as Scenario | PointScenario, to });
  }
  return out;
}
