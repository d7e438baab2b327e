import { mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { InputError } from '../errors.js';
import { isFeasible, type Evaluation } from '../numerics/smallestScale.js';
import { bestOf, solveUnits, type Precomputed, type Progress, type Unit } from './driver.js';
import { checkContamination, contaminatedProblem, robustNote, type ContaminatedProblem, type Contamination } from './contamination.js';
import { EPS } from '../numerics/float.js';
import { applicableMethods, calibrationRule, type CalibrationSettings, type Mechanism, type Method, type SingleMethod } from './rules.js';
import type { Scenario } from '../distribution/scenario.js';
import { pairCouplings, type PairCoupling } from '../coupling/pairs.js';
import { dataDivergence } from '../divergence/dataDivergence.js';
import { isNotApplicable, type NoNoise } from '../mechanisms/mechanism.js';
import type { NoiseFamily } from '../mechanisms/kernels.js';
import { sameLaw } from '../distribution/discrete.js';
import { massErrorCharge, SOURCE_METHOD_NAMES, type SourceMethod } from '../distribution/scenario.js';

export { MECHANISMS, METHODS, METHOD_LABEL, SINGLE_METHODS, applicableMethods, calibrationRule, checkSettings } from './rules.js';
export type { CalibrationRule, CalibrationSettings, Mechanism, Method, SingleMethod } from './rules.js';

/** One (prior, pair)'s own smallest scale; the calibration is their maximum. */
export interface PairScale {
  prior: string;
  pair: [string, string];
  scale: number;
  /** Why this pair needs no noise, when scale = 0. */
  zeroReason?: string;
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

/** Noise variance at a scale: Laplace 2b², Gaussian σ², exponential per its cost and η. */
export function noiseVariance(s: Pick<CalibrationSettings, 'mechanism' | 'cost' | 'eta'>, scale: number): number {
  return scale === 0 ? 0 : mechanismDef(s.mechanism).variance(scale, noiseOptions(s));
}

/**
 * How far exact accounting goes, by the accountant's noise family (atoms in a pair; bench timings):
 * Laplace (also the exponential mechanism's |z| cost) runs the one-pass gap rule, about 6 µs per
 * atom and ten evaluations per calibration; Gaussian runs the grid rule, about 0.2–0.3 ms per atom
 * (10⁵ atoms in a pair at unit spacing: 17 s). `best` includes exact up to `best` atoms (under half
 * a minute); `--method exact` is refused above `max` (a few minutes or more), with the estimate.
 */
export const EXACT_LIMITS = {
  laplace: { best: 2_000_000, max: 40_000_000, msPerAtom: 0.015 },
  gaussian: { best: 100_000, max: 600_000, msPerAtom: 0.3 },
} as const satisfies Record<NoiseFamily, { best: number; max: number; msPerAtom: number }>;

/** The exact accountant's limits for these settings (Gaussian's, the stricter, if it has none). */
function exactLimits(settings: CalibrationSettings) {
  const acc = mechanismDef(settings.mechanism).accountant(noiseOptions(settings));
  return EXACT_LIMITS[isNotApplicable(acc) ? 'gaussian' : (acc(1).family as NoiseFamily)];
}

/** The most atoms any (prior, pair) brings to the exact accountant: the two largest conditionals of a prior. */
function largestPairSupport(s: Scenario): number {
  let most = 0;
  for (const p of s.priors) {
    const sizes = Object.values(p.conditionals)
      .map((d) => d.values.length)
      .sort((a, b) => b - a);
    most = Math.max(most, (sizes[0] ?? 0) + (sizes[1] ?? 0));
  }
  return most;
}

/** Why no pair needs noise, naming the priors relied on (the first three, then a count). */
export function zeroExplanation(pairs: PairScale[]): string {
  const shown = pairs.slice(0, 3).map((p) => `${p.zeroReason} (prior '${p.prior}', pair ${p.pair.join(' vs ')})`);
  const more = pairs.length > 3 ? `; and likewise for the other ${pairs.length - 3} (prior, pair) combinations` : '';
  return `No noise needed for any of the ${pairs.length} (prior, pair) combination(s): ${shown.join('; ')}${more}.`;
}
export const IDENTICAL = 'the two conditionals are identical, so Y = X reveals nothing about the pair';

/**
 * N releases of X carry no more than X itself: when D_α(P_X‖Q_X) ≤ ε (every required
 * direction) no noise is needed, whatever the method (data processing, docs/math.md §9). For one
 * release only `exact` says so, keeping the other methods' single-release numbers as published.
 */
function dataAlreadyMeets(pc: PairCoupling, s: CalibrationSettings, ordered: boolean): NoNoise | null {
  const worst = dataDivergence(pc, s.alpha, ordered);
  return worst <= s.epsilon
    ? { zero: `data processing: D_α(P_X‖Q_X) = ${worst.toPrecision(6)} ≤ ε for the data itself, so any number of releases of it already meets the budget` }
    : null;
}

/** How a calibration runs: progress reports and bounds computed elsewhere (worker threads). */
export interface CalibrateOptions {
  onProgress?: Progress;
  /** Per-method unit results computed by worker threads (`calibrate/parallel.ts`); the same numbers. */
  precomputed?: Partial<Record<SingleMethod, Precomputed>>;
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

/** The methods `best` runs on this scenario, and what it says about the ones left out. */
export function bestMethods(scenario: Scenario, settings: CalibrationSettings): { methods: SingleMethod[]; note: string } {
  const atoms = largestPairSupport(scenario);
  // `best` leaves exact accounting out on supports where it would run for minutes, and says so.
  const limits = exactLimits(settings);
  const skipExact = atoms > limits.best;
  const all = applicableMethods(settings);
  const methods = all.filter((m) => !(skipExact && m === 'exact'));
  const note =
    skipExact && all.includes('exact')
      ? ` (exact accounting left out: a pair has ${atoms} atoms, above ${limits.best}; ask for --method exact to run it, up to ${limits.max})`
      : '';
  return { methods, note };
}

export type UnitLabel = { prior: string; pair: [string, string] };

/**
 * The units of one single-method calibration: one per (prior, pair), each building its condition
 * lazily (the rule's problem, with releases and contamination folded in). Checks the settings
 * against the whole scenario (exact accounting's size limit, the contamination domain) first.
 */
export function calibrationUnits(scenario: Scenario, settings: CalibrationSettings & { method: SingleMethod }): Unit<UnitLabel>[] {
  const atoms = largestPairSupport(scenario);
  const limits = settings.method === 'exact' ? exactLimits(settings) : null;
  if (limits && atoms > limits.max) {
    throw new InputError(
      `exact accounting on a pair with ${atoms} atoms would take about ${Math.round((atoms * limits.msPerAtom) / 1000)} s or more (limit ${limits.max} atoms); use coupled or theorem`,
      'method',
    );
  }
  if (settings.contamination) checkContamination(settings.contamination, scenario);
  return pairUnits(pairCouplings(scenario), settings, scenario.ordered ?? false);
}

/**
 * The units of some (prior, pair) couplings of a scenario whose settings `calibrationUnits` has
 * checked: what a worker thread builds for its share. A unit depends only on its own pair.
 */
export function pairUnits(pcs: readonly PairCoupling[], settings: CalibrationSettings & { method: SingleMethod }, ordered: boolean): Unit<UnitLabel>[] {
  const rule = calibrationRule(settings);
  const n = settings.releases ?? 1;
  const cont = settings.contamination && settings.contamination.lambda > 0 ? settings.contamination : null;
  const def = mechanismDef(settings.mechanism);
  // What an adversary moving mass across the domain can add: the noise's divergence between its ends, times N releases.
  const point = (s: number) => {
    const r = def.pointDivergence(cont!.domain[1] - cont!.domain[0], s, settings.alpha, noiseOptions(settings));
    return n === 1 ? r : { value: n * r.value, error: n * r.error + EPS * n * r.value };
  };
  return pcs.map((pc) => ({
    label: { prior: pc.prior, pair: [pc.pair[0], pc.pair[1]] as [string, string] },
    problem: () => {
      const base = sameLaw(pc.p, pc.q) ? { zero: IDENTICAL } : (n > 1 && dataAlreadyMeets(pc, settings, ordered)) || rule.problem(pc, ordered);
      return cont ? contaminatedProblem(base, pc, cont, { alpha: settings.alpha, epsilon: settings.epsilon, ordered }, point) : base;
    },
  }));
}

/**
 * Calibrates one mechanism: the smallest certified scale for every prior and pair, maximised
 * over them (the guarantee must hold for every prior in the class and every declared pair).
 * Each pair's condition is re-checked at the final scale. Method `best` runs every method that
 * applies and returns the smallest, naming the winner.
 * @example calibrate(builtinScenario('adult'), { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }).scale
 */
export function calibrate(scenario: Scenario, settings: CalibrationSettings, opts: CalibrateOptions = {}): CalibrationResult {
  if (hasSource(scenario)) return calibrateWithSource(scenario, settings, (s) => calibrate(lawsOnly(scenario), s, opts));
  if (isSourceMethod(settings.method))
    throw new InputError(`'${settings.method}' applies to Markov-chain sources only (a "markov" spec or --sequence)`, 'method');
  if (settings.method === 'best') {
    const { methods, note } = bestMethods(scenario, settings);
    // Progress over all methods' units together.
    const results = methods.map((method, k) =>
      calibrate(
        scenario,
        { ...settings, method },
        {
          ...opts,
          onProgress: opts.onProgress && ((done, total) => opts.onProgress!(k * total + done, methods.length * total)),
        },
      ),
    );
    return bestResult(results, note);
  }
  const single = { ...settings, method: settings.method };
  const rule = calibrationRule(single);
  const n = settings.releases ?? 1;
  const cont = settings.contamination && settings.contamination.lambda > 0 ? settings.contamination : null;
  const def = mechanismDef(settings.mechanism);
  const units = calibrationUnits(scenario, single);
  const sol = solveUnits(units, (l) => `prior '${l.prior}', pair ${l.pair.join(' vs ')}`, undefined, opts.onProgress, opts.precomputed?.[single.method]);
  const scale = sol.scale;
  const pairs: PairScale[] = sol.units.map((u) => ({ ...u.label, scale: u.scale, ...(u.zeroReason !== undefined ? { zeroReason: u.zeroReason } : {}) }));
  const parameter = def.parameter;
  const binding = scale > 0 ? sol.top.label : null;
  const together = (settings.releases ?? 1) > 1 ? `For ${settings.releases} releases of the same value, together: ` : '';
  const robust = cont ? robustNote(cont, [cont.domain], sol.scale > 0 ? (sol.top.problem as ContaminatedProblem).terms(sol.scale) : null) : '';
  const explanation =
    together +
    (binding
      ? `${rule.rule}: smallest ${def.symbol} with ${rule.condition}, maximised over ${pairs.length} (prior, pair) combination(s); bound by prior '${binding.prior}', pair ${binding.pair[0]} vs ${binding.pair[1]}.${sol.top.problem?.note ? ` ${sol.top.problem.note}` : ''}`
      : zeroExplanation(pairs)) +
    robust;
  const exp = def.describe(noiseOptions(settings));
  return {
    mechanism: settings.mechanism,
    method: settings.method,
    alpha: settings.alpha,
    epsilon: settings.epsilon,
    parameter,
    scale,
    variance: noiseVariance(settings, scale),
    rule: rule.rule,
    binding,
    explanation,
    check: sol.check,
    pairs,
    ...exp,
    ...(n > 1 ? { releases: n } : {}),
    ...(settings.contamination ? { contamination: settings.contamination } : {}),
  };
}

/** Per (prior, pair): the method whose condition certifies a given scale (`zero`: no noise needed), or null. */
export interface Certification {
  certified: boolean;
  units: { label: UnitLabel; by: SingleMethod | SourceMethodName | 'zero' | null }[];
}

/**
 * Whether `scale` meets the settings for every prior and pair by a condition `calibrate` itself
 * could stop on: the same rules, units (releases, contamination, data processing), evaluations
 * and rounding, tried method by method as `best` would. A scale `calibrate` returned passes by
 * construction, so the audit of a calibrated scale never fails by a rounding the calibration did
 * not make.
 * @example certifiedAt(builtinScenario('heart'), { mechanism: 'laplace', alpha: 2, epsilon: 1 }, 1).certified // true
 */
export function certifiedAt(scenario: Scenario, settings: Omit<CalibrationSettings, 'method'>, scale: number): Certification {
  if (hasSource(scenario)) {
    // A source method's scale certifies every larger one (its bound falls as the scale grows).
    const by = (scenario.sourceMethods ?? []).find((m) => {
      const r = m.scale(settings);
      return 'scale' in r && r.scale <= scale;
    });
    if (by) return { certified: true, units: [{ label: { prior: scenario.name, pair: ['*', '*'] }, by: by.name as SourceMethodName }] };
    if (scenario.lawsNotApplicable) return { certified: false, units: [] };
    const charge = massErrorCharge(scenario.massError ?? 0, settings.alpha);
    if (!(settings.epsilon > charge)) return { certified: false, units: [] };
    return certifiedAt(lawsOnly(scenario), { ...settings, epsilon: settings.epsilon - charge }, scale);
  }
  const all = { ...settings, method: 'best' as const };
  const { methods } = bestMethods(scenario, all);
  let units: Certification['units'] | null = null;
  for (const method of methods) {
    const us = calibrationUnits(scenario, { ...settings, method });
    units ??= us.map((u) => ({ label: u.label, by: null }));
    us.forEach((u, k) => {
      if (units![k].by) return;
      const p = typeof u.problem === 'function' ? u.problem() : u.problem;
      if ('zero' in p) units![k].by = 'zero';
      else if (scale > 0 && isFeasible(p.evaluate(scale))) units![k].by = method;
    });
    if (units.every((u) => u.by)) break;
  }
  const out = units ?? [];
  return { certified: out.length > 0 && out.every((u) => u.by !== null), units: out };
}

export type SourceMethodName = (typeof SOURCE_METHOD_NAMES)[number];

/** Whether `method` names one of the law sources' own methods. */
export const isSourceMethod = (method: string): method is SourceMethodName => (SOURCE_METHOD_NAMES as readonly string[]).includes(method);

/** Whether a scenario carries anything the per-pair calibration alone would ignore. */
export const hasSource = (s: Scenario<unknown>): boolean => !!(s.sourceMethods?.length || s.massError || s.lawsNotApplicable);

/** The scenario without its source's extras: what the per-pair methods calibrate. */
export function lawsOnly<C>(s: Scenario<C>): Scenario<C> {
  const { sourceMethods: _m, massError: _e, lawsNotApplicable: _n, ...rest } = s;
  return rest;
}

/** A source method's result in the shape of every calibration's. */
function sourceResult(m: SourceMethod, settings: CalibrationSettings): CalibrationResult | string {
  const r = m.scale(settings);
  if ('notApplicable' in r) return r.notApplicable;
  const def = mechanismDef(settings.mechanism);
  return {
    mechanism: settings.mechanism,
    method: m.name as SourceMethodName,
    alpha: settings.alpha,
    epsilon: settings.epsilon,
    parameter: def.parameter,
    scale: r.scale,
    variance: def.variance(r.scale, noiseOptions(settings)),
    rule: m.rule,
    binding: null,
    explanation: `${r.explanation}${settings.alpha === Infinity ? '' : ' ε-Pufferfish privacy implies (α, ε)-Rényi Pufferfish at every α (D_α ≤ D_∞).'}`,
    check: null,
    pairs: [],
  };
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
    const charge = massErrorCharge(scenario.massError ?? 0, settings.alpha);
    if (!(settings.epsilon > charge)) throw new InputError(`must exceed the laws' floating-point error charge ${charge}`, 'epsilon');
    const r = perPair({ ...settings, epsilon: settings.epsilon - charge });
    const note =
      charge > 0
        ? ` The laws' floating-point error (relative ${scenario.massError!.toPrecision(3)} per mass) is charged to the budget: calibrated at ε − ${charge.toPrecision(3)}.`
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
