// Calibrating the noise of a chain's window counts (docs/math.md §19): the path-coupled bound at
// finite α > 1, the Markov Quilt Mechanism and group DP for the whole vector at every α.
import { InputError, NumericalError, unknownName } from '../errors.js';
import { checkSetting } from '../settings.js';
import { ARRAY, checkShape, OBJECT } from '../shapes.js';
import { FAMILY_OF, mechanismDef, noiseOptions, type Mechanism } from '../mechanisms/registry.js';
import { type MarkovModel, neverPossible, walkPossibleStates } from '../markov/chain.js';
import { groupDp, mqmExact, quiltChains } from '../markov/mqm.js';
import { checkProbabilityRange, pathCoupledBound, type WindowBound, type WindowExact } from '../markov/windows.js';
import type { BoundaryCache } from '../markov/boundary.js';
import { noSecretPair } from '../markov/source.js';
import { discreteRenyi, exactRenyi } from '../divergence/exactRenyi.js';
import { numberText, precisionDown, precisionUp } from '../numerics/decimal.js';
import { divideDown, gcd } from '../numerics/float.js';
import { geometricBisection, narrowBracket, withinBracket } from '../numerics/smallestScale.js';
import { isNotApplicable } from '../mechanisms/mechanism.js';
import { checkWindows } from '../markov/calendar.js';
import { DEFAULT_DELTA_ALPHAS, renyiBudgetFor } from './epsDelta.js';

/**
 * The methods a vector of window counts takes (docs/math.md §19).
 * @example WINDOW_METHODS // ['boundary-coupled', 'path-coupled', 'mqm-exact', 'group-dp', 'best']
 */
export const WINDOW_METHODS = ['boundary-coupled', 'path-coupled', 'mqm-exact', 'group-dp', 'best'] as const;
/** A method for window counts. */
export type WindowMethod = (typeof WINDOW_METHODS)[number];

/** A calibration of window counts: family, method, the Rényi target (or ε with δ over `alphas`), and how many windows are released. */
export interface WindowSettings {
  mechanism: Mechanism;
  method: WindowMethod;
  alpha: number;
  epsilon: number;
  released?: number;
  delta?: number;
  alphas?: readonly number[];
}

/** One window calibration: the per-window noise scale, or why the method does not apply. */
export interface WindowResult {
  method: Exclude<WindowMethod, 'best'>;
  /** With `best`: the method that won. */
  winner?: Exclude<WindowMethod, 'best'>;
  mechanism: Mechanism;
  alpha: number;
  epsilon: number;
  /** Each window's noise scale (the same for every window), or null where the method does not apply. */
  scale: number | null;
  /** With an (ε, δ) target: the target; `alpha` and `epsilon` are then the order and Rényi budget used. */
  target?: { epsilon: number; delta: number };
  /** The secret time (1-based) and states that need the most noise (path-coupled). */
  binding?: { time: number; pair: [string, string] };
  explanation: string;
}

/**
 * The per-step contribution of a window query: 1 for the counted state, else 0; a sum's value of
 * each state, a whole number (the bounds walk the windows' whole-number differences, docs/math.md §19).
 * Refused naming `field`: the spec's field that gave the query, else the flag.
 */
export function windowContribution(model: MarkovModel, field = model.queryAt ? `${model.queryAt}.${model.query.kind}` : '--query'): number[] {
  const q = model.query;
  if (q.kind === 'count') return model.states.map((_, x) => (x === q.state ? 1 : 0));
  if (q.kind === 'sum') {
    const bad = q.values.findIndex((v) => !Number.isSafeInteger(v) || Math.abs(v) > MAX_STEP_VALUE);
    if (bad >= 0)
      throw new InputError(
        `a window sum takes whole-number values per state (|V| ≤ ${MAX_STEP_VALUE.toExponential()}); '${model.states[bad]}' has ${q.values[bad]}: express the values in whole units (tenths, cents)`,
        field,
      );
    return [...q.values];
  }
  throw new InputError('a window query is count:STATE or sum:STATE=V,…: a histogram per window is not available', field);
}

