import { checkSetting } from '../settings.js';
import { ARRAY, checkShape, OBJECT } from '../shapes.js';
import { InputError, noRelease } from '../errors.js';
import { byLaw, lawDimension, type AnyScenario } from '../distribution/lawKind.js';
import { coord, reducedPriors, type PointLaw, type PointScenario } from '../distribution/points.js';
import type { Discrete } from '../distribution/discrete.js';
import type { Scenario } from '../distribution/scenario.js';
import { bestEpsilonDelta, type AccountRow, type Release } from './rows.js';
import { mechanismDef } from '../mechanisms/registry.js';
import { isNotApplicable } from '../mechanisms/mechanism.js';
import { EPS } from '../numerics/float.js';
import { precisionUp } from '../numerics/decimal.js';
import { smallestFittingByRatio } from '../numerics/smallestScale.js';
import { rdpToDpSharp } from '../audit/conversion.js';
import { account, type Accounting, type AnyRelease } from './account.js';
import type { Cost } from '../conditions/costs.js';
import type { Mechanism } from '../calibrate/rules.js';
import { windowScenario, type WindowScenario } from '../markov/windowScenario.js';

/**
 * A privacy budget for every release of one quantity together: (α, ε)-Rényi Pufferfish at every
 * listed order, or, with `delta`, (ε, δ)-Pufferfish through the best listed order (the sharper
 * conversion, docs/math.md §3).
 */
export interface Budget {
  readonly alphas: readonly number[];
  readonly epsilon: number;
  readonly delta?: number;
}

/** Releases of one kind: `count` draws at one scale (a vector's at coordinate weights `coordinateScales`). */
export interface ReleaseGroup {
  readonly mechanism: Mechanism;
  readonly scale: number;
  readonly cost?: Cost;
  readonly count: number;
  readonly coordinateScales?: readonly number[];
  /**
   * The coordinates of the source's vector this release publishes (0-based; a source ledger's
   * release k publishes coordinate k, the statistic it recorded): releases of different
   * statistics of one source are accounted jointly, prior by prior (docs/math.md §20).
   */
  readonly coordinates?: readonly number[];
}

/** The joint level of a list of releases against a budget. */
export interface BudgetLevel {
  accounting: Accounting;
  /** The level the budget is read at: the largest joint D_α over the orders, or the (ε, δ) ε′. */
  level: number;
  /** The order that sets `level`. */
  alpha: number;
  fits: boolean;
}

/** Checks a budget's fields; errors name them. */
export function checkBudget(b: Budget): Budget {
  if (b.alphas.length === 0) throw new InputError('needs at least one Rényi order', 'alpha');
  for (const a of b.alphas) if (!(a > 1)) throw new InputError(`joint accounting covers α > 1 (and ∞), got ${a}`, 'alpha');
  checkSetting('epsilon', b.epsilon);
  if (b.delta !== undefined) checkSetting('delta', b.delta);
  if (b.delta !== undefined && !b.alphas.some((a) => a < Infinity))
    throw new InputError('an (ε, δ) budget is met through a finite order: list at least one finite α', 'alpha');
  if (b.delta !== undefined) {
    // Even releases that leak nothing convert to ε′ = the conversion's own term: a budget below it at
    // every listed order could never take a release.
    const delta = b.delta;
    const floor = Math.min(...b.alphas.filter((a) => a < Infinity).map((a) => rdpToDpSharp(0, a, delta)));
    if (floor > b.epsilon)
      throw new InputError(
        `cannot meet (ε = ${b.epsilon}, δ = ${delta}) through the orders listed: even releases that leak nothing reach ε′ = ${precisionUp(floor, 4)} there (the conversion's own term); list larger orders (e.g. 8, 16, 32, 64)`,
        'alpha',
      );
  }
  return b;
}

/** The joint accountant on every release of the list (the releases of one ledger share their coordinate weights). */
function jointAccount(scenario: AnyScenario, groups: readonly ReleaseGroup[], b: Budget, fitsOnly = false): Accounting {
  if (groups.some((g) => g.coordinates)) return statisticsAccount(scenario, groups, b, fitsOnly);
  const weights = groups[0]?.coordinateScales;
  if (groups.some((g) => JSON.stringify(g.coordinateScales) !== JSON.stringify(weights)))
    throw new InputError('every release of a vector in one account must use the same coordinate scales', 'coordinateScales');
  const releases = groups.flatMap((g) => drawsOf(g));
  return account(scenario, releases, {
    alphas: [...b.alphas],
    ...(b.delta !== undefined ? { delta: b.delta } : fitsOnly ? { fitsWithin: b.epsilon } : {}),
    ...(weights ? { coordinateScales: weights } : {}),
  });
}

