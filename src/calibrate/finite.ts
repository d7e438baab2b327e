import { checkContaminationFor, checkLawsFor, mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { oneCoordinate, type CalibrationKind, type PairLabel } from './kind.js';
import { InputError } from '../errors.js';
import type { Unit } from './driver.js';
import { checkContamination, contaminatedProblem, robustNote, type ContaminatedProblem } from './contamination.js';
import { EPS } from '../numerics/float.js';
import { applicableMethods, calibrationRule, type CalibrationSettings, type SingleMethod } from './rules.js';
import { lawsError, massErrorCharge, pairsOf, priorPairs, type Scenario } from '../distribution/scenario.js';
import { pairCouplings, type PairCoupling } from '../coupling/pairs.js';
import { dataDivergence } from '../divergence/dataDivergence.js';
import { isNotApplicable, type NoNoise } from '../mechanisms/mechanism.js';
import { exactLimits as kernelLimits } from '../mechanisms/kernels.js';
import { sameLaw } from '../distribution/discrete.js';
import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import { exactEvaluation } from '../conditions/exact.js';
import { hasSource, IDENTICAL, isSourceMethod, lawSettings, lawsOnly, noiseVariance, type SourceMethodName } from './result.js';
import { precisionUp } from '../numerics/decimal.js';

/** The exact accountant's limits for these settings (Gaussian's, the stricter, if it has none). */
function exactLimits(settings: CalibrationSettings) {
  const acc = mechanismDef(settings.mechanism).accountant(noiseOptions(settings));
  return kernelLimits(isNotApplicable(acc) ? null : acc(1));
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

/**
 * N releases of X carry no more than X itself: when D_α(P_X‖Q_X) ≤ ε (every required
 * direction) no noise is needed, whatever the method (data processing, docs/math.md §9). For one
 * release only `exact` says so, keeping the other methods' single-release numbers as published.
 */
function dataAlreadyMeets(pc: PairCoupling, s: CalibrationSettings, ordered: boolean): NoNoise | null {
  const worst = dataDivergence(pc, s.alpha, ordered);
  return worst <= s.epsilon
    ? { zero: `data processing: D_α(P_X‖Q_X) = ${precisionUp(worst, 6)} ≤ ε for the data itself, so any number of releases of it already meets the budget` }
    : null;
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

/** Atoms the exact accountant reads over a calibration's units from which it repays every core (seconds of work a unit). */
const HEAVY_EXACT_ATOMS = 200_000;

/**
 * Whether a calibration is heavy enough to take every core by default (`defaultThreads`): exact
 * accounting runs (`exact`, or `best` with exact in it) and its (prior, pair) units' atoms add up to
 * 2·10⁵ or more. A Seattle weather chain of 120 days (1 200 units of 242 atoms) calibrates 1.5×
 * faster on two threads than on one; at 60 days (7·10⁴ atoms) two threads gain nothing. A law
 * source's laws are read only where exact would read them.
 * @example heavyCalibration(builtinScenario('heart'), { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 }) // false
 */
export function heavyCalibration(scenario: AnyScenario, settings: CalibrationSettings): boolean {
  try {
    return byLaw(scenario, { finite: (s) => heavyFinite(s, settings), points: () => false, mixture: () => false }, 'the thread count');
  } catch {
    // Input the calibration refuses is not heavy: the calibration itself says what is wrong.
    return false;
  }
}

function heavyFinite(scenario: Scenario, settings: CalibrationSettings): boolean {
  if (settings.method !== 'exact' && settings.method !== 'best') return false;
  if (hasSource(scenario) && lawSettings(scenario, settings) === null) return false;
  const laws = hasSource(scenario) ? lawsOnly(scenario) : scenario;
  // One prior with many pairs is searched for its largest pair only, on one thread (`largestOnly`).
  if (largestOnly(laws)) return false;
  if (settings.method === 'best' && !bestMethods(laws, settings).methods.includes('exact')) return false;
  let atoms = 0;
  for (const { prior, pair } of priorPairs(laws).units) atoms += prior.conditionals[pair[0]].values.length + prior.conditionals[pair[1]].values.length;
  return atoms >= HEAVY_EXACT_ATOMS;
}

export type UnitLabel = { prior: string; pair: [string, string] };

/** Pairs from which one prior's calibration searches only the largest pair's scale (`solveUnits`' largestOnly). */
const LARGEST_ONLY_PAIRS = 256;

/**
 * Whether a calibration searches only its largest pair's scale, checking the others there: one prior
 * (a prior class's spread needs each prior's own scale) with many pairs, e.g. a chain's secret times.
 * The scale is the same; the other pairs' scales are reported as at most it.
 * @example largestOnly(builtinScenario('heart')) // false
 */
export function largestOnly(scenario: Scenario): boolean {
  return scenario.priors.length === 1 && pairsOf(scenario).length >= LARGEST_ONLY_PAIRS;
}

/**
 * Whether `scale` is certainly below every scale these settings could certify: at `scale` the exact
 * divergence of the (prior, pair) `label`, less its certified error, exceeds ε. D_α of the outputs
 * falls as the scale grows (docs/math.md §4), and every method certifies a scale where the true
 * D_α is at most ε, so each of their scales is then larger. Answered only where the exact
 * accountant runs anyway (`exact`, or `best` within the exact limits; one release, no
 * contamination; computed laws with their mass-error charge); false claims nothing.
 * @example certainlyTooSmall(builtinScenario('heart'), { mechanism: 'laplace', method: 'best', alpha: 2, epsilon: 1 }, 0.01, { prior: 'empirical', pair: ['0', '1'] }) // true
 */
export function certainlyTooSmall(scenario: Scenario, settings: CalibrationSettings, scale: number, label: UnitLabel): boolean {
  if ((settings.releases ?? 1) !== 1 || settings.contamination || scenario.lawsNotApplicable || !(scale > 0)) return false;
  if (settings.method !== 'exact' && !(settings.method === 'best' && bestMethods(scenario, settings).methods.includes('exact'))) return false;
  const accountant = mechanismDef(settings.mechanism).accountant(noiseOptions(settings));
  const prior = scenario.priors.find((p) => p.name === label.prior);
  const [p, q] = label.pair.map((s) => prior?.conditionals[s]);
  if (isNotApplicable(accountant) || !p || !q) return false;
  const e = exactEvaluation(p, q, accountant(scale), settings.alpha, settings.epsilon, scenario.ordered ?? false);
  // Computed laws (a chain's) are within their mass error of the true ones: the charge bounds how far
  // that moves D_α either way, so the true divergence is above ε too (and so for the chain's own methods).
  const charge = hasSource(scenario) ? massErrorCharge(lawsError(scenario), settings.alpha) : 0;
  return e.value - e.error - charge > settings.epsilon;
}

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

const NO_MOVE = 'W∞ = 0: the two conditionals coincide up to their rounding (charged to the budget), so Y = X reveals nothing about the pair';

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
  const holdsAt = rule.holdsAt && n === 1 && !cont ? rule.holdsAt : undefined;
  const noNoise = rule.noNoise && n === 1 && !cont ? rule.noNoise : undefined;
  return pcs.map((pc) => ({
    label: { prior: pc.prior, pair: [pc.pair[0], pc.pair[1]] as [string, string] },
    ...(holdsAt ? { holdsAt: (scale: number) => holdsAt(pc, ordered, scale) } : {}),
    ...(noNoise ? { noNoise: () => (sameLaw(pc.p, pc.q) ? IDENTICAL : noNoise(pc, ordered)) } : {}),
    problem: () => {
      const built = sameLaw(pc.p, pc.q) ? { zero: IDENTICAL } : (n > 1 && dataAlreadyMeets(pc, settings, ordered)) || rule.problem(pc, ordered);
      // A W∞ rule on laws equal up to their floating-point rounding (a chain's laws: W∞ is read with
      // the rounding as a tie, which the mass-error charge covers) has the bracket [0, 0]: no noise.
      const base = 'upper' in built && built.upper === 0 && pc.wInf === 0 ? { zero: NO_MOVE } : built;
      return cont ? contaminatedProblem(base, pc, cont, { alpha: settings.alpha, epsilon: settings.epsilon, ordered }, point) : base;
    },
  }));
}

/**
 * Finite laws on ℝ as a kind of the one calibration: comonotone couplings, the exact accountant,
 * a law source's methods and mass error (handled by the calibration itself), and the check that
 * the α = ∞ run cannot win (`certainlyTooSmall`).
 */
export const FINITE: CalibrationKind<Scenario, UnitLabel> = {
  check(scenario, settings) {
    checkLawsFor(settings.mechanism, scenario);
    if (settings.contamination) checkContaminationFor(settings.mechanism);
    return oneCoordinate(settings);
  },
  bestMethods,
  units(scenario, settings) {
    if (isSourceMethod(settings.method))
      throw new InputError(`'${settings.method}' applies to Markov-chain sources only (a "markov" spec or --sequence)`, 'method');
    return calibrationUnits(scenario, settings);
  },
  largestOnly,
  // Every α = ∞ method (the chain's own too) certifies a true D∞ ≤ ε: a scale certainly too small
  // for α = ∞ at r's binding pair is below each of theirs, and r stands without that run.
  infinityLarger: (scenario, settings, r) => r.binding !== null && certainlyTooSmall(scenario, { ...settings, alpha: Infinity }, r.scale, r.binding),
  text(_scenario, settings, sol) {
    const rule = calibrationRule(settings);
    const n = settings.releases ?? 1;
    const cont = settings.contamination && settings.contamination.lambda > 0 ? settings.contamination : null;
    const def = mechanismDef(settings.mechanism);
    return {
      settings,
      parameter: def.parameter,
      variance: noiseVariance(settings, sol.scale),
      rule: rule.rule,
      meets: `with ${rule.condition}`,
      symbol: def.symbol,
      before: n > 1 ? `For ${n} releases of the same value, together: ` : '',
      after: cont ? robustNote(cont, [cont.domain], sol.scale > 0 ? (sol.top.problem as ContaminatedProblem).terms(sol.scale) : null) : '',
      noise: def.describe(noiseOptions(settings)),
      tail: settings.contamination ? { contamination: settings.contamination } : {},
    };
  },
};

/** Per (prior, pair): the method whose condition certifies a given scale (`zero`: no noise needed), or null. */
export interface Certification {
  certified: boolean;
  units: { label: PairLabel; by: SingleMethod | SourceMethodName | 'zero' | null }[];
}