/**
 * The states a window's step may be in — those some time gives positive probability — each with its
 * value: a step of the data in any other state is outside every chain of the class (a state the
 * fitted chain's stationary start never reaches), so its window is not released under the class.
 */
export function windowSteps(model: MarkovModel): { states: string[]; values: number[] } {
  const f = windowContribution(model);
  const never = new Set(neverPossible(model));
  const kept = model.states.map((x, i) => [x, f[i]] as const).filter(([x]) => !never.has(x));
  return { states: kept.map(([x]) => x), values: kept.map(([, v]) => v) };
}

/**
 * The largest |value| of a state in a window sum: a window's sum stays an exact integer in a double
 * (10⁹ per step over series of up to 10⁶ steps). The bounds' tables grow with the values' spread on
 * their own grid (`onValueGrid`), and are refused by their size, not here.
 */
const MAX_STEP_VALUE = 1e9;

/** One window's noise; null for a window not released. */
export type WindowNoise = { mechanism: Mechanism; scale: number } | null;

/**
 * How `windowsExponent` treats the secret's own window: with these options, exactly, given its
 * coupled boundary states (docs/math.md §19), each pair keeping the smaller of that and the path bound.
 */
export interface WindowExactOptions {
  /** (α−1)ε: a pair whose bound meets it is not refined further (a calibration's trial). */
  target?: number;
  /** Return at the first pair that misses `target` (`perTime` then covers only the pairs seen). */
  stopAtFailure?: boolean;
  /** With `stopAtFailure`: the window (0-based) to try first. */
  firstWindow?: number;
  /** Only the worst pair is wanted: each pair refined only until it is no worse than the worst so far. */
  worstOnly?: boolean;
  /** What one call keeps for the next at another scale, one entry per chain of the class (start with `[]` entries of `{}`). */
  caches?: object[];
}

/** The chains (and lengths) whose probabilities passed `checkProbabilityRange`: it depends on them alone, not on the scale tried. */
const rangeChecked = new WeakMap<object, Set<number>>();

/** Runs `check` once per chain object and length (a calibration evaluates the bound at many scales). */
function checkedRange(chain: object, T: number, check: () => void): void {
  const lengths = rangeChecked.get(chain) ?? new Set<number>();
  if (lengths.has(T)) return;
  check();
  lengths.add(T);
  rangeChecked.set(chain, lengths);
}

/**
 * The path-coupled bound's worst exponent (α−1)·D_α over the class's chains, every secret time
 * and pair, with each window's own noise (docs/math.md §19): exponent/(α−1) bounds D_α from above
 * at every order α > 0 but 1 (α = ∞ is the MQM's and group DP's). With `exact`, each pair also
 * gets the boundary-coupled bound (the secret's window exactly, given its coupled boundary states)
 * and keeps the smaller.
 * @example windowsExponent(validateSpec({ states: ['a', 'b'], chains: [{ name: 'c', transition: [[0.9, 0.1], [0.2, 0.8]], initial: 'stationary' }], length: 4, query: { count: 'b' } }), [2, 2], 2, [{ mechanism: 'laplace', scale: 3 }, null]).exponent > 0 // true
 */
