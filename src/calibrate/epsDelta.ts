import { numberText } from '../numerics/decimal.js';
import { checkShape, NUMBER, OBJECT } from '../shapes.js';
import { checkSetting } from '../settings.js';
import { InputError } from '../errors.js';
import { mechanismDef } from '../mechanisms/registry.js';
import { EPS } from '../numerics/float.js';
import { calibrate, tooSmall, type CalibrationResult } from './calibrate.js';
import { isSourceMethod, type SourceMethodName } from './result.js';
import { applicableMethods, type CalibrationSettings } from './rules.js';
import type { AnyScenario } from '../distribution/lawKind.js';
import type { PointSettings } from './points.js';
import type { Progress } from './driver.js';

/**
 * α tried for an (ε, δ) target: 1.25 to 256, a dozen per octave of α − 1 near 1, geometric beyond,
 * and α = ∞ (ε-Pufferfish privacy implies (ε, δ) for every δ).
 */
export const DEFAULT_DELTA_ALPHAS: readonly number[] = [...Array.from({ length: 61 }, (_, i) => Number((1 + 0.25 * 2 ** (i / 6)).toPrecision(6))), Infinity];

/** The orders tried, for messages: `[1.25, 257] and ∞`. */
const ordersText = (alphas: readonly number[]) => {
  const finite = alphas.filter((a) => a !== Infinity);
  const inf = finite.length < alphas.length ? '∞' : '';
  if (!finite.length) return `α = ${inf}`;
  const range = finite.length === 1 ? `α = ${finite[0]}` : `α in [${Math.min(...finite)}, ${Math.max(...finite)}]`;
  return inf ? `${range} or α = ∞` : range;
};

/**
 * The Rényi budget at order α that yields (ε, δ)-Pufferfish by the sharper conversion
 * (Canonne, Kamath, Steinke 2020, Prop. 12; docs/math.md §3): ε′ = D_α + log((α−1)/α) − (log δ + log α)/(α−1),
 * so D_α ≤ ε − log((α−1)/α) + (log δ + log α)/(α−1) suffices. Lowered by 16 ulps of the terms it
 * combines (each log and division is within a few ulps), so rounding never grants a larger budget.
 */
export function renyiBudgetFor(epsilon: number, delta: number, alpha: number): number {
  const t1 = Math.log((alpha - 1) / alpha),
    t2 = (Math.log(delta) + Math.log(alpha)) / (alpha - 1);
  const b = epsilon - t1 + t2;
  return b - 16 * EPS * (Math.abs(epsilon) + Math.abs(t1) + Math.abs(t2));
}

/** An (ε, δ) calibration: the result at the best Rényi order, with the target and the Rényi budget it was calibrated for. */
export interface EpsDeltaResult extends CalibrationResult {
  /** The (ε, δ) target met, and the Rényi order and budget the scale was calibrated for. */
  target: { epsilon: number; delta: number };
  renyiEpsilon: number;
}

/** The settings an (ε, δ) target is searched for: a method of the families' rules, `best`, or a law source's own (group DP, the MQM). */
export type EpsDeltaSettings = Omit<PointSettings, 'alpha' | 'epsilon' | 'method'> & { method: PointSettings['method'] | SourceMethodName };

/** An (ε, δ) target's settings: the method's, the target, and the Rényi orders searched (default `DEFAULT_DELTA_ALPHAS`). */
export type EpsDeltaTarget = EpsDeltaSettings & { epsilon: number; delta: number; alphas?: readonly number[] | undefined };

/** One Rényi calibration an (ε, δ) target tries: the order, and the settings at the budget it leaves. */
export interface EpsDeltaTrial {
  alpha: number;
  renyiEpsilon: number;
  settings: CalibrationSettings;
}

/**
 * The Rényi calibrations an (ε, δ) target tries (`calibrateEpsDelta`), for running elsewhere (a
 * worker pool): each order α > 1 of the grid whose budget `renyiBudgetFor` is positive and where
 * the method applies.
 */
