import { checkSetting, checkReleaseScale, checkSeveralReleases, checkRobustnessSettings, noDInfLevel } from '../settings.js';
import { coordinateWeights, dimensionOf } from '../distribution/points.js';
import { accountOf, budgetLeft, checkAccount, type Accounting, type AccountShare, type NextUnit } from './rows.js';
import type { AuditSettings } from '../audit/rows.js';
import type { AuditDirection, CertifiedBound } from '../audit/directions.js';
import { massErrorCharge, priorPairs } from '../distribution/scenario.js';

import { bracketAbove, bracketBelow } from '../numerics/bracket.js';
import { smallestFeasibleScale, type ScaleProblem } from '../numerics/smallestScale.js';
import { mechanismDef } from '../mechanisms/registry.js';
import { discreteRenyi } from '../divergence/exactRenyi.js';
import { InputError, NumericalError } from '../errors.js';

import { EPS } from '../numerics/float.js';
import { type Bounded, worseOf } from '../numerics/logExpectation.js';
import {
  allL1,
  boxDivergence,
  contaminationBox,
  coordsOf,
  coupledBound,
  mergedReleases,
  pairExponent,
  exactApplies,
  exactLevels,
  productOf,
  resolvedWhileFalling,
  smallestCandidate,
  type CoupledCandidate,
  type PointRelease,
} from '../calibrate/points.js';

import { robustnessFrom, type RobustnessReport } from '../audit/robustness.js';
import type { Mechanism } from '../calibrate/rules.js';
import type { TransportBasis } from '../coupling/transport.js';
import {
  comboCosts,
  baseCoupling,
  optimalCoupling,
  pairDiffs,
  separableCosts,
  sortedCouplings,
  transportable,
  wInfOnce,
  wInfPoints,
  type PairDiffs,
} from '../coupling/points.js';
import type { PointCoupling } from '../coupling/pointCoupling.js';
import { KNOTHE_MAX_D, knotheCouplings } from '../coupling/knothe.js';
import { asIdLaws, atomsOf, projectedLaw, type PointLaw, type PointScenario } from '../distribution/points.js';

export type { PointRelease } from '../calibrate/points.js';

/** A coupled bound found for one direction of a pair, kept for the other (`P`: the law it coupled first). */
interface SharedBound extends Bounded {
  P: PointLaw;
  coupling?: PointCoupling;
}

/**
 * What the bounds of one direction (P, Q) share across orders and release sets (besides the W₁/W₂
 * base couplings, which `baseCoupling` keeps per pair of laws): the data's own D_α per α, the last transport
 * basis (a warm start: same masses, new costs); and, with the reverse direction, W∞ and the coupled
 * bounds found (the noise's divergence between two points depends on |Δ| alone, so a coupling's
 * bound is the same read either way: docs/math.md §12).
 */
interface DirectionMemo {
  P: PointLaw;
  Q: PointLaw;
  /** W∞ in the weighted ℓ₁ norm, shared with the reverse direction. */
  wInf: { value?: number };
  /** Coupled bounds by order and releases, shared with the reverse direction. */
  bounds: Map<string, SharedBound>;
  data: Map<number, Bounded>;
  warm?: TransportBasis;
  /** One release's transport costs at an order (K·L numbers each): scratch, cleared by the caller when done with the direction. */
  costs: Map<string, Float64Array>;
  /** The transport's K·L costs of a re-solve (reused: each solve reads them before the next is written). */
  scratch?: Float64Array;
  /** The pairs' coordinate-difference combinations (null: too many; undefined: not looked for yet). */
  diffs?: PairDiffs | null;
  /** The Knothe–Rosenblatt couplings of the cheap account (coordinates first to last, last to first). */
  conditional?: PointCoupling[];
  /** Exact joint levels on ℝ² by order and releases, both directions at once (null: the rule declined), shared with the reverse direction. */
  exact: Map<string, { P: PointLaw; both: [Bounded, Bounded] } | null>;
}

const directionMemo = (P: PointLaw, Q: PointLaw, wInf: { value?: number }, bounds: Map<string, SharedBound>, exact: DirectionMemo['exact']): DirectionMemo => ({
  P,
  Q,
  wInf,
  bounds,
  data: new Map(),
  costs: new Map(),
  exact,
});

/** The memos of a pair's two directions, (P, Q) and (Q, P), sharing W∞ and the coupled bounds. */
function pairMemos(P: PointLaw, Q: PointLaw): [DirectionMemo, DirectionMemo] {
  const wInf = {},
    bounds = new Map<string, SharedBound>(),
    exact = new Map();
  return [directionMemo(P, Q, wInf, bounds, exact), directionMemo(Q, P, wInf, bounds, exact)];
}

/** A release's identity in a memo's keys. */
const releaseKey = (r: PointRelease) => `${r.mechanism}|${r.scale}|${r.coordinates?.join(',') ?? ''}`;

/** Drops a direction's K·L scratch (costs, the re-solve's matrix, the pairs' combinations) once its bounds at an order are done. */
function clearScratch(m: DirectionMemo): void {
  m.costs.clear();
  m.scratch = undefined;
  m.diffs = undefined;
}

/** The direction's W₁ (all-Laplace releases: ℓ₁ cost) or W₂ (squared ℓ₂ cost) optimal coupling, the first one tried. */
const directionBase = (m: DirectionMemo, laplace: boolean, w: readonly number[]): PointCoupling =>
  baseCoupling(m.P, m.Q, { kind: laplace ? 'l1' : 'l2', weights: w });

/**
 * Transport costs: one value per atom pair (i·L + j), or, with `arc`, one per combination of the
 * pairs' coordinate differences (`pairDiffs`), pair k's being values[arc[k]].
 */
interface Costs {
  values: Float64Array;
  arc: Int32Array | null;
}