export function windowsExponent(
  model: MarkovModel,
  lengths: readonly number[],
  alpha: number,
  given: readonly WindowNoise[],
  exact?: WindowExactOptions,
): WindowBound {
  if (!(alpha > 0 && alpha !== 1 && Number.isFinite(alpha)))
    throw new InputError(
      alpha === Infinity
        ? 'the path- and boundary-coupled bounds hold at finite orders α > 0 but 1; at α = ∞ the MQM and group DP are ε-Pufferfish by construction (calibrate --method mqm-exact,group-dp)'
        : `the path-coupled bound holds at finite orders α > 0 but 1; got ${alpha}`,
      '--alpha',
    );
  // The bounds read each chain's kernel: a class given by its eigengap alone has none, and the worst
  // over no chain would pass any budget.
  if (!model.chains.length)
    throw new InputError(
      "the path- and boundary-coupled bounds read each chain's transition matrix; an eigengap class gives none (group-dp applies)",
      'method',
    );
  const o = noiseOptions({});
  const { f, noises: scaled } = onValueGrid(windowContribution(model), given);
  // ρ ≥ the shifted noise's D_α (value + error): e^{(α−1)ρ} is then above the true factor for α > 1, below it for α < 1.
  const below = alpha < 1;
  const factor = (d: number, w: number) => {
    const n = scaled[w];
    if (!n) return 1;
    // Released without noise: a shift is told apart for sure (D_α = ∞; its factor e^{(α−1)∞}).
    if (n.scale === 0) return d === 0 ? 1 : below ? 0 : Infinity;
    const r = mechanismDef(n.mechanism).pointDivergence(d, n.scale, alpha, o);
    return Math.exp((alpha - 1) * (r.value + r.error));
  };
  // Compared as bounds on D_α (exponent/(α−1)); NaN is never below the worst so far: it is taken
  // as the worst (D_α ≤ ∞, which fails every target).
  const nowhere = below ? Infinity : -Infinity;
  const worstOf = (x: number, y: number) => (Number.isNaN(x) ? -nowhere : x / (alpha - 1) > y / (alpha - 1) ? x : y);
  let worst: WindowBound = { exponent: nowhere, binding: null, perTime: new Float64Array(model.length).fill(nowhere) };
  const perTime = worst.perTime.slice();
  model.chains.forEach((c, j) => {
    if (c.initial === 'any') throw new InputError("the path-coupled bound needs each chain's initial law (not 'any')", 'initial');
    const initial = c.initial.law;
    checkedRange(c, model.length, () => checkProbabilityRange({ transition: c.transition, initial, contribution: f }, model.length, c.name, model.states));
    const hook = exact
      ? exactWindow(scaled, alpha, {
          target: exact.target,
          stopAtFailure: exact.stopAtFailure,
          firstWindow: exact.firstWindow,
          worstOnly: exact.worstOnly,
          cache: cacheOf(exact.caches?.[j]),
        })
      : undefined;
    const b = pathCoupledBound({ transition: c.transition, initial: c.initial.law, contribution: f }, lengths, factor, below, hook);
    const e = worstOf(b.exponent, worst.exponent);
    if (e !== worst.exponent || worst.binding === null) worst = { ...b, exponent: e };
    b.perTime.forEach((x, i) => {
      perTime[i] = worstOf(x, perTime[i]);
    });
  });
  return { ...worst, perTime };
}

/**
 * A window query's step values on their own grid. Window sums differ by multiples of g, the gcd of
 * the values' differences (a sum over two states is a count in disguise; `sum:rain=1000` steps by
 * 1000), and under a scale family's noise (Laplace, Gaussian) every divergence between sums at scale
 * b is that between (S − c)/g at scale b/g (docs/math.md §19). So the bounds walk the values
 * (f − min f)/g with each scale b/g rounded down (a smaller scale only raises a bound): tables g
 * times narrower, the same guarantee. Integer noise keeps the values as they are.
 */
function onValueGrid(f: readonly number[], noises: readonly WindowNoise[]): { f: number[]; noises: WindowNoise[] } {
  const lo = Math.min(...f);
  const g = f.reduce((acc, v) => gcd(acc, v - lo), 0);
  if (g <= 1 || noises.some((n) => n && !mechanismDef(n.mechanism).scaleFamily)) return { f: [...f], noises: [...noises] };
  return { f: f.map((v) => (v - lo) / g), noises: noises.map((n) => n && { ...n, scale: divideDown(n.scale, g) }) };
}

/** A caller's per-chain cache object, made a BoundaryCache in place (its kept maps added where missing). */
function cacheOf(o: object | undefined): BoundaryCache | undefined {
  if (!o) return undefined;
  const c = o as Partial<BoundaryCache>;
  c.data ??= new Map();
  return c as BoundaryCache;
}