export function epsDeltaTrials(settings: EpsDeltaSettings, epsilon: number, delta: number, alphas: readonly number[] = DEFAULT_DELTA_ALPHAS): EpsDeltaTrial[] {
  checkSetting('epsilon', epsilon);
  checkSetting('delta', delta);
  const out: EpsDeltaTrial[] = [];
  for (const alpha of alphas) {
    if (!(alpha > 1) || mechanismDef(settings.mechanism).alphaRange(alpha)) continue;
    // ε-Pufferfish privacy (α = ∞) bounds the privacy loss everywhere: (ε, δ) for every δ.
    const renyiEpsilon = alpha === Infinity ? epsilon : renyiBudgetFor(epsilon, delta, alpha);
    if (!(renyiEpsilon > 0)) continue;
    const st = { ...settings, alpha, epsilon: renyiEpsilon } as CalibrationSettings;
    // A law source's own methods (group DP, the MQM) are tried at every order: the source says where they apply.
    if (settings.method !== 'best' && !isSourceMethod(settings.method) && !applicableMethods({ ...st, method: 'best' }).includes(settings.method)) continue;
    out.push({ alpha, renyiEpsilon, settings: st });
  }
  return out;
}

/**
 * The (ε, δ) result from the trials' calibrations (same order; an Error marks a trial that could
 * not be calibrated and is passed over): the smallest scale wins, the first on ties.
 */
export function epsDeltaBest(
  trials: readonly EpsDeltaTrial[],
  results: readonly (CalibrationResult | Error)[],
  epsilon: number,
  delta: number,
  /** Named when no order gives a result. */
  method: string,
  alphas: readonly number[] = DEFAULT_DELTA_ALPHAS,
): EpsDeltaResult {
  let best: EpsDeltaResult | null = null;
  results.forEach((r, k) => {
    if (r instanceof Error) return;
    if (!best || r.scale < best.scale) best = { ...r, target: { epsilon, delta }, renyiEpsilon: trials[k].renyiEpsilon };
  });
  if (!best) {
    // One reason shared by every order tried (the method does not apply to these laws or this noise) is that reason.
    const reasons = new Set(results.map((r) => (r instanceof InputError ? r.reason : '')));
    const [only] = reasons;
    if (results.length && reasons.size === 1 && only) throw new InputError(only, 'method');
    throw new InputError(
      `no Rényi order (${ordersText(alphas)}) gives (ε = ${epsilon}, δ = ${delta}) with method ${method}: the orders leave no positive budget or the method does not apply; raise ε or δ, or choose other orders`,
      'epsilon',
    );
  }
  const b: EpsDeltaResult = best;
  return {
    ...b,
    explanation: `(ε = ${epsilon}, δ = ${delta})-Pufferfish via α = ${numberText(b.alpha)} (${b.alpha === Infinity ? `ε-Pufferfish at ε = ${b.renyiEpsilon} implies it for every δ` : `sharper RDP conversion: D_α ≤ ${b.renyiEpsilon.toPrecision(6)} suffices`}; smallest scale over ${alphas.length} orders). ${b.explanation}`,
  };
}

/**
 * The progress of an (ε, δ) search over `orders` orders, in units: order `tried` reports within its
 * share (`at(tried)`), and `finish` fills the bar, the orders passed over counting as done.
 * @example const p = ordersProgress((d, t) => console.log(d, t), 3); p.at(1)(2, 4); p.finish() // 6 12, then 12 12
 */
export function ordersProgress(onProgress: Progress | undefined, orders: number): { at(tried: number): Progress | undefined; finish(): void } {
  let units = 0;
  return {
    at: (tried) =>
      onProgress &&
      ((done, total) => {
        units = total;
        onProgress(tried * total + done, orders * total);
      }),
    finish: () => {
      if (units) onProgress?.(orders * units, orders * units);
    },
  };
}

/** The calibration an (ε, δ) search asks for next: the order's settings, and how many orders came before it. */
interface OrderAsk {
  settings: CalibrationSettings;
  tried: number;
}

/**
 * The search behind `calibrateEpsDelta`, written once for any way of calibrating (this thread, a
 * pool): it yields each order's settings and is sent that order's result (an Error marks an order
 * passed over; a thrown error is thrown into it), and returns the (ε, δ) result.
 */