/** The direction's difference combinations, looked for once (null: costs per pair). */
function diffsOf(m: DirectionMemo): PairDiffs | null {
  if (m.diffs === undefined) m.diffs = pairDiffs(m.P, m.Q, (atomsOf(m.P) * atomsOf(m.Q)) / 4);
  return m.diffs;
}

/**
 * The releases' pair exponents for every (i, j) in plain floating point: a transport cost, which
 * needs no certificate (any coupling is valid; the bound is certified on the coupling chosen).
 */
function exponentCosts(m: DirectionMemo, releases: readonly PointRelease[], w: readonly number[], alpha: number): Costs {
  const { P, Q } = m;
  const pd = diffsOf(m);
  // Per release, kept in the memo: the joint cost is their sum, and each release's own bound reuses its part.
  const part = (r: PointRelease) => {
    const key = `${alpha}|${releaseKey(r)}`;
    let cost = m.costs.get(key);
    if (cost) return cost;
    const product = productOf(r.mechanism, 'release');
    const f = (c: number, diff: number) => product.cost(alpha, diff / w[c] / r.scale);
    cost = pd ? comboCosts(pd, coordsOf(r, P.d), f) : separableCosts(P, Q, coordsOf(r, P.d), f);
    m.costs.set(key, cost);
    return cost;
  };
  const arc = pd ? pd.arc : null;
  if (releases.length === 1) return { values: part(releases[0]), arc };
  const sum = new Float64Array(pd ? pd.combos : atomsOf(P) * atomsOf(Q));
  for (const r of releases) {
    const c = part(r);
    for (let k = 0; k < sum.length; k++) sum[k] += c[k];
  }
  return { values: sum, arc };
}

/** Pair k's cost. */
const costAt = (cost: Costs, k: number) => cost.values[cost.arc ? cost.arc[k] : k];

/**
 * The transport re-solved for E_π e^{cost}: costs relative to the current coupling's worst pair,
 * capped at e^10 (pairs that costly are never worth using), as the vector calibration does (POINTS in calibrate/points.ts); warm-started
 * from the direction's last basis.
 */
function resolved(m: DirectionMemo, current: PointCoupling, cost: Costs): PointCoupling {
  const L = atomsOf(m.Q);
  let ref = -Infinity;
  for (let k = 0; k < current.mass.length; k++) ref = Math.max(ref, costAt(cost, current.p[k] * L + current.q[k]));
  m.scratch ??= new Float64Array(atomsOf(m.P) * L);
  const e = m.scratch;
  // At scales so small that every coupled pair's cost is ∞ (a search down to 10⁻³⁰⁰ where the data
  // itself fits), ∞ − ∞ is read as 0: the costs stay finite and the bound is ∞ (data processing stands).
  const relative = (x: number) => Math.exp(Math.min(x === ref ? 0 : x - ref, 10));
  if (cost.arc) {
    const byCombo = cost.values.map(relative);
    for (let k = 0; k < e.length; k++) e[k] = byCombo[cost.arc[k]];
  } else for (let k = 0; k < e.length; k++) e[k] = relative(cost.values[k]);
  const next = optimalCoupling(m.P, m.Q, e, m.warm ?? current.basis);
  if (next.basis) m.warm = next.basis;
  return next;
}

/**
 * A certified upper bound on D_α(P_Y‖Q_Y) of the releases together (docs/math.md §12): α > 1 the
 * coupled bound, over the W₁ (Laplace only) or W₂ transport coupling and then the transport re-solved
 * for the bound's own cost while it falls (any coupling is valid), with the coupling it used; α = ∞
 * (Laplace only): the W∞ coupling's largest weighted ℓ₁ move times Σ 1/b. Infinity where no bound
 * applies (Gaussian at α = ∞).
 */
function releaseBound(m: DirectionMemo, asked: readonly PointRelease[], w: readonly number[], alpha: number): Bounded & { coupling?: PointCoupling } {
  const releases = mergedReleases(asked, m.P.d);
  const key = `${alpha}‖${releases.map(releaseKey).join('‖')}`;
  const seen = m.bounds.get(key);
  if (seen) {
    const { value, error, coupling } = seen;
    return { value, error, ...(coupling ? { coupling: seen.P === m.P ? coupling : transposed(coupling) } : {}) };
  }
  const b = directBound(m, releases, w, alpha);
  m.bounds.set(key, { ...b, P: m.P });
  return b;
}

/** A coupling of (P, Q) read as one of (Q, P) (no transport basis: that belongs to the solve of (P, Q)). */
const transposed = (c: PointCoupling): PointCoupling => ({ p: c.q, q: c.p, mass: c.mass, how: c.how });

/** `releaseBound` computed for this direction. */
function directBound(m: DirectionMemo, releases: readonly PointRelease[], w: readonly number[], alpha: number): Bounded & { coupling?: PointCoupling } {
  const l1 = allL1(releases);
  if (alpha === Infinity) {
    const rates = releases.map((r) => productOf(r.mechanism, 'release').dInfRate);
    if (!rates.every((f) => f !== undefined)) return { value: Infinity, error: 0 };
    if (releases.every((r) => !r.coordinates)) {
      m.wInf.value ??= wInfPoints(m.P, m.Q, { kind: 'l1', weights: w });
      const v = m.wInf.value * releases.reduce((a, r, k) => a + rates[k]!(r.scale), 0);
      return { value: v, error: (releases.length + 4) * EPS * v };
    }
    // Releases of different coordinates: D∞ ≤ the largest coupled move in the norm Σ_c u_c·|Δ_c|,
    // u_c = Σ over the releases of c of 1/(w_c·b) (0: a coordinate no release publishes), minimised
    // over couplings — W∞ in that weighted ℓ₁ norm (weights 1/u_c, ∞ where u_c = 0).
    const u = w.map(() => 0);
    releases.forEach((r, k) => {
      for (const c of coordsOf(r, m.P.d)) u[c] += rates[k]!(r.scale);
    });
    // Weights that follow the releases' scales (a `--next` search tries many): solved, not kept.
    const v = wInfOnce(m.P, m.Q, { kind: 'l1', weights: w.map((wc, c) => (u[c] > 0 ? wc / u[c] : Infinity)) });
    return { value: v, error: (releases.length + m.P.d + 8) * EPS * v };
  }
  const t = (i: number, j: number) => pairExponent(m.P, m.Q, i, j, releases, w, alpha);
  if (!transportable(m.P, m.Q)) return sortedBound(m, t, alpha);
  let coupling = directionBase(m, l1, w);
  let bound = coupledBound(coupling, t, alpha);
  const cost = exponentCosts(m, releases, w, alpha);
  for (let round = 0; round < 6; round++) {
    const next = resolved(m, coupling, cost);
    const nb = coupledBound(next, t, alpha);
    const was = bound.value + bound.error;
    // Any coupling is valid: keep the smallest bound met, stop once the re-solve no longer pays.
    if (nb.value + nb.error < was) [coupling, bound] = [next, nb];
    if (!(nb.value + nb.error < was * (1 - 1e-9))) break;
  }
  return { ...bound, coupling };
}