/**
 * Whether the boundary-coupled bound takes this noise (it needs the family's exact accountant).
 * @example exactWindowApplies('laplace') // true
 */
export const exactWindowApplies = (mechanism: Mechanism): boolean => noExactWindow([{ mechanism, scale: 1 }]) === null;

/**
 * Why the boundary-coupled bound cannot take these windows' noise (a family without the exact
 * accountant), or null.
 */
function noExactWindow(noises: readonly WindowNoise[]): string | null {
  for (const n of noises) {
    if (!n) continue;
    const acc = mechanismDef(n.mechanism).accountant(noiseOptions({}));
    if (isNotApplicable(acc)) return `boundary-coupled needs the exact accountant of ${n.mechanism} noise: ${acc.notApplicable}`;
  }
  return null;
}

/** The exact divergences of the secret's window (value + error: upper bounds on D_α). */
function exactWindow(noises: readonly WindowNoise[], alpha: number, o: Omit<WindowExactOptions, 'caches'> & { cache?: BoundaryCache }): WindowExact {
  const upper = (r: { value: number; error: number }) => r.value + r.error;
  return {
    alpha,
    ...o,
    data: (p, q) => upper(discreteRenyi(p.support, q.support, alpha)),
    noisy: (p, q, w) => {
      const n = noises[w];
      if (!n) return 0;
      if (n.scale === 0) return upper(discreteRenyi(p.support, q.support, alpha));
      const acc = mechanismDef(n.mechanism).accountant(noiseOptions({}));
      if (isNotApplicable(acc)) throw new Error(acc.notApplicable);
      return upper(exactRenyi(p.support, q.support, acc(n.scale), alpha));
    },
    noiseKey: (w) => (noises[w] ? `${noises[w].mechanism}:${noises[w].scale}` : 'none'),
  };
}

/** The window (0-based) of a time (0-based). */
function windowOf(lengths: readonly number[], time: number): number {
  let end = 0;
  for (let w = 0; w < lengths.length; w++) {
    end += lengths[w];
    if (time < end) return w;
  }
  return lengths.length - 1;
}

/** The bound with one scale for the first `released` windows. */
const boundAt = (
  model: MarkovModel,
  lengths: readonly number[],
  mechanism: Mechanism,
  alpha: number,
  scale: number,
  released: number,
  exact?: WindowExactOptions,
) =>
  windowsExponent(
    model,
    lengths,
    alpha,
    lengths.map((_, w) => (w < released ? { mechanism, scale } : null)),
    exact,
  );

/**
 * The smallest per-window scale whose path-coupled bound meets (α, ε): the bound decreases in the
 * scale, so a geometric bisection keeps the end that meets it (relative width 10⁻⁶).
 */