/** Each group's draws as single releases of the account. */
const drawsOf = (g: ReleaseGroup, coordinates?: readonly number[]) =>
  Array.from({ length: g.count }, () => ({
    mechanism: g.mechanism,
    scale: g.scale,
    ...(g.cost ? { cost: g.cost } : {}),
    ...(coordinates ? { coordinates } : {}),
  }));

/**
 * Coordinates with repeats as releases of distinct ones: [0, 0, 1] is a release of [0, 1] and one of [0].
 * @example rounds([0, 0, 1]) // [[0, 1], [0]]
 */
function rounds(cs: readonly number[]): number[][] {
  const left = new Map<number, number>();
  for (const c of cs) left.set(c, (left.get(c) ?? 0) + 1);
  const out: number[][] = [];
  while (left.size) {
    const round = [...left.keys()].sort((x, y) => x - y);
    out.push(round);
    for (const c of round) if (left.set(c, left.get(c)! - 1).get(c) === 0) left.delete(c);
  }
  return out;
}

/**
 * Releases that each publish some coordinates of a source's vector (different statistics of one
 * table, docs/math.md §20): per prior, on the coordinates that vary under it (`reducedPriors`), so
 * one statistic alone gets the exact accountant on ℝ; the level is the largest over the priors
 * (each prior's guarantee is its own: per order the largest D_α, with δ the largest ε′).
 */
function statisticsAccount(scenario: AnyScenario, groups: readonly ReleaseGroup[], b: Budget, fitsOnly: boolean): Accounting {
  if (groups.some((g) => !g.coordinates || g.coordinateScales))
    throw new InputError('releases of a source ledger each publish their own coordinates, without coordinate weights', 'coordinates');
  const keep = [...new Set(groups.flatMap((g) => g.coordinates!))].sort((x, y) => x - y);
  const points = byLaw(scenario, { finite: () => null, points: (s) => s }, 'the statistics account');
  if (!points) throw new InputError('name coordinates of a vector law source', 'coordinates');
  const alphas = [...b.alphas];
  const parts = reducedPriors(points, keep).map(({ scenario: s, to }) => {
    const d = lawDimension(s);
    // Coordinates equal under this prior merge into one: a release publishing two of them is two
    // draws of that one (independent noise on each), never one.
    const releases = groups.flatMap((g) => rounds(g.coordinates!.map((c) => to[keep.indexOf(c)]).filter((c) => c >= 0)).flatMap((cs) => drawsOf(g, cs)));
    if (!releases.length) return null;
    const plain = releases.map(({ coordinates: _c, ...r }) => r);
    const chain = chainBounds(s, releases as ChainRelease[], alphas);
    if (fitsOnly && b.delta === undefined) return fitsByChain(s, d === 1 ? plain : releases, chain, b.epsilon, alphas);
    const coupled = account(s, d === 1 ? plain : releases, { alphas, ...(b.delta !== undefined ? { delta: b.delta } : {}) });
    return tighterByChain(coupled, chain, b.delta);
  });
  const accounts = parts.filter((a): a is Accounting => a !== null);
  const releases = groups.reduce((n, g) => n + g.count, 0);
  if (accounts.length === 0)
    return {
      releases,
      rows: alphas.map((alpha) => ({ alpha, divergence: 0, method: 'data-processing', binding: null, naiveSum: 0, understated: null })),
      epsilonDelta: b.delta !== undefined ? { epsilon: 0, delta: b.delta, alpha: alphas.find((a) => a < Infinity)! } : null,
    };
  const rows = alphas.map((_, i) => accounts.map((a) => a.rows[i]).reduce((x, y) => (y.divergence > x.divergence || Number.isNaN(y.divergence) ? y : x)));
  const eds = accounts.map((a) => a.epsilonDelta);
  const epsilonDelta = eds.some((e) => e === null) ? null : eds.reduce((x, y) => (y!.epsilon > x!.epsilon ? y : x));
  return { releases, rows: rows.map((r, i) => ({ ...r, naiveSum: Math.max(...accounts.map((a) => a.rows[i].naiveSum)) })), epsilonDelta };
}

/** A release of one coordinate of a source's vector. */
type ChainRelease = Release & { coordinates: readonly number[] };

/** Per order, the chain bound of a prior's releases (see `chainBounds`) and the release it read exactly. */
type ChainBound = { divergence: number; binding: AccountRow['binding'] };