/** A pair too large for a transport: the smallest coupled bound over its sorted couplings, with the coupling. */
function sortedBound(m: DirectionMemo, t: (i: number, j: number) => Bounded, alpha: number): Bounded & { coupling: PointCoupling } {
  const found = sortedCouplings(m.P, m.Q).map((coupling) => ({ ...coupledBound(coupling, t, alpha), coupling }));
  return found.reduce((a, b) => (b.value + b.error < a.value + a.error ? b : a));
}

/** Checks a vector scenario's coordinate weights and the releases (`path`: the setting naming them); the weights (default all 1). */
function checked(scenario: PointScenario, releases: readonly PointRelease[], coordinateScales: readonly number[] | undefined, path: string): number[] {
  const d = dimensionOf(scenario);
  const w = coordinateWeights(scenario, coordinateScales);
  for (const r of releases) {
    productOf(r.mechanism, path);
    checkReleaseScale(r);
    if (r.coordinates) {
      const cs = r.coordinates;
      if (!cs.length || new Set(cs).size !== cs.length || !cs.every((c) => Number.isInteger(c) && c >= 0 && c < d))
        throw new InputError(
          `a release's coordinates must be distinct whole numbers from 1 to ${d}, got ${cs.map((c) => c + 1).join(', ')}`,
          path === 'next' ? 'next' : 'release',
        );
    }
  }
  return w;
}

/** Every (prior, pair, direction) of a vector scenario, with its two laws (in a memo shared by its bounds). */
function directions(scenario: PointScenario) {
  return priorPairs(scenario).units.flatMap(({ prior, pair }) => {
    const memos = pairMemos(prior.conditionals[pair[0]], prior.conditionals[pair[1]]);
    const both = !scenario.ordered;
    return (both ? [pair, [pair[1], pair[0]] as [string, string]] : [pair]).map(([from, to], k) => ({
      prior: prior.name,
      pair: [pair[0], pair[1]] as [string, string],
      from,
      to,
      memo: memos[k],
      /** The pair's first direction, and whether the pair has its reverse too (a pool task computes both). */
      first: k === 0,
      both,
    }));
  });
}

/** `exactLevels` for a direction, computed once per order and releases for both directions of its pair. */
function exactBoth(m: DirectionMemo, releases: readonly PointRelease[], w: readonly number[], alpha: number): [Bounded, Bounded] | null {
  const key = `${alpha}‖${mergedReleases(releases, m.P.d).map(releaseKey).join('‖')}`;
  let hit = m.exact.get(key);
  if (hit === undefined) {
    const both = exactLevels(m.P, m.Q, releases, w, alpha);
    hit = both && { P: m.P, both };
    m.exact.set(key, hit);
  }
  if (!hit) return null;
  return hit.P === m.P ? hit.both : [hit.both[1], hit.both[0]];
}

/**
 * The bound that holds for one direction: the releases' exact joint D_α where it applies (`exactBoth`),
 * else their coupled bound; or the data's own D_α where smaller (data processing).
 */
function directionBound(m: DirectionMemo, releases: readonly PointRelease[], w: readonly number[], alpha: number) {
  let own = m.data.get(alpha);
  if (!own) {
    const [ip, iq] = asIdLaws(m.P, m.Q);
    own = discreteRenyi(ip, iq, alpha);
    m.data.set(alpha, own);
  }
  const data = { value: own.value, error: own.error, how: 'data-processing' as const };
  if (!releases.length) return data;
  const exact = exactBoth(m, releases, w, alpha)?.[0];
  const b = exact ? { ...exact, how: 'exact' as const } : { ...releaseBound(m, releases, w, alpha), how: 'coupled' as const };
  return b.value + b.error < data.value + data.error ? b : data;
}

/** N releases of a vector audited together: a whole number ≥ 1, and more than one only with noise. */
export function checkPointReleases(s: { releases?: number; scale: number }): number {
  const n = s.releases ?? 1;
  checkSetting('releases', n, 'releases', String(s.releases));
  checkSeveralReleases(n, s.scale);
  return n;
}

/**
 * The audited directions of a vector query (docs/math.md §12): independent noise per coordinate at
 * wᵢ·scale, N releases together, and for every α > 1 a certified *upper bound* on D_α of the
 * released vectors (`releaseBound`, or the data's own D_α where smaller; α = ∞'s bound at every
 * order where the family has one). The exact divergence would need a d-dimensional integral: a row
 * that passes is certified, a row that fails may be the bound's looseness.
 * @example pointDirections({ name: 'v', priors: [{ name: 'p', conditionals: { a: pointLaw([[0, 0], [1, 1]], { counts: [3, 1] }), b: pointLaw([[0, 0], [1, 2]], { counts: [1, 3] }) } }] }, { mechanism: 'gaussian', scale: 2, alphas: [2], epsilon: 1, delta: 1e-6 })[0].bounds(2)[0].value
 */