function pathCoupled(
  model: MarkovModel,
  lengths: readonly number[],
  mechanism: Mechanism,
  alpha: number,
  epsilon: number,
  released: number,
  method: 'path-coupled' | 'boundary-coupled' = 'path-coupled',
  upper?: number,
  onStep?: (step: string) => void,
): WindowResult {
  const base = { method, mechanism, alpha, epsilon };
  if (alpha === Infinity)
    return {
      ...base,
      scale: null,
      explanation: 'the path bound charges every coupled path as a shift, and at α = ∞ its worst path is group DP: the MQM and group DP apply there',
    };
  const target = (alpha - 1) * epsilon;
  const boundary = method === 'boundary-coupled';
  if (boundary) {
    const why = noExactWindow([{ mechanism, scale: 1 }]);
    if (why) return { ...base, scale: null, explanation: why };
  }
  const exact = boundary ? { target, caches: model.chains.map(() => ({})), stopAtFailure: true, firstWindow: 0 } : undefined;
  // The bound at each scale tried, kept: the answer's binding is read from the one already computed.
  const tried = new Map<number, WindowBound>();
  const boundOf = (b: number) => {
    const hit = tried.get(b);
    if (hit) return hit;
    onStep?.(`${method} at α = ${alpha}: scale ${b.toPrecision(4)} (${tried.size + 1} tried)`);
    const bound = boundAt(model, lengths, mechanism, alpha, b, released, exact);
    // A failing scale is found failing at its binding window first next time.
    if (exact && bound.binding) exact.firstWindow = windowOf(lengths, bound.binding.time);
    tried.set(b, bound);
    return bound;
  };
  // D_α ≤ exponent/(α−1) ≤ ε: the exponent at most (α−1)ε for α > 1, at least it for α < 1.
  // A scale known to meet the bound (the path-coupled one meets the boundary-coupled bound, which
  // keeps the smaller of the two per pair) answers for every scale above it without evaluating: the
  // search takes the same steps, and gives the same scale, as without it.
  const meets = (b: number) => (upper !== undefined && b >= upper) || (alpha > 1 ? boundOf(b).exponent <= target : boundOf(b).exponent >= target);
  // The counts themselves may meet the budget (at α < 1 laws that overlap are finitely apart):
  // then no noise is needed, and none is released (checked, not inferred from a small scale).
  if (meets(0))
    return {
      ...base,
      scale: 0,
      explanation: `the window counts without noise meet ε at every time and pair by the ${method} bound (${precisionUp(boundOf(0).exponent / (alpha - 1), 6)} ≤ ${epsilon}): no noise is needed`,
    };
  let hi = Math.max(...lengths);
  // The threshold is first narrowed by regula falsi on the bound's ratio to the budget (few
  // evaluations); the geometric bisection below then reads its answers off that bracket, so it
  // takes the same steps and gives the same scale as alone, evaluating far fewer scales. The
  // boundary bound refines a pair only until it meets the budget (its ratio stops just under 1),
  // so there only failing scales' ratios are read, from below the path bound's scale, which fits.
  const ratio = (b: number) => boundOf(b).exponent / target;
  const bracket = narrowBracket(ratio, hi, 1e-7, 14, boundary ? { fitValues: false, ...(upper !== undefined ? { fits: upper } : {}) } : {});
  const fits = withinBracket(meets, bracket);
  // The bound tends to 0 as the scale grows, but its rounding charge does not: a budget below the
  // charge is met by no scale.
  const largest = 1e15 * Math.max(...lengths);
  const found = geometricBisection(fits, hi, largest);
  if (found === null) throw new InputError(`(α−1)ε = ${target} is below what the bound can certify at any scale; give a larger ε`, 'epsilon');
  // The bracket's fitting end, where it was evaluated below the bisection's answer, is a smaller
  // certified scale (its own bound met the budget) and needs no re-check.
  hi = tried.has(bracket.fit) && bracket.fit < found ? bracket.fit : found;
  const at = boundOf(hi);
  // The answer is the feasible end, re-checked (a shortcut above `upper` never stands in for it).
  if (!(alpha > 1 ? at.exponent <= target : at.exponent >= target))
    throw new NumericalError(`the ${method} bound does not meet the budget at the scale found, ${hi}`);
  const binding = at.binding ? { time: at.binding.time + 1, pair: [model.states[at.binding.a], model.states[at.binding.b]] as [string, string] } : undefined;
  return {
    ...base,
    scale: hi,
    ...(binding ? { binding } : {}),
    explanation: `${boundary ? "boundary-coupled bound (docs/math.md §19): the secret's window exactly, given its boundary states (maximal couplings of their laws given X_i = a and X_i = b), the other windows path-coupled (step by step, the past through the reversed chain); per time and pair the smaller of this and the path-coupled bound" : 'path-coupled bound (docs/math.md §19): the chains given X_i = a and X_i = b coupled step by step (maximal coupling; the past through the reversed chain), E[Π_w e^{(α−1)ρ(Δ_w)}]'} ${alpha > 1 ? '≤' : '≥'} e^{(α−1)ε} for every time and pair (joint ${alpha > 1 ? 'convexity' : 'concavity'}); bound ${precisionUp(at.exponent / (alpha - 1), 6)} at the scale${binding ? `, binding at X[${binding.time}] = ${binding.pair[0]} vs ${binding.pair[1]}` : ''}`,
  };
}

