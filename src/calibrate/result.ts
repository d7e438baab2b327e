import { MECHANISMS, mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { InputError, NumericalError, budgetBelowCharge } from '../errors.js';
import type { Evaluation } from '../numerics/smallestScale.js';
import { bestOf, type Precomputed, type Progress, type Solution } from './driver.js';
import type { Contamination } from './contamination.js';
import type { CalibrationSettings, Mechanism, Method, SingleMethod } from './rules.js';
import { lawsError, massErrorCharge, SOURCE_METHOD_NAMES, TIE_TOLERANCE, type Scenario, type SourceMethod } from '../distribution/scenario.js';
import { numberText, precisionUp } from '../numerics/decimal.js';

/** One (prior, pair)'s own smallest scale; the calibration is their maximum. */
export interface PairScale {
  prior: string;
  pair: [string, string];
  scale: number;
  /** Why this pair needs no noise, when scale = 0. */
  zeroReason?: string;
  /** The pair was checked to hold at `scale` (the binding pair's) without its own smallest scale being searched. */
  atMost?: true;
}

/** A calibrated scale with its rule, the binding prior and pair, the explanation and the certificate it was checked by. */
export interface CalibrationResult {
  mechanism: Mechanism;
  method: Method | SourceMethodName;
  /** With method `best`: the method that won, and every candidate's scale. */
  winner?: SingleMethod | SourceMethodName;
  candidates?: { method: SingleMethod | SourceMethodName; scale: number }[];
  alpha: number;
  epsilon: number;
  /** Which noise parameter `scale` is: Laplace b, Gaussian σ, exponential θ. */
  parameter: 'b' | 'sigma' | 'theta';
  scale: number;
  variance: number;
  /** The theorem or equation applied. */
  rule: string;
  /** The prior and pair that need the most noise (null when no pair needs any). */
  binding: { prior: string; pair: [string, string] } | null;
  explanation: string;
  /** The binding pair's condition re-evaluated at `scale` (value + error ≤ target). */
  check: Evaluation | null;
  pairs: PairScale[];
  cost?: string;
  eta?: string;
  /** Releases of the same value the scale covers together (present when > 1; docs/math.md §9). */
  releases?: number;
  /** The contamination class the guarantee covers, when asked for (docs/math.md §10). */
  contamination?: Contamination;
  /** Vector queries: the dimension, and each coordinate's noise weight (noise wᵢ·scale; docs/math.md §12). */
  dimension?: number;
  coordinateScales?: number[];
}

/**
 * Noise variance at a scale: Laplace 2b², Gaussian σ², exponential per its cost and η. A variance
 * below the smallest double (scales near 1e-300) is reported as that double, not 0: noise there is.
 */
export function noiseVariance(s: Pick<CalibrationSettings, 'mechanism' | 'cost' | 'eta'>, scale: number): number {
  if (scale === 0) return 0;
  const v = mechanismDef(s.mechanism).variance(scale, noiseOptions(s));
  return v > 0 ? v : Number.MIN_VALUE;
}

/** What a kind of law says of its calibration beside the pairs' scales (`solvedResult`). */
export interface ResultText {
  settings: Pick<CalibrationSettings, 'mechanism' | 'method' | 'alpha' | 'epsilon' | 'releases'>;
  parameter: CalibrationResult['parameter'];
  variance: number;
  /** The rule applied, and what its scale meets ("with …", "meeting the condition"). */
  rule: string;
  meets: string;
  symbol: string;
  /** Said before the binding pair (releases together, the vector's noise), and after it (the binding pair's own notes). */
  before?: string;
  bindingNote?: string;
  /** Said after the explanation either way (the contamination's terms). */
  after?: string;
  /** Fields of the noise (cost, η) after the pairs, and of the query (dimension, contamination) last. */
  noise?: Partial<CalibrationResult>;
  tail?: Partial<CalibrationResult>;
}

/**
 * A calibration's result from its pairs solved together (`solveUnits`), written once for every
 * kind of law: each pair's scale, the binding pair (none when no pair needs noise), the
 * explanation naming it, and the settings it holds for.
 */
export function solvedResult<L extends { prior: string; pair: readonly [string, string] }>(sol: Solution<L>, t: ResultText): CalibrationResult {
  const pairs: PairScale[] = sol.units.map((u) => ({
    prior: u.label.prior,
    pair: [u.label.pair[0], u.label.pair[1]],
    scale: u.scale,
    ...(u.zeroReason !== undefined ? { zeroReason: u.zeroReason } : {}),
    ...(u.atMost ? { atMost: true as const } : {}),
  }));
  const top = sol.top.label;
  const binding = sol.scale > 0 ? { prior: top.prior, pair: [top.pair[0], top.pair[1]] as [string, string] } : null;
  const explanation =
    (t.before ?? '') +
    (binding
      ? `${t.rule}: smallest ${t.symbol} ${t.meets}, maximised over ${pairs.length} (prior, pair) combination(s); bound by prior '${binding.prior}', pair ${binding.pair[0]} vs ${binding.pair[1]}.${sol.top.problem?.note ? ` ${sol.top.problem.note}` : ''}${t.bindingNote ?? ''}`
      : zeroExplanation(pairs)) +
    (t.after ?? '');
  const n = t.settings.releases ?? 1;
  return {
    mechanism: t.settings.mechanism,
    method: t.settings.method,
    alpha: t.settings.alpha,
    epsilon: t.settings.epsilon,
    parameter: t.parameter,
    scale: sol.scale,
    variance: t.variance,
    rule: t.rule,
    binding,
    explanation,
    check: sol.check,
    pairs,
    ...t.noise,
    ...(n > 1 ? { releases: n } : {}),
    ...t.tail,
  };
}

/** Why no pair needs noise, naming the priors relied on (the first three, then a count). */
function zeroExplanation(pairs: PairScale[]): string {
  const shown = pairs.slice(0, 3).map((p) => `${p.zeroReason} (prior '${p.prior}', pair ${p.pair.join(' vs ')})`);
  const more = pairs.length > 3 ? `; and likewise for the other ${pairs.length - 3} (prior, pair) combinations` : '';
  return `No noise needed for any of the ${pairs.length} (prior, pair) combination(s): ${shown.join('; ')}${more}.`;
}
export const IDENTICAL = 'the two conditionals are identical, so Y = X reveals nothing about the pair';

/** How a calibration runs: progress reports and bounds computed elsewhere (worker threads). */
export interface CalibrateOptions {
  onProgress?: Progress;
  /** Per-method unit results computed by worker threads (`calibrate/parallel.ts`); the same numbers. */
  precomputed?: Partial<Record<SingleMethod, Precomputed>>;
  /** A law source's laws calibrated elsewhere (worker threads) at `lawSettings`: the same result. */
  laws?: CalibrationResult;
  /** The order's own condition only, as published (reproduce's figures): no α = ∞ scale taken below it (`orderMonotone`). */
  ownOrder?: boolean;
}

/** The methods whose answer at a finite α is at most their answer at α = ∞ (`orderMonotone`). */
export const MONOTONE_METHODS: ReadonlySet<string> = new Set(['best', 'exact']);

/**
 * D_α ≤ D_∞ at every order (Rényi divergence is non-decreasing in α, van Erven & Harremoës 2014,
 * Thm 3): a scale certified for ε-Pufferfish privacy (α = ∞) certifies (α, ε) at every finite α.
 * The smaller of the order's own calibration and the α = ∞ one by the same method, where the
 * family has an α = ∞ calibration (Laplace-shaped noise) and the method applies there.
 */
export function orderMonotone(
  settings: CalibrationSettings,
  opts: CalibrateOptions,
  own: () => CalibrationResult,
  atInfinity: () => CalibrationResult,
  infinityLarger: (r: CalibrationResult) => boolean = () => false,
): CalibrationResult {
  const r = own();
  if (opts.ownOrder || settings.alpha === Infinity || r.scale === 0 || mechanismDef(settings.mechanism).alphaRange(Infinity)) return r;
  // The α = ∞ run cannot win where it certainly needs more noise (checked on one pair, cheaply).
  if (infinityLarger(r)) return r;
  let inf: CalibrationResult;
  try {
    inf = atInfinity();
  } catch (e) {
    // No α = ∞ condition for this method here (or none certified): the order's own scale stands.
    if (e instanceof InputError || e instanceof NumericalError) return r;
    throw e;
  }
  if (!(inf.scale < r.scale)) return r;
  return {
    ...inf,
    alpha: settings.alpha,
    rule: `${inf.rule}, by D_α ≤ D_∞`,
    explanation: `${inf.explanation} D_α ≤ D_∞ at every order, so this α = ∞ scale meets α = ${numberText(settings.alpha)} too (the order's own condition needs ${precisionUp(r.scale, 10)}).`,
  };
}

/** `best`'s result: the smallest certified candidate, naming the winner and every candidate; `note` says what was left out. */
export function bestResult(results: CalibrationResult[], note = ''): CalibrationResult {
  const win = bestOf(results);
  return {
    ...win,
    method: 'best',
    winner: win.method as SingleMethod,
    candidates: results.map((r) => ({ method: r.method as SingleMethod, scale: r.scale })),
    explanation: `best of ${results.map((r) => r.method).join(', ')}${note}: ${win.method} wins. ${win.explanation}`,
  };
}

/** A law source's own method by name (`SOURCE_METHOD_NAMES`): group DP and the Markov Quilt Mechanisms of a chain. */
export type SourceMethodName = (typeof SOURCE_METHOD_NAMES)[number];

/** Whether `method` names one of the law sources' own methods. */
export const isSourceMethod = (method: string): method is SourceMethodName => (SOURCE_METHOD_NAMES as readonly string[]).includes(method);

/** Whether a scenario carries anything the per-pair calibration alone would ignore. */
export const hasSource = (s: Scenario<unknown>): boolean => !!(s.sourceMethods?.length || s.massError || s.lawsNotApplicable);

/**
 * The scenario without its source's extras: what the per-pair methods calibrate. Computed laws
 * (a mass error) let W∞ be read within `TIE_TOLERANCE` of them; the caller charges both
 * (`lawsError`, docs/math.md §13).
 */
export function lawsOnly<C>(s: Scenario<C>): Scenario<C> {
  const { sourceMethods: _m, massError: _e, lawsNotApplicable: _n, ...rest } = s;
  return (s.massError ?? 0) > 0 ? { ...rest, tieTolerance: TIE_TOLERANCE } : rest;
}

/** A source method's scale, where the settings' family has the parameter the method calibrates. */
export function sourceScale(
  m: SourceMethod,
  settings: Omit<CalibrationSettings, 'method'> & { coordinateScales?: readonly number[] },
): ReturnType<SourceMethod['scale']> {
  if (mechanismDef(settings.mechanism).parameter !== m.parameter) {
    const family = MECHANISMS.find((k) => mechanismDef(k).parameter === m.parameter);
    return { notApplicable: `${m.name} calibrates ${family ? mechanismDef(family).title : m.parameter} noise (got ${settings.mechanism})` };
  }
  // The source's bound is for one noise scale on every coordinate (the vector's ℓ₁ shift over b):
  // a coordinate weighted below 1 would get less noise than it certifies.
  if (settings.coordinateScales?.some((w) => w !== 1))
    return { notApplicable: `${m.name} calibrates one noise scale for every coordinate; it takes no --coordinate-scales` };
  return m.scale(settings);
}

/** A source method's result in the shape of every calibration's. */
function sourceResult(m: SourceMethod, settings: CalibrationSettings): CalibrationResult | string {
  const r = sourceScale(m, settings);
  if ('notApplicable' in r) return r.notApplicable;
  const def = mechanismDef(settings.mechanism);
  return {
    mechanism: settings.mechanism,
    method: m.name as SourceMethodName,
    alpha: settings.alpha,
    epsilon: settings.epsilon,
    parameter: def.parameter,
    scale: r.scale,
    variance: noiseVariance(settings, r.scale),
    rule: m.rule,
    binding: null,
    explanation: `${r.explanation}${settings.alpha === Infinity ? '' : ' ε-Pufferfish privacy implies (α, ε)-Rényi Pufferfish at every α (D_α ≤ D_∞).'}`,
    check: null,
    pairs: [],
  };
}

/**
 * The settings `calibrateWithSource` calibrates a source's laws with (ε less the laws' mass-error
 * charge), or null where it calibrates none (a source method, laws it has none of, or a budget the
 * charge exhausts, which it refuses itself): a thread pool calibrates them first, on its workers.
 */
export function lawSettings(scenario: Scenario<unknown>, settings: CalibrationSettings): CalibrationSettings | null {
  if (isSourceMethod(settings.method) || scenario.lawsNotApplicable) return null;
  const charge = massErrorCharge(lawsError(scenario), settings.alpha);
  return settings.epsilon > charge ? { ...settings, epsilon: settings.epsilon - charge } : null;
}

/**
 * Calibration of a scenario whose law source adds methods, a floating-point mass error, or
 * laws the per-pair methods cannot use: source methods by name; the per-pair methods at the
 * budget less the mass-error charge (the result reports the budget asked for); `best` the
 * smallest of both, naming the winner.
 */
export function calibrateWithSource(
  scenario: Scenario<unknown>,
  settings: CalibrationSettings,
  perPair: (s: CalibrationSettings) => CalibrationResult,
): CalibrationResult {
  const r = calibrateSourceMethods(scenario, settings, perPair);
  // The source's own notes (a chain's states no secret names) go with every method's answer.
  return scenario.notes?.length ? { ...r, explanation: `${r.explanation} ${scenario.notes.join(' ')}` } : r;
}

function calibrateSourceMethods(
  scenario: Scenario<unknown>,
  settings: CalibrationSettings,
  perPair: (s: CalibrationSettings) => CalibrationResult,
): CalibrationResult {
  const named = scenario.sourceMethods ?? [];
  if (isSourceMethod(settings.method)) {
    const m = named.find((x) => x.name === settings.method);
    if (!m) throw new InputError(`'${settings.method}' applies to Markov-chain sources only`, 'method');
    const r = sourceResult(m, settings);
    if (typeof r === 'string') throw new InputError(`'${settings.method}' does not apply: ${r}`, 'method');
    return r;
  }
  const laws = (): CalibrationResult => {
    if (scenario.lawsNotApplicable) throw new InputError(`'${settings.method}' does not apply: ${scenario.lawsNotApplicable}`, 'method');
    const charge = massErrorCharge(lawsError(scenario), settings.alpha);
    const st = lawSettings(scenario, settings);
    if (!st) throw budgetBelowCharge(charge);
    const r = perPair(st);
    const note =
      charge > 0
        ? ` The laws' floating-point error (relative ${scenario.massError!.toPrecision(3)} per mass, and W∞ read within ${TIE_TOLERANCE.toPrecision(3)} of them) is charged to the budget: calibrated at ε − ${precisionUp(charge, 3)}.`
        : '';
    return { ...r, epsilon: settings.epsilon, explanation: r.explanation + note };
  };
  if (settings.method !== 'best') return laws();
  const results: CalibrationResult[] = [];
  const left: string[] = [];
  if (scenario.lawsNotApplicable) left.push(`per-pair methods: ${scenario.lawsNotApplicable}`);
  else results.push(laws());
  for (const m of named) {
    const r = sourceResult(m, settings);
    if (typeof r === 'string') left.push(`${m.name}: ${r}`);
    else results.push(r);
  }
  if (!results.length) throw new InputError(`no method applies (${left.join('; ')})`, 'method');
  const win = results.reduce((a, b) => (b.scale < a.scale ? b : a));
  const winner = (win.method === 'best' ? win.winner : win.method) as CalibrationResult['winner'];
  const candidates = results.flatMap((r) =>
    r.method === 'best' ? (r.candidates ?? []) : [{ method: r.method as NonNullable<CalibrationResult['winner']>, scale: r.scale }],
  );
  return {
    ...win,
    method: 'best',
    winner,
    candidates,
    explanation: `best of the laws' methods and ${named.map((m) => m.name).join(', ')}${left.length ? ` (left out: ${left.join('; ')})` : ''}: ${winner} wins. ${win.explanation}`,
  };
}