export function pointDirections(scenario: PointScenario, s: AuditSettings & { coordinateScales?: readonly number[]; releases?: number }): AuditDirection[] {
  const n = checkPointReleases(s);
  const product = productOf(s.mechanism, 'mechanism');
  // N releases of the same vector: their pair divergences add inside the coupled bound (docs/math.md §9, §12).
  const releases: PointRelease[] = s.scale > 0 ? Array.from({ length: n }, () => ({ mechanism: s.mechanism, scale: s.scale })) : [];
  const w = checked(scenario, releases, s.coordinateScales, 'mechanism');
  for (const a of s.alphas) {
    if (!(a > 1)) throw new InputError(`vector audits bound D_α for α > 1 (the coupled bound), got ${a}`, 'alpha');
    if (a === Infinity && !product.dInfRate) throw noDInfLevel(mechanismDef(s.mechanism).title);
  }
  return directions(scenario).map(
    (dir): AuditDirection => ({
      ...dir,
      level: () => null,
      bounds: (alpha) => {
        const own = directionBound(dir.memo, releases, w, alpha);
        // D_α ≤ D_∞ at every order: the α = ∞ bound (Laplace-shaped noise), charged at ∞.
        const inf = alpha < Infinity && product.dInfRate ? directionBound(dir.memo, releases, w, Infinity) : null;
        // The Knothe–Rosenblatt couplings' bound, as an account reads it beside the transport's.
        const knothe =
          alpha < Infinity && releases.length ? { ...conditionalBound(dir.memo, mergedReleases(releases, dir.memo.P.d), w, alpha), how: 'coupled' } : null;
        clearScratch(dir.memo);
        const certified = (b: { value: number; error: number; how: string }, order: number): CertifiedBound => ({
          value: b.value,
          error: b.error,
          certificate: b.how === 'coupled' ? 'coupled-bound' : b.how === 'exact' ? 'bernstein-ellipse' : (b.how as CertifiedBound['certificate']),
          order,
        });
        const at = knothe && knothe.value + knothe.error < own.value + own.error ? knothe : own;
        return [certified(at, alpha), ...(inf ? [{ ...certified(inf, Infinity), certificate: 'order-monotone' as const }] : [])];
      },
    }),
  );
}

/** One direction's share of a vector account, per α: its joint bound and how, and the sum of each release's own bound. */
export interface DirectionAccount {
  value: number;
  how: 'exact' | 'coupled' | 'data-processing';
  /** A certified lower end of the direction's joint D_α where the exact accountant computed it (null elsewhere). */
  lower: number | null;
  naive: number;
}

/**
 * A pair's directions of a vector account, (P, Q) and unless `ordered` (Q, P), each at every order:
 * what a worker thread computes for its pair. The second direction reads the first's coupled bounds.
 * @example pairAccount(pointLaw([[0, 0], [1, 1]], { counts: [3, 1] }), pointLaw([[0, 0], [1, 2]], { counts: [1, 3] }), [{ mechanism: 'laplace', scale: 2 }], [1, 1], [2], false).length // 2
 */
export function pairAccount(
  P: PointLaw,
  Q: PointLaw,
  releases: readonly PointRelease[],
  w: readonly number[],
  alphas: readonly number[],
  ordered: boolean,
): DirectionAccount[][] {
  const memos = pairMemos(P, Q);
  return (ordered ? memos.slice(0, 1) : memos).map((m) => directionAccount(m, releases, w, alphas));
}

/**
 * One direction of a vector account at every order, in order (its memo carries couplings and warm
 * starts from one order to the next). Each release's own level (the naive sum's terms) is bounded on
 * the laws of the coordinates it publishes: its output depends on those alone (data processing), and
 * their supports are far smaller than the joint one.
 */
function directionAccount(m: DirectionMemo, releases: readonly PointRelease[], w: readonly number[], alphas: readonly number[]): DirectionAccount[] {
  const own = releases.map((r) => ownMemo(m, r, w));
  return alphas.map((alpha) => {
    const b = directionBound(m, releases, w, alpha);
    const naive = naiveOf(m, own, releases, w, alpha);
    clearScratch(m);
    return { value: b.value + b.error, how: b.how, lower: b.how === 'exact' ? b.value - b.error : null, naive };
  });
}

/** Σ of each release's own bound at one order (the naive sum beside a joint level), each on the laws of the coordinates it publishes. */
function naiveOf(
  m: DirectionMemo,
  own: readonly ({ memo: DirectionMemo; w: number[] } | null)[],
  releases: readonly PointRelease[],
  w: readonly number[],
  alpha: number,
): number {
  return releases.reduce((a, r, k) => {
    const o = own[k];
    const [memo, rs, ws] = o ? [o.memo, [{ mechanism: r.mechanism, scale: r.scale }], o.w] : [m, [r], w];
    const one = directionBound(memo, rs, ws, alpha);
    if (o) clearScratch(o.memo);
    // Read as the joint bound is: the smaller of the transport's and the Knothe–Rosenblatt couplings' (α = ∞: W∞ alone).
    const cheap = alpha === Infinity ? one : conditionalBound(memo, mergedReleases(rs, memo.P.d), ws, alpha);
    return a + Math.min(one.value + one.error, cheap.value + cheap.error);
  }, 0);
}

/**
 * A direction's account from couplings that cost a sort (docs/math.md §12, "Pairs that cannot
 * bind"): per order the coupled bound over the Knothe–Rosenblatt couplings (coordinates first to
 * last, and last to first), or the data's own D_α where smaller; α = ∞ reads W∞ as the full
 * account does. Each is a certified upper bound, usually a little above the transport's.
 */
function cheapAccount(m: DirectionMemo, releases: readonly PointRelease[], w: readonly number[], alphas: readonly number[]): Omit<DirectionAccount, 'naive'>[] {
  const merged = mergedReleases(releases, m.P.d);
  return alphas.map((alpha) => {
    const data = directionBound(m, [], w, alpha);
    const b = alpha === Infinity ? releaseBound(m, releases, w, alpha) : conditionalBound(m, merged, w, alpha);
    const coupled = b.value + b.error < data.value + data.error;
    return { value: coupled ? b.value + b.error : data.value + data.error, how: coupled ? 'coupled' : 'data-processing', lower: null };
  });
}