/** Orders searched for an (ε, δ) target of window counts (each is a whole calibration: a coarse grid). */
const WINDOW_DELTA_ALPHAS: readonly number[] = [1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64];

/**
 * An (ε, δ) target through the best order: at each α, the Rényi budget whose sharper conversion
 * gives ε at δ (`renyiBudgetFor`, its rounding charged); the smallest path-coupled scale over α.
 */
function pathCoupledDelta(
  model: MarkovModel,
  lengths: readonly number[],
  mechanism: Mechanism,
  target: { epsilon: number; delta: number },
  released: number,
  alphas: readonly number[],
  method: 'path-coupled' | 'boundary-coupled',
  onStep?: (step: string) => void,
): WindowResult {
  let best: WindowResult | null = null;
  for (const alpha of alphas) {
    if (!(alpha > 1 && Number.isFinite(alpha))) continue;
    const budget = renyiBudgetFor(target.epsilon, target.delta, alpha);
    if (!(budget > 0)) continue;
    let r: WindowResult;
    try {
      r = pathCoupled(model, lengths, mechanism, alpha, budget, released, method, undefined, onStep);
    } catch (e) {
      // An order whose budget the bound cannot certify (below its rounding charge) is passed over: others may.
      if (e instanceof InputError) continue;
      throw e;
    }
    if (r.scale === null && best === null) return { ...r, alpha: Infinity, epsilon: target.epsilon, target };
    if (r.scale !== null && (best === null || r.scale < best.scale!)) best = r;
  }
  if (best === null)
    return {
      method,
      mechanism,
      alpha: Infinity,
      epsilon: target.epsilon,
      scale: null,
      target,
      explanation: alphas.some((a) => a > 1 && Number.isFinite(a))
        ? `no order in {${alphas.map(numberText).join(', ')}} leaves a Rényi budget the ${method} bound certifies for (ε = ${target.epsilon}, δ = ${target.delta})`
        : `the ${method} bound goes through finite orders α > 1, and the orders given ({${alphas.map(numberText).join(', ')}}) have none`,
    };
  return {
    ...best,
    target,
    explanation: `(ε = ${target.epsilon}, δ = ${target.delta}) through α = ${best.alpha} (Rényi budget ${precisionDown(best.epsilon, 6)} by the sharper conversion), the best of ${alphas.filter((a) => a > 1 && Number.isFinite(a)).length} orders. ${best.explanation}`,
  };
}

/**
 * How many of `n` windows are released (default all): a whole number from 1 to n.
 * @example releasedWindows(undefined, 12) // 12
 */
export function releasedWindows(released: number | undefined, n: number, field = '--windows-released'): number {
  const k = released ?? n;
  if (!(Number.isSafeInteger(k) && k >= 1 && k <= n)) throw new InputError(`must be a whole number from 1 to the ${n} windows`, field);
  return k;
}

/** Whether some time has two states of positive probability under some chain (a secret pair to protect); an eigengap class's chains may be any. */
function hasSecretPair(model: MarkovModel): boolean {
  if (model.eigengap) return model.states.length > 1;
  return model.chains.some((c) => {
    let found = false;
    walkPossibleStates(c, model.length, (possible) => (found = possible.length >= 2));
    return found;
  });
}

/** What every window operation takes, checked at the library's edge: a chain, windows tiling it, settings naming a noise family. */
export function checkWindowInputs(model: MarkovModel, lengths: readonly number[], s: { mechanism: Mechanism }): void {
  checkShape(OBJECT, model, 'model');
  checkShape(ARRAY, lengths, 'lengths');
  checkShape(OBJECT, s, 'settings');
  checkWindows(lengths, model.length);
  const own = model.windows;
  if (own && (own.length !== lengths.length || own.some((L, i) => L !== lengths[i])))
    throw new InputError(`are [${lengths.join(', ')}], but the chain's query gives its windows: [${own.join(', ')}]`, 'lengths');
  windowContribution(model);
  mechanismDef(s.mechanism);
}