/**
 * Per order, the chain bound (docs/math.md §20), null where it does not apply (a release of more
 * than two coordinates): for any set H of the releases, D_α(joint) ≤ D_α(releases H) + sup over
 * their values of the conditional divergence of the other releases, and those conditional laws are
 * mixtures of the noise centred on the atoms, so (joint quasi-convexity) their divergence is at most
 * the noise's own at each released coordinate's widest spread, summed over the other releases and
 * their coordinates. H is every release of one coordinate c, or one of them (their own account on
 * c's law), or one release of two coordinates, or the releases of two coordinates (their own account
 * on those two coordinates' law: exact on ℝ² where each is released once, §12). At
 * α = ∞ the same holds for D∞ (the supremum of a sum of log-ratios), the shift's D∞ being the
 * noise's rate times the spread. The smallest over the choices of H.
 */
function chainBounds(s: Scenario | PointScenario, releases: readonly ChainRelease[], alphas: readonly number[]): ChainBound[] | null {
  if (releases.some((r) => r.coordinates.length > 2)) return null;
  const d = lawDimension(s);
  const laws = s.priors.flatMap((p) => Object.values(p.conditionals)) as (Discrete | PointLaw)[];
  const at = (m: Discrete | PointLaw, k: number, c: number) => ('points' in m ? coord(m, k, c) : m.values[k]);
  const spread = Array.from({ length: d }, (_, c) => {
    const xs = laws.flatMap((m) => Array.from({ length: m.masses.length }, (_, k) => at(m, k, c)));
    return Math.max(...xs) - Math.min(...xs);
  });
  // A release's divergence at its coordinates' widest shifts, per order (an upper bound, rounding included).
  const widest = (r: ChainRelease, alpha: number) => {
    const product = mechanismDef(r.mechanism).product;
    if (isNotApplicable(product)) return Infinity;
    const span = r.coordinates.reduce((t, c) => t + spread[c], 0);
    // α = ∞: the chain rule holds for D∞ too, and the shift's D∞ is its rate times the ℓ₁ spread (Gaussian: none).
    if (alpha === Infinity) return product.dInfRate ? product.dInfRate(r.scale) * span * (1 + 8 * EPS) : Infinity;
    const e = product.exponent(
      alpha,
      (c) => spread[c] / r.scale,
      r.coordinates,
      (c) => [spread[c], r.scale],
    );
    return ((e.value + e.error) / (alpha - 1)) * (1 + 4 * EPS);
  };
  let rows: ChainBound[] = alphas.map(() => ({ divergence: Infinity, binding: null }));
  const tryHead = (head: readonly ChainRelease[], coords: number[]) => {
    const reduced = d === 1 ? { scenario: s, to: [0] } : reducedPriors(s as PointScenario, coords)[0];
    const rest = releases.filter((r) => !head.includes(r));
    // The head's releases on the marginal's own coordinates (a coordinate constant there moves nothing).
    const own = head.flatMap(({ coordinates, ...r }) => {
      const cs = coordinates.map((c) => reduced?.to[coords.indexOf(c)] ?? -1).filter((c) => c >= 0);
      return cs.length ? [lawDimension(reduced!.scenario) === 1 ? r : { ...r, coordinates: cs }] : [];
    });
    const exact = reduced && own.length ? headRows(reduced.scenario, own, alphas) : null;
    rows = rows.map((row, i) => {
      const bound = ((exact ? exact[i].divergence : 0) + rest.reduce((t, r) => t + widest(r, alphas[i]), 0)) * (1 + 4 * EPS);
      return bound < row.divergence ? { divergence: bound, binding: exact?.[i].binding ?? null } : row;
    });
  };
  for (let c = 0; c < d; c++) {
    const own = releases.filter((r) => r.coordinates.length === 1 && r.coordinates[0] === c);
    if (own.length === 0) continue;
    for (const head of own.length > 1 ? [own, ...own.map((r) => [r])] : [own]) tryHead(head, [c]);
  }
  for (const r of releases)
    if (r.coordinates.length === 2)
      tryHead(
        [r],
        [...r.coordinates].sort((x, y) => x - y),
      );
  // Two coordinates' releases together (per-group values, two statistics) where few coordinates are
  // released: each pair's own account is one more exact integral on ℝ² (or coupled bound).
  const single = [...new Set(releases.filter((r) => r.coordinates.length === 1).map((r) => r.coordinates[0]))].sort((x, y) => x - y);
  if (single.length <= PAIR_HEADS_UP_TO)
    for (let i = 0; i < single.length; i++)
      for (let j = i + 1; j < single.length; j++) {
        const pair = [single[i], single[j]];
        const [a, b] = pair.map((c) => releases.filter((r) => r.coordinates.length === 1 && r.coordinates[0] === c));
        tryHead([...a, ...b], pair);
        // One release of each (exact on ℝ²), the others charged at their widest shift.
        if (a.length * b.length > 1 && a.length * b.length <= PAIR_HEADS_UP_TO * PAIR_HEADS_UP_TO)
          for (const ra of a) for (const rb of b) tryHead([ra, rb], pair);
      }
  return rows;
}