/** A pair left out of the transports: its directions' cheap bounds, with the naive sums beside them (computed once the waves are done, so a solved pair's memos see what one thread's and a worker's do). */
function leftOut(
  dirs: readonly { memo: DirectionMemo }[],
  pair: readonly number[],
  cheap: readonly Omit<DirectionAccount, 'naive'>[][],
  releases: readonly PointRelease[],
  w: readonly number[],
  alphas: readonly number[],
  withNaive: boolean,
): DirectionAccount[][] {
  return pair.map((d, i) => {
    const m = dirs[d].memo;
    const own = releases.map((r) => ownMemo(m, r, w));
    return cheap[i].map((c, k) => ({ ...c, naive: withNaive ? naiveOf(m, own, releases, w, alphas[k]) : Number.NaN }));
  });
}

/**
 * A solved pair's accounts, each direction at each order the smaller of its transport bound and its
 * cheap one: both are certified upper bounds on the same divergence, and a pair's level then never
 * exceeds what it would be left out at (so a search that only asks whether the releases fit, and
 * solves only the pairs whose cheap bound misses, reads the same yes or no as the full account).
 */
const withCheap = (solvedPair: DirectionAccount[][], cheap: readonly Omit<DirectionAccount, 'naive'>[][]): DirectionAccount[][] =>
  // An exact lower end stays: it bounds the same divergence from below whichever upper bound is read.
  solvedPair.map((dir, i) => dir.map((t, k) => (cheap[i][k].value < t.value ? { ...t, ...cheap[i][k], lower: t.lower } : t)));

/**
 * The smaller coupled bound over the two Knothe–Rosenblatt couplings (coordinates first to last,
 * last to first), kept for the pair's other direction: the bound over a coupling reads the same
 * either way (docs/math.md §12, "Both directions of a pair"). Past `KNOTHE_MAX_D` coordinates,
 * or where neither coupling is small enough to build, there is none (∞), and the pair is solved.
 */
function conditionalBound(m: DirectionMemo, releases: readonly PointRelease[], w: readonly number[], alpha: number): Bounded {
  if (m.P.d > KNOTHE_MAX_D) return { value: Infinity, error: 0 };
  const key = `knothe‖${alpha}‖${releases.map(releaseKey).join('‖')}`;
  let b = m.bounds.get(key);
  if (!b) {
    m.conditional ??= knotheCouplings(m.P, m.Q);
    // None where both couplings are too large to build (`KNOTHE_MAX_ITEMS`): ∞, and the pair is solved.
    const bounds = m.conditional.map((c) => coupledBound(c, (i, j) => pairExponent(m.P, m.Q, i, j, releases, w, alpha), alpha));
    b = { ...bounds.reduce((x, y) => (y.value + y.error < x.value + x.error ? y : x), { value: Infinity, error: 0 }), P: m.P };
    m.bounds.set(key, b);
  }
  return b;
}

/**
 * The pairs a vector account solves transports for, one wave at a time (docs/math.md §12, "Pairs
 * that cannot bind"). `cheap[j][k]`: pair j's cheap bound at order k (the larger of its
 * directions'); `solved`: the pairs' transport accounts so far. The first wave is each order's
 * largest cheap bound; each next one, every pair not yet solved whose cheap bound reaches the
 * largest solved bound at some order. A pair left out never binds: its cheap bound, below a solved
 * one, stands in its place. The waves depend on the numbers alone, so every thread count solves
 * the same pairs.
 */
function nextWave(cheap: readonly (readonly number[])[], solved: ReadonlyMap<number, readonly (readonly DirectionAccount[])[]>): number[] {
  const wave = new Set<number>();
  cheap[0]?.forEach((_, k) => {
    if (solved.size === 0) {
      // The first largest at each order.
      wave.add(cheap.reduce((top, c, j) => (c[k] > cheap[top][k] ? j : top), 0));
      return;
    }
    let top = -Infinity;
    for (const dirs of solved.values()) for (const d of dirs) top = Math.max(top, d[k].value);
    // Solved unless its cheap bound is provably below (a bound that is not a number is solved too).
    cheap.forEach((c, j) => {
      if (!solved.has(j) && !(c[k] < top)) wave.add(j);
    });
  });
  return [...wave].sort((a, b) => a - b);
}

/** The memos of a pair's releases of some coordinates (by the coordinates), shared by the pair's two directions. */
const ownPairs = new WeakMap<Map<string, SharedBound>, Map<string, [DirectionMemo, DirectionMemo]>>();

/**
 * A release of some coordinates seen on their laws alone (null: it publishes every coordinate):
 * the pair's two directions share its memos, so the reverse reads the forward's bound as the joint
 * bound's directions do.
 */
function ownMemo(m: DirectionMemo, r: PointRelease, w: readonly number[]): { memo: DirectionMemo; w: number[] } | null {
  const cs = r.coordinates;
  if (!cs || cs.length === m.P.d) return null;
  const byCoords = ownPairs.get(m.bounds) ?? new Map<string, [DirectionMemo, DirectionMemo]>();
  ownPairs.set(m.bounds, byCoords);
  const [P, Q] = [projectedLaw(m.P, cs), projectedLaw(m.Q, cs)];
  const pair = byCoords.get(cs.join(',')) ?? pairMemos(P, Q);
  byCoords.set(cs.join(','), pair);
  return { memo: pair[0].P === P ? pair[0] : pair[1], w: cs.map((c) => w[c]) };
}