/**
 * The library's edge of `calibrateWindows`: shapes, the windows, the family, the method and the target's numbers, each refused by name.
 */
function checkWindowSettings(model: MarkovModel, lengths: readonly number[], s: WindowSettings): void {
  checkWindowInputs(model, lengths, s);
  if (!(WINDOW_METHODS as readonly string[]).includes(s.method)) throw unknownName('method', String(s.method), WINDOW_METHODS, 'method', 'one of ');
  checkSetting('epsilon', s.epsilon);
  if (s.delta === undefined) {
    if (typeof s.alpha !== 'number' || !(s.alpha > 0) || s.alpha === 1)
      throw new InputError(`must be a Rényi order > 0 other than 1, or Infinity, got ${String(s.alpha)}`, 'alpha');
  } else checkSetting('delta', s.delta);
}

/**
 * The noise per window of the vector of window counts of a chain class: `path-coupled` (α > 1),
 * `mqm-exact` and `group-dp` (ε-Pufferfish of the whole vector, so every α; the vector is
 * ℓ₁-Lipschitz like the whole count), or `best`, the smallest that applies. With `released` = K,
 * only the first K windows are out (a series released as it happens). With `delta`, an (ε, δ)
 * target through the best of `alphas` (default `WINDOW_DELTA_ALPHAS`).
 * @example calibrateWindows(validateSpec({ states: ['a', 'b'], chains: [{ name: 'c', transition: [[0.9, 0.1], [0.2, 0.8]], initial: 'stationary' }], length: 6, query: { count: 'b' } }), [3, 3], { mechanism: 'laplace', method: 'group-dp', alpha: 2, epsilon: 1 }).scale // 6
 */
export function calibrateWindows(model: MarkovModel, lengths: readonly number[], s: WindowSettings, onStep?: (step: string) => void): WindowResult {
  checkWindowSettings(model, lengths, s);
  // As the whole count's law source does: a class with no secret pair is refused, not answered "no noise".
  if (!hasSecretPair(model)) throw noSecretPair();
  const released = releasedWindows(s.released, lengths.length);
  // ε-Pufferfish (the MQM, group DP) is (ε, δ) for every δ: their scale at ε meets the target.
  const base = {
    mechanism: s.mechanism,
    alpha: s.delta === undefined ? s.alpha : Infinity,
    epsilon: s.epsilon,
    ...(s.delta !== undefined ? { target: { epsilon: s.epsilon, delta: s.delta } } : {}),
  };
  const laplaceOnly = (method: 'mqm-exact' | 'group-dp') =>
    s.mechanism === FAMILY_OF.default ? null : `${method} calibrates ${FAMILY_OF.default} noise for ε-Pufferfish`;
  const one = (method: Exclude<WindowMethod, 'best'>, upper?: number): WindowResult => {
    if (method === 'path-coupled' || method === 'boundary-coupled')
      return s.delta === undefined
        ? pathCoupled(model, lengths, s.mechanism, s.alpha, s.epsilon, released, method, upper, onStep)
        : pathCoupledDelta(model, lengths, s.mechanism, { epsilon: s.epsilon, delta: s.delta }, released, s.alphas ?? WINDOW_DELTA_ALPHAS, method, onStep);
    const why = laplaceOnly(method);
    if (why) return { ...base, method, scale: null, explanation: why };
    return wholeVector(model, lengths, released, method, s, base);
  };
  if (s.method !== 'best') return one(s.method);
  // In `best` a method that cannot certify this budget (a refusal) is n/a, and the others answer.
  const tried = (method: Exclude<WindowMethod, 'best'>, upper?: number): WindowResult => {
    try {
      return one(method, upper);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      return { ...base, method, scale: null, explanation: e.reason };
    }
  };
  const path = tried('path-coupled');
  const all = [tried('boundary-coupled', path.scale ?? undefined), path, tried('mqm-exact'), tried('group-dp')];
  const applies = all.filter((r) => r.scale !== null);
  if (applies.length === 0) throw new InputError(`no window method applies: ${all.map((r) => `${r.method}: ${r.explanation}`).join('; ')}`, 'method');
  const won = applies.reduce((a, b) => (b.scale! < a.scale! ? b : a));
  return {
    ...won,
    winner: won.method,
    explanation: `best of ${all.map((r) => `${r.method} ${r.scale === null ? 'n/a' : precisionUp(r.scale, 6)}`).join(', ')}: ${won.method} wins. ${won.explanation}${naReasons(all)}`,
  };
}