function* epsDeltaSearch(scenario: AnyScenario, target: EpsDeltaTarget): Generator<OrderAsk, EpsDeltaResult, CalibrationResult | Error> {
  checkShape(OBJECT, target, 'settings');
  // The target's own fields are not calibration settings: each order's settings are the rest.
  const { epsilon, delta, alphas = DEFAULT_DELTA_ALPHAS, ...settings } = target;
  checkShape(NUMBER, epsilon, 'epsilon');
  checkShape(NUMBER, delta, 'delta');
  const trials = epsDeltaTrials(settings, epsilon, delta, alphas);
  const results: (CalibrationResult | Error | null)[] = trials.map(() => null);
  let best: { r: CalibrationResult; k: number } | null = null;
  // α = ∞ first where the grid has it (often the smallest scale for Laplace noise), then in order.
  const last = trials.length - 1;
  const all = [...trials.keys()];
  const order = last >= 0 && trials[last].alpha === Infinity ? [last, ...all.slice(0, last)] : all;
  const infinityFirst = order[0] === last && last > 0;
  let deferred: unknown = null;
  for (const [tried, k] of order.entries()) {
    const t = trials[k];
    // An order that cannot beat the smallest scale so far is passed over, with the same result
    // (the smallest scale wins, the first order on ties): nothing is below zero, and a scale the
    // exact accountant certifies too small for this order is below every scale it could give.
    if (best && ((best.r.scale === 0 && k > best.k) || (best.r.binding && tooSmall(scenario, t.settings, best.r.scale, best.r.binding)))) continue;
    let r: CalibrationResult | Error;
    try {
      r = yield { settings: t.settings, tried };
    } catch (e) {
      // α = ∞ came first only to prune: a failure there is raised where the grid reaches it, after
      // any earlier order's own failure.
      if (!(infinityFirst && k === last)) throw e;
      deferred = e;
      continue;
    }
    results[k] = r;
    if (r instanceof Error) continue;
    if (!best || r.scale < best.r.scale || (r.scale === best.r.scale && k < best.k)) best = { r, k };
  }
  if (deferred !== null) throw deferred;
  const kept = trials.filter((_, k) => results[k] !== null);
  return epsDeltaBest(
    kept,
    results.filter((r): r is CalibrationResult | Error => r !== null),
    epsilon,
    delta,
    settings.method,
    alphas,
  );
}

/**
 * The smallest scale giving (ε, δ)-Pufferfish privacy through some Rényi order: for each α of the
 * grid, the Rényi budget the sharper conversion leaves (`renyiBudgetFor`), calibrated with the
 * settings' method (certified as always); the smallest scale wins and its α is reported.
 * Works for every law source, method, mechanism and number of releases `calibrate` supports.
 * @example calibrateEpsDelta(builtinScenario('heart'), { mechanism: 'gaussian', method: 'best', epsilon: 1, delta: 1e-6 }).alpha
 */
export function calibrateEpsDelta(
  scenario: AnyScenario,
  settings: EpsDeltaTarget,
  /**
   * The calibration at each order (default `calibrate` on `scenario`; a caller may add progress
   * reports: `tried` orders, calibrated or passed over, come before this one). An Error it returns
   * (not throws) marks an order that could not be calibrated: passed over.
   */
  calibrateWith: (s: CalibrationSettings, tried: number) => CalibrationResult | Error = (s) => calibrate(scenario, s),
): EpsDeltaResult {
  const search = epsDeltaSearch(scenario, settings);
  let step = search.next();
  while (!step.done) {
    let r: CalibrationResult | Error;
    try {
      r = calibrateWith(step.value.settings, step.value.tried);
    } catch (e) {
      step = search.throw(e);
      continue;
    }
    step = search.next(r);
  }
  return step.value;
}

/**
 * `calibrateEpsDelta` with each order calibrated asynchronously (on a thread pool: its units at
 * once); the same orders, passed over alike, and the same result.
 * @example await calibrateEpsDeltaAsync(builtinScenario('heart'), { mechanism: 'laplace', method: 'theorem', epsilon: 1, delta: 1e-6 }, async (s) => calibrate(builtinScenario('heart'), s))
 */
export async function calibrateEpsDeltaAsync(
  scenario: AnyScenario,
  settings: EpsDeltaTarget,
  calibrateWith: (s: CalibrationSettings, tried: number) => Promise<CalibrationResult | Error>,
): Promise<EpsDeltaResult> {
  const search = epsDeltaSearch(scenario, settings);
  let step = search.next();
  while (!step.done) {
    let r: CalibrationResult | Error;
    try {
      r = await calibrateWith(step.value.settings, step.value.tried);
    } catch (e) {
      step = search.throw(e);
      continue;
    }
    step = search.next(r);
  }
  return step.value;
}