/** What an account of vector releases takes: the orders, δ, the coordinate weights and a progress callback. */
export type AccountOptions = {
  alphas: number[];
  delta?: number;
  coordinateScales?: readonly number[];
  /** Called after each (prior, pair) direction. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Only whether every order's level is within this ε matters (a search for a scale that fits):
   * transports are solved only for the pairs whose cheap bound misses, largest first, until one
   * misses too; the level is then an upper bound within ε exactly when the releases fit (a solved
   * pair's bits are the full account's), and a pair left out has no naive sum (NaN).
   */
  fitsWithin?: number;
  /** With `fitsWithin`: orders whose fit another bound already settles (a source ledger's chain bound), where no pair needs a transport. */
  settled?: readonly number[];
};

/** What a vector account takes beyond `checkAccount` (the caller's): its releases' coordinates, orders above 1; the coordinate weights. */
function accountChecks(scenario: PointScenario, releases: readonly PointRelease[], opts: AccountOptions): number[] {
  const w = checked(scenario, releases, opts.coordinateScales, 'release');
  for (const a of opts.alphas) if (!(a > 1)) throw new InputError(`vector accounting bounds D_α for α > 1 (the coupled bound), got ${a}`, 'alpha');
  return w;
}

/** Every direction's share per order (`accountOf`'s; a bound that is not finite is unbounded). */
const sharesOf = (parts: DirectionAccount[][]): AccountShare[][] =>
  parts.map((part) => part.map((b) => ({ value: b.value, lower: b.lower, method: Number.isFinite(b.value) ? b.how : 'unbounded', naive: b.naive })));

/**
 * Each direction's share of the joint level of several releases of the same vector (docs/math.md
 * §9, §12): per α > 1 a certified upper bound (`releaseBound` with the releases' exponents summed,
 * or the data's own D_α where smaller), next to the naive sum of each release's own bound. Where the
 * exact accountant computed a direction its lower end is known, and whether the sum understates the
 * joint level is decided; elsewhere only bounds are known and it is left open. α = ∞ is bounded
 * for Laplace releases only (otherwise the share is unbounded).
 * @example pointShares({ name: 'v', priors: [{ name: 'p', conditionals: { a: pointLaw([[0, 0], [1, 1]], { counts: [3, 1] }), b: pointLaw([[0, 0], [1, 2]], { counts: [1, 3] }) } }] }, [{ mechanism: 'gaussian', scale: 2 }, { mechanism: 'gaussian', scale: 3 }], { alphas: [2] }).shares[0][0].value
 */
export function pointShares(scenario: PointScenario, releases: readonly PointRelease[], opts: AccountOptions) {
  const w = accountChecks(scenario, releases, opts);
  const { dirs, pairs, cheap, top } = cheapPairs(scenario, releases, w, opts);
  const solved = new Map<number, DirectionAccount[][]>();
  // A solved pair is computed whole, naive sums included, in fits-only searches too: its transports
  // warm-start from one another, so the same calls give the same bits.
  const solve = (j: number) => {
    solved.set(
      j,
      withCheap(
        pairs[j].map((d) => directionAccount(dirs[d].memo, releases, w, opts.alphas)),
        cheap[j],
      ),
    );
    opts.onProgress?.(solved.size, pairs.length);
  };
  const fitsWithin = opts.fitsWithin;
  if (fitsWithin !== undefined) {
    // A pair's value at order k fits as `accountOf` and the budget read it: value + the laws' mass charge ≤ ε.
    const charge = opts.alphas.map((a) => massErrorCharge(scenario.massError ?? 0, a));
    const free = opts.alphas.map((a) => opts.settled?.includes(a) ?? false);
    const over = (v: number, k: number) => (free[k] || v + charge[k] <= fitsWithin ? -Infinity : Number.isNaN(v) ? Infinity : v + charge[k] - fitsWithin);
    for (const j of missingPairs(top, over)) {
      solve(j);
      if (solved.get(j)!.some((dir) => dir.some((x, k) => over(x.value, k) > -Infinity))) break;
    }
    return sharesWith(dirs, pairs, cheap, solved, releases, w, opts.alphas, false);
  }
  for (let wave = nextWave(top, solved); wave.length; wave = nextWave(top, solved)) for (const j of wave) solve(j);
  return sharesWith(dirs, pairs, cheap, solved, releases, w, opts.alphas);
}

/** The pairs whose cheap bound misses at some order (`over` > −∞: by how much), the furthest first (the likeliest to miss after their transports too). */
function missingPairs(top: readonly (readonly number[])[], over: (v: number, k: number) => number): number[] {
  return top
    .map((t, j) => [Math.max(...t.map(over)), j] as const)
    .filter(([o]) => o > -Infinity)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .map(([, j]) => j);
}

/**
 * Every pair's cheap account (`cheapAccount`, each direction), computed on this thread before any
 * transport: the pairs as lists of their directions' indices, and each pair's largest per order.
 */
function cheapPairs(scenario: PointScenario, releases: readonly PointRelease[], w: readonly number[], opts: AccountOptions) {
  const dirs = directions(scenario);
  const pairs: number[][] = [];
  dirs.forEach((dir, d) => {
    if (dir.first) pairs.push([d]);
    else pairs[pairs.length - 1].push(d);
  });
  const cheap = pairs.map((ds) => ds.map((d) => cheapAccount(dirs[d].memo, releases, w, opts.alphas)));
  // Per pair and order the larger of its directions' cheap bounds: what the waves compare.
  const top = cheap.map((ds) => ds[0].map((_, k) => Math.max(...ds.map((d) => d[k].value))));
  return { dirs, pairs, cheap, top };
}

/** The account's units and shares once the waves are done: a solved pair's transport accounts, a left-out pair's cheap ones. */
function sharesWith(
  dirs: readonly ReturnType<typeof directions>[number][],
  pairs: readonly number[][],
  cheap: readonly Omit<DirectionAccount, 'naive'>[][][],
  solved: ReadonlyMap<number, DirectionAccount[][]>,
  releases: readonly PointRelease[],
  w: readonly number[],
  alphas: readonly number[],
  withNaive = true,
) {
  return { units: dirs, shares: sharesOf(pairs.flatMap((pair, j) => solved.get(j) ?? leftOut(dirs, pair, cheap[j], releases, w, alphas, withNaive))) };
}