/**
 * A chain head's own account (the same laws and releases give the same rows): kept per law source,
 * since a plan's search accounts the recorded heads again at every trial scale.
 */
function headRows(s: Scenario | PointScenario, releases: readonly AnyRelease[], alphas: readonly number[]): AccountRow[] {
  const kept = headCache.get(s) ?? new Map<string, AccountRow[]>();
  headCache.set(s, kept);
  const key = JSON.stringify([releases, alphas]);
  let rows = kept.get(key);
  if (!rows) {
    rows = account(s, releases, { alphas: [...alphas] }).rows;
    if (kept.size >= 256) kept.clear();
    kept.set(key, rows);
  }
  return rows;
}
const headCache = new WeakMap<object, Map<string, AccountRow[]>>();

/** The most coordinates released one at a time for which every pair of them is tried as the chain bound's head (15 pairs). */
const PAIR_HEADS_UP_TO = 6;

/** An account's row read off the chain bound alone. */
const chainRow = (alpha: number, c: ChainBound): AccountRow => ({
  alpha,
  divergence: c.divergence,
  method: 'chained',
  binding: c.binding,
  naiveSum: Number.NaN,
  understated: null,
});

/** Per order, the smaller of the joint bound and the chain bound (`chainBounds`). */
function tighterByChain(joint: Accounting, chain: readonly ChainBound[] | null, delta: number | undefined): Accounting {
  if (!chain) return joint;
  let rows = joint.rows;
  rows = rows.map((row, i) =>
    chain[i].divergence < row.divergence ? { ...row, divergence: chain[i].divergence, method: 'chained', binding: chain[i].binding, understated: null } : row,
  );
  return rows.every((r, i) => r === joint.rows[i]) ? joint : { ...joint, rows, epsilonDelta: bestEpsilonDelta(rows, delta) };
}

/**
 * `tighterByChain` of the joint account where only whether every order fits within ε matters: the
 * account that stops early (`fitsWithin`), with the orders the chain bound already fits `settled`
 * (no pair is solved for them). Within ε at every order exactly when the full account is.
 */
function fitsByChain(
  s: Scenario | PointScenario,
  releases: readonly AnyRelease[],
  chain: readonly ChainBound[] | null,
  epsilon: number,
  alphas: readonly number[],
): Accounting {
  const settled = alphas.filter((_, i) => !!chain && chain[i].divergence <= epsilon);
  // Every order is accounted (a pair's transports warm-start from one order to the next: the same
  // bits as the full account), but no pair is solved for the orders the chain bound settles.
  const joint = settled.length === alphas.length ? null : account(s, releases, { alphas: [...alphas], fitsWithin: epsilon, settled });
  if (!joint) return { releases: releases.length, rows: alphas.map((alpha, i) => chainRow(alpha, chain![i])), epsilonDelta: null };
  return tighterByChain(joint, chain, undefined);
}

/**
 * The joint level of `groups` read against the budget: every order's certified bound must be
 * within ε (Rényi), or the best order's ε′ within ε (with δ). With `fitsOnly` only `fits` is
 * wanted: a source whose bound can stop early (window counts) returns, where the releases fit, a
 * level that is an upper bound within ε rather than its tightest value.
 * @example budgetLevel(builtinScenario('heart'), [{ mechanism: 'gaussian', scale: 1, count: 2 }], { alphas: [2], epsilon: 1 }).fits
 */
