import { checkSetting } from '../settings.js';
import { ARRAY, checkShape, OBJECT } from '../shapes.js';
import { InputError, noRelease } from '../errors.js';
import type { AnyScenario } from '../distribution/lawKind.js';
import { account, type Accounting } from './account.js';
import type { Cost } from '../conditions/costs.js';
import type { Mechanism } from '../calibrate/rules.js';

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
  return b;
}

/** The joint accountant on every release of the list (the releases of one ledger share their coordinate weights). */
function jointAccount(scenario: AnyScenario, groups: readonly ReleaseGroup[], b: Budget): Accounting {
  const weights = groups[0]?.coordinateScales;
  if (groups.some((g) => JSON.stringify(g.coordinateScales) !== JSON.stringify(weights)))
    throw new InputError('every release of a vector in one account must use the same coordinate scales', 'coordinateScales');
  const releases = groups.flatMap((g) =>
    Array.from({ length: g.count }, () => ({ mechanism: g.mechanism, scale: g.scale, ...(g.cost ? { cost: g.cost } : {}) })),
  );
  return account(scenario, releases, {
    alphas: [...b.alphas],
    ...(b.delta !== undefined ? { delta: b.delta } : {}),
    ...(weights ? { coordinateScales: weights } : {}),
  });
}

/**
 * The joint level of `groups` read against the budget: every order's certified bound must be
 * within ε (Rényi), or the best order's ε′ within ε (with δ).
 * @example budgetLevel(builtinScenario('heart'), [{ mechanism: 'gaussian', scale: 1, count: 2 }], { alphas: [2], epsilon: 1 }).fits
 */
export function budgetLevel(scenario: AnyScenario, groups: readonly ReleaseGroup[], b: Budget): BudgetLevel {
  checkShape(ARRAY, groups, 'groups');
  checkShape(OBJECT, b, 'budget');
  checkBudget(b);
  if (groups.length === 0 || groups.every((g) => g.count === 0)) throw noRelease();
  const accounting = jointAccount(scenario, groups, b);
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
 * The smallest scale (to a relative 10⁻⁶, rounded up) at which `next` — `count` more releases
 * of its family — joins `past` within the budget; null when none does (the past alone, or the
 * releases however noisy, already exceed it). The joint bound only falls as the new noise grows,
 * so bisection on log-scale keeps a scale that fits, and the answer is one that was checked.
 * @example smallestFittingScale(builtinScenario('heart'), [{ mechanism: 'gaussian', scale: 1, count: 3 }], { mechanism: 'gaussian', count: 1 }, { alphas: [2], epsilon: 1 })
 */
export function smallestFittingScale(
  scenario: AnyScenario,
  past: readonly ReleaseGroup[],
  next: Omit<ReleaseGroup, 'scale'>,
  b: Budget,
  start = 1,
): number | null {
  checkShape(ARRAY, past, 'past');
  checkShape(OBJECT, next, 'next');
  checkShape(OBJECT, b, 'budget');
  const fits = (s: number) => budgetLevel(scenario, [...past, { ...next, scale: s }], b).fits;
  if (!fits(1e300)) return null;
  let lo = start;
  let hi = start;
  if (fits(hi)) {
    // Walk down until a scale misses the budget (or the noise is negligible).
    for (lo = hi / 2; fits(lo); lo /= 2) {
      hi = lo;
      if (lo < 1e-300) return hi;
    }
  } else {
    while (!fits(hi)) {
      lo = hi;
      hi *= 2;
    }
  }
  while (hi - lo > SCALE_RTOL * hi) {
    const mid = Math.sqrt(lo * hi);
    if (mid <= lo || mid >= hi) break;
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