/**
 * The MQM or group DP for the vector of window counts: ε-Pufferfish of the whole vector, so for every
 * α; with an (ε, δ) target each order's Rényi budget is a budget for it (D_α ≤ D∞), and the order with
 * the smallest scale wins (α = ∞ at ε unless δ is large).
 */
function wholeVector(
  model: MarkovModel,
  lengths: readonly number[],
  released: number,
  method: 'mqm-exact' | 'group-dp',
  s: { epsilon: number; delta?: number; alphas?: readonly number[] },
  base: Omit<WindowResult, 'method' | 'scale' | 'explanation'>,
): WindowResult {
  const L = model.lipschitz;
  // Group DP needs only the steps of the released windows: the others move nothing released.
  const steps = lengths.slice(0, released).reduce((a, b) => a + b, 0);
  const at = (epsilon: number) =>
    method === 'group-dp' ? groupDp(steps, epsilon, L) : mqmExact(quiltChains(model), model.length, epsilon, { lipschitz: L }).scale;
  const span = method === 'group-dp' && steps < model.length ? ` (the ${released} released window(s) span ${steps} of the ${model.length} steps)` : '';
  const moves = `one X_t moves the vector by at most ${L} in ℓ₁, as it moves the whole count`;
  if (s.delta === undefined)
    return { ...base, method, scale: at(s.epsilon), explanation: `${method} for the whole vector at α = ∞ (${moves})${span}, so for every α` };
  // An (ε, δ) target: ε′-Pufferfish gives D_α ≤ ε′ at every α, so each order's Rényi budget is a
  // budget for it; the order with the smallest scale wins (α = ∞ at ε unless δ is large).
  const orders = (s.alphas ?? DEFAULT_DELTA_ALPHAS).map((alpha) => ({
    alpha,
    epsilon: alpha === Infinity ? s.epsilon : renyiBudgetFor(s.epsilon, s.delta!, alpha),
  }));
  const tried = orders.filter((o) => o.alpha > 1 && o.epsilon > 0).map((o) => ({ ...o, scale: at(o.epsilon) }));
  if (!tried.length) return { ...base, method, scale: null, explanation: `no order leaves a positive Rényi budget for (ε = ${s.epsilon}, δ = ${s.delta})` };
  const won = tried.reduce((a, b) => (b.scale < a.scale ? b : a));
  return {
    ...base,
    method,
    alpha: won.alpha,
    epsilon: won.epsilon,
    scale: won.scale,
    explanation: `${method} makes the whole vector ε′-Pufferfish (${moves})${span}, so D_α ≤ ε′ at every α: calibrated at ε′ = ${precisionDown(won.epsilon, 6)}, the Rényi budget at α = ${numberText(won.alpha)} for (ε = ${s.epsilon}, δ = ${s.delta}), the smallest scale over ${tried.length} orders`,
  };
}

/** Why each method of `best` that gave no scale did not, once per distinct reason (the boundary bound repeats the path bound's). */
function naReasons(all: readonly WindowResult[]): string {
  const why = new Map<string, string[]>();
  for (const r of all) if (r.scale === null) why.set(r.explanation, [...(why.get(r.explanation) ?? []), r.method]);
  return [...why].map(([reason, methods]) => `. ${methods.join(', ')} n/a: ${reason}`).join('');
}