/** One pair's account to run elsewhere (a worker thread runs `pairAccount` on it). */
export interface DirectionTask {
  kind: 'vector-account';
  P: PointLaw;
  Q: PointLaw;
  releases: PointRelease[];
  w: number[];
  alphas: number[];
  ordered: boolean;
}

/** What `accountPointsOnPool` needs of a thread pool (the pool of calibrate/pool.ts has it). */
export interface DirectionRunner {
  readonly threads: number;
  runTask(task: DirectionTask): Promise<{ vector?: DirectionAccount[][] }>;
}

/**
 * A vector account with the pairs spread over a pool's threads: each pair's directions are computed
 * whole by the same code (`pairAccount`), so the numbers are those of one thread.
 */
export async function accountPointsOnPool(
  pool: DirectionRunner,
  scenario: PointScenario,
  releases: readonly PointRelease[],
  opts: AccountOptions,
): Promise<Accounting> {
  checkAccount(releases, opts);
  const { units, shares } = pool.threads <= 1 ? pointShares(scenario, releases, opts) : await pooledShares(pool, scenario, releases, opts);
  return accountOf(units, shares, opts.alphas, { releases: releases.length, delta: opts.delta, massError: scenario.massError });
}

/** `pointShares` with each pair's directions on a pool's thread. */
async function pooledShares(pool: DirectionRunner, scenario: PointScenario, releases: readonly PointRelease[], opts: AccountOptions) {
  const w = accountChecks(scenario, releases, opts);
  const { dirs, pairs, cheap, top } = cheapPairs(scenario, releases, w, opts);
  const solved = new Map<number, DirectionAccount[][]>();
  // A wave's pairs queued largest first (a pair's work grows with its K·L transport arcs), so the
  // last task to finish is a small one and no thread waits long on another.
  const arcs = (j: number) => atomsOf(dirs[pairs[j][0]].memo.P) * atomsOf(dirs[pairs[j][0]].memo.Q);
  for (let wave = nextWave(top, solved); wave.length; wave = nextWave(top, solved))
    await Promise.all(
      wave
        .sort((x, y) => arcs(y) - arcs(x) || x - y)
        .map(async (j) => {
          const dir = dirs[pairs[j][0]];
          const r = await pool.runTask({
            kind: 'vector-account',
            P: dir.memo.P,
            Q: dir.memo.Q,
            releases: [...releases],
            w,
            alphas: [...opts.alphas],
            ordered: !dir.both,
          });
          solved.set(j, withCheap(r.vector!, cheap[j]));
          opts.onProgress?.(solved.size, pairs.length);
        }),
    );
  return sharesWith(dirs, pairs, cheap, solved, releases, w, opts.alphas);
}

/**
 * The next-release search's units for a vector (`mechanism`, independent noise per coordinate at
 * wᵢ·scale), one per (prior, pair, direction): the certified joint bound of all releases — `past` and
 * the new one — within (α, ε) (docs/math.md §9, §12). On a fixed coupling the coupled bound falls as
 * the new scale grows, so the driver's bracketed search applies; the coupling starts at the one that
 * bounded the past releases (so the search always has a feasible end) and is re-solved at the scale
 * found while the scale falls. A pair's two directions share one search (docs/math.md §12).
 * @example nextReleaseScale({ name: 'v', priors: [{ name: 'p', conditionals: { a: pointLaw([[0, 0], [1, 1]], { counts: [3, 1] }), b: pointLaw([[0, 0], [1, 2]], { counts: [1, 3] }) } }] }, [{ mechanism: 'gaussian', scale: 2 }], { mechanism: 'gaussian' }, { alpha: 2, epsilon: 1 }).scale
 */