export function budgetLevel(scenario: AnyScenario, groups: readonly ReleaseGroup[], b: Budget, fitsOnly = false): BudgetLevel {
  checkShape(ARRAY, groups, 'groups');
  checkShape(OBJECT, b, 'budget');
  checkBudget(b);
  if (groups.length === 0 || groups.every((g) => g.count === 0)) throw noRelease();
  const accounting = jointAccount(scenario, groups, b, fitsOnly);
  if (b.delta !== undefined) {
    const e = accounting.epsilonDelta;
    return { accounting, level: e ? e.epsilon : Infinity, alpha: e ? e.alpha : Infinity, fits: !!e && e.epsilon <= b.epsilon };
  }
  const top = accounting.rows.reduce((x, y) => (y.divergence > x.divergence || Number.isNaN(y.divergence) ? y : x));
  const level = Number.isNaN(top.divergence) ? Infinity : top.divergence;
  return { accounting, level, alpha: top.alpha, fits: level <= b.epsilon };
}

/** Smallest relative step the search below resolves: the scale returned is within it of the least that fits. */
const SCALE_RTOL = 1e-6;

/**
 * Every window of a series released, one more window of `length` steps: the smallest scale it
 * would need within the budget on the series extended by it (the chain's class unchanged, every
 * released window as recorded), or null. That window is another series' (a longer one), whose
 * ledger would have to hold the windows released already.
 * @example scaleBeyondSeries(windowScenario(validateSpec({ states: ['a', 'b'], chains: [{ name: 'c', transition: [[0.9, 0.1], [0.2, 0.8]], initial: 'stationary' }], length: 4, query: { count: 'b' } }), [2, 2], 'toy'), [{ mechanism: 'laplace', scale: 4, count: 2 }], { mechanism: 'laplace', count: 1 }, { alphas: [2], epsilon: 2 }, 2)! > 0 // true
 */
export function scaleBeyondSeries(
  s: WindowScenario,
  past: readonly ReleaseGroup[],
  next: Omit<ReleaseGroup, 'scale'>,
  b: Budget,
  length: number,
  onTrial?: (trial: number, scale: number) => void,
): number | null {
  const lengths = [...s.lengths, length];
  const model = { ...s.model, length: s.model.length + length, ...(s.model.windows ? { windows: lengths } : {}) };
  const longer = windowScenario(model, lengths, s.name);
  return smallestFittingScale(longer, past, next, b, Math.max(1, ...past.map((g) => g.scale)), onTrial);
}

/**
 * The smallest scale (to a relative 10⁻⁶, rounded up) at which `next` — `count` more releases
 * of its family — joins `past` within the budget; null when none does (the past alone, or the
 * releases however noisy, already exceed it). The joint bound only falls as the new noise grows,
 * so bisection on log-scale keeps a scale that fits, and the answer is one that was checked; the
 * bisection reads most steps off a bracket narrowed on the levels (`smallestFittingByRatio`), and
 * each check asks only whether the releases fit (`budgetLevel`'s `fitsOnly`). A `guess` (the
 * answer of the same search before) is taken where two checks prove it the search's answer.
 * @example smallestFittingScale(builtinScenario('heart'), [{ mechanism: 'gaussian', scale: 1, count: 3 }], { mechanism: 'gaussian', count: 1 }, { alphas: [2], epsilon: 1 })
 */
export function smallestFittingScale(
  scenario: AnyScenario,
  past: readonly ReleaseGroup[],
  next: Omit<ReleaseGroup, 'scale'>,
  b: Budget,
  start = 1,
  onTrial?: (trial: number, scale: number) => void,
  guess?: number,
): number | null {
  checkShape(ARRAY, past, 'past');
  checkShape(OBJECT, next, 'next');
  checkShape(OBJECT, b, 'budget');
  return smallestFittingByRatio(
    counted((s) => fitsRatio(budgetLevel(scenario, [...past, { ...next, scale: s }], b, true), b), onTrial),
    start,
    SCALE_RTOL,
    undefined,
    guess,
  );
}

/** A search's check that reports each trial (its number and scale) before it is made: a long plan is never silent. */
export function counted<T>(check: (scale: number) => T, onTrial?: (trial: number, scale: number) => void): (scale: number) => T {
  if (!onTrial) return check;
  let trials = 0;
  return (s) => {
    onTrial(++trials, s);
    return check(s);
  };
}

/**
 * A level over its budget, as a search reads it (≤ 1 exactly when the releases fit; a level that
 * is not a number does not).
 * @example fitsRatio(budgetLevel(builtinScenario('heart'), [{ mechanism: 'gaussian', scale: 1, count: 1 }], { alphas: [2], epsilon: 1 }, true), { alphas: [2], epsilon: 1 }) <= 1
 */
export function fitsRatio(l: BudgetLevel, b: Budget): number {
  return l.fits ? Math.min(1, l.level / b.epsilon) : Math.max(l.level / b.epsilon, 1 + 1e-12) || Infinity;
}