export function nextUnitsPoints(
  scenario: PointScenario,
  past: readonly PointRelease[],
  mechanism: PointRelease['mechanism'],
  alpha: number,
  asked: number,
  /** `coordinates`: the next release publishes only these (0-based; default all). */
  opts: { coordinateScales?: readonly number[]; coordinates?: readonly number[] } = {},
): { units: NextUnit[]; epsilon: number } {
  checkSetting('epsilon', asked);
  if (!(alpha > 1)) throw new InputError(`vector accounting bounds D_α for α > 1 (the coupled bound), got ${alpha}`, 'alpha');
  // Laws computed in floating point (a chain's histogram): the budget left is ε less their mass-error charge.
  const epsilon = budgetLeft(scenario.massError, alpha, asked);
  productOf(mechanism, 'next');
  const w = checked(scenario, past, opts.coordinateScales, 'release');
  const part = opts.coordinates ? { coordinates: opts.coordinates } : {};
  checked(scenario, [{ mechanism, scale: 1, ...part }], opts.coordinateScales, 'next');
  const unbounded = [...past, { mechanism }].find((r) => !productOf(r.mechanism, 'release').dInfRate);
  if (alpha === Infinity && unbounded) throw noDInfLevel(mechanismDef(unbounded.mechanism).title, ': give a finite α');
  const all = (s: number) => mergedReleases([...past, { mechanism, scale: s, ...part }], dimensionOf(scenario));
  // The coupled search of one direction (m), from the coupling that bounded the past releases.
  const coupledNext = (m: DirectionMemo, where: string): ScaleProblem => {
    const coupling0 = past.length ? releaseBound(m, past, w, alpha).coupling : undefined;
    // α = ∞: the W∞ bound (no coupling to improve); else the coupled bound on a fixed coupling.
    const on = (c: PointCoupling | undefined): ScaleProblem => {
      const evaluate = (s: number) => {
        const rs = all(s);
        return {
          ...(c ? coupledBound(c, (i, j) => pairExponent(m.P, m.Q, i, j, rs, w, alpha), alpha) : releaseBound(m, rs, w, alpha)),
          target: epsilon,
          sense: 'le' as const,
        };
      };
      const up = bracketAbove(evaluate, 1, `next release for ${where}`);
      return { evaluate, ...bracketBelow(evaluate, up, { halvings: 200 }), rtol: 1e-10 };
    };
    if (alpha === Infinity) return on(undefined);
    // Two output coordinates with an exact accountant on ℝ²: the exact level, both directions (the
    // pair's one search), below every coupled bound.
    if (exactApplies(m.P, m.Q, all(1), w, alpha)) {
      const evaluate = (s: number) => {
        return { ...worseOf(exactBoth(m, all(s), w, alpha)), target: epsilon, sense: 'le' as const };
      };
      const up = bracketAbove(evaluate, 1, `next release for ${where}`);
      return { evaluate, ...bracketBelow(evaluate, up, { halvings: 200 }), rtol: 1e-10, logLog: true, note: 'Exact on ℝ².' };
    }
    // A coupling on which the past releases alone reach ε leaves the next one no scale (bracketAbove
    // fails): that candidate is passed over, and another stands (the past's bound is the smallest).
    const tried = <T>(f: () => T): T | null => {
      try {
        return f();
      } catch (e) {
        if (e instanceof NumericalError) return null;
        throw e;
      }
    };
    const large = !transportable(m.P, m.Q);
    let first: PointCoupling | undefined;
    const transport = tried(() => {
      const coupling = coupling0 ?? directionBase(m, allL1([...past, { mechanism }]), w);
      first = coupling;
      // `on` never needs no noise here (the data's own case is the search's, `nextReleaseScale`).
      const problem = on(coupling);
      // A pair too large for a transport is not re-solved: its sorted couplings follow.
      if (large) return { problem, scale: smallestFeasibleScale(problem).scale, how: coupling.how };
      return resolvedWhileFalling(coupling, problem, on, (c, scale) => resolved(m, c, exponentCosts(m, all(scale), w, alpha))) as CoupledCandidate;
    });
    clearScratch(m);
    // The Knothe–Rosenblatt couplings, as the account reads them (the smaller bound stands).
    m.conditional ??= knotheCouplings(m.P, m.Q);
    const others = large ? sortedCouplings(m.P, m.Q).filter((c) => c !== first) : m.conditional;
    const best = smallestCandidate(transport, others, (k) =>
      tried(() => {
        const problem = on(k);
        return { problem, scale: smallestFeasibleScale(problem).scale, how: k.how };
      }),
    );
    if (!best) throw new NumericalError(`next release for ${where}: no scale meets ε on any coupling tried`);
    return { ...best.problem, note: `Coupling: ${best.how}.` };
  };
  const solved = new Map<Map<string, SharedBound>, ScaleProblem>();
  const units = directions(scenario).map((dir): NextUnit => {
    const m = dir.memo;
    const where = `prior '${dir.prior}', ${dir.from} → ${dir.to}`;
    return {
      label: { prior: dir.prior, pair: dir.pair },
      where,
      tail: ' under this bound',
      data: () => {
        const data = directionBound(m, [], w, alpha);
        return data.value + data.error;
      },
      past: () => {
        if (!past.length) return null;
        const already = releaseBound(m, past, w, alpha);
        const cheap = alpha === Infinity ? already : conditionalBound(m, mergedReleases(past, m.P.d), w, alpha);
        return Math.min(already.value + already.error, cheap.value + cheap.error);
      },
      problem: () => {
        let problem = solved.get(m.bounds);
        if (!problem) {
          problem = coupledNext(m, where);
          solved.set(m.bounds, problem);
        }
        return problem;
      },
      method: () => (exactApplies(m.P, m.Q, all(1), w, alpha) ? 'exact' : 'coupled'),
    };
  });
  return { units, epsilon };
}

/**
 * The robustness report of a vector release (docs/math.md §10, §12): per pair the certified bound
 * on the class's D_α (the coupled bound or the data's own, both directions, capped by ρ), ρ the
 * noise's divergence between the box's opposite corners, then the contaminated bound per λ and
 * the largest λ within ε (`robustnessFrom`, as for one column).
 */
export function robustnessPoints(
  scenario: PointScenario,
  s: {
    mechanism: Mechanism;
    scale: number;
    alpha: number;
    epsilon: number;
    box: readonly (readonly [number, number])[];
    lambdas?: number[];
    coordinateScales?: readonly number[];
  },
): RobustnessReport {
  checkRobustnessSettings(s);
  checkSetting('epsilon', s.epsilon);
  if (s.alpha === Infinity && !productOf(s.mechanism, 'mechanism').dInfRate) throw noDInfLevel(mechanismDef(s.mechanism).title);
  const release: PointRelease = { mechanism: s.mechanism, scale: s.scale };
  const w = checked(scenario, [release], s.coordinateScales, 'mechanism');
  const box = contaminationBox({ lambda: 0, domain: [s.box[0]?.[0], s.box[0]?.[1]], box: s.box }, scenario);
  const r = boxDivergence(s, box, w, s.scale, s.alpha);
  const rho = r.value + r.error;
  const pairs = new Map<string, { prior: string; pair: [string, string]; D: number; counts: [number, number] }>();
  for (const dir of directions(scenario)) {
    const key = `${dir.prior}\u0000${dir.pair.join('\u0000')}`;
    const b = directionBound(dir.memo, [release], w, s.alpha);
    clearScratch(dir.memo);
    const D = Math.min(b.value + b.error, rho);
    const counts: [number, number] = [Number(dir.memo.P.denominator), Number(dir.memo.Q.denominator)];
    const seen = pairs.get(key);
    if (!seen) pairs.set(key, { prior: dir.prior, pair: dir.pair, D, counts: dir.from === dir.pair[0] ? counts : [counts[1], counts[0]] });
    else seen.D = Math.max(seen.D, D);
  }
  return robustnessFrom([...pairs.values()], rho, s);
}
