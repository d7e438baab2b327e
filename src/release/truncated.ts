import type { CalibrationSettings } from '../calibrate/rules.js';
import { ARRAY, checkShape, OBJECT } from '../shapes.js';
import { massErrorCharge, type Scenario } from '../distribution/scenario.js';
import { byLaw, type AnyScenario } from '../distribution/lawKind.js';
import { pairCouplings } from '../coupling/pairs.js';
import { nearPairs } from '../mechanisms/exactRule.js';
import type { Discrete, Law } from '../distribution/discrete.js';
import type { Bounded } from '../numerics/logExpectation.js';
import { EPS } from '../numerics/float.js';
import { exactRenyi, logMassIn } from '../divergence/exactRenyi.js';
import { exactDInf, proportionalTails } from '../mechanisms/kernels.js';
import type { Noise } from '../divergence/kernel.js';
import { mechanismNoise } from '../calibrate/mechanismNoise.js';
import { mechanismDef } from '../mechanisms/registry.js';
import { budgetBelowCharge, InputError } from '../errors.js';
import { bracketAbove, bracketBelow } from '../numerics/bracket.js';
import { isFeasible, type Evaluation } from '../numerics/smallestScale.js';
import { solveUnits } from '../calibrate/driver.js';
import { numberText, precisionUp } from '../numerics/decimal.js';

/** Below this probability of landing in the interval, a truncated release is refused. */
export const NEGLIGIBLE_MASS = 1e-9;

/** A truncated release's calibration: the scale, the binding pair, the check and the smallest interval mass. */
export interface TruncatedCalibration {
  scale: number;
  /** null when no pair needs noise. */
  binding: { prior: string; pair: [string, string] } | null;
  check: Evaluation;
  /** Smallest probability of the interval for a value of the support at `scale` (each value's noise is redrawn until it lands there). */
  minMass: number;
  explanation: string;
}

/**
 * Laplace-shaped noise, [lo, hi] beyond every atom of both laws (on one side): both output
 * densities are c·e^{∓y/b} there, so the truncated laws coincide at every scale.
 */
function beyondAllAtoms(p: Discrete, q: Discrete, [lo, hi]: [number, number]): boolean {
  const min = Math.min(p.values[0], q.values[0]),
    max = Math.max(p.values[p.values.length - 1], q.values[q.values.length - 1]);
  return max <= lo || min >= hi;
}

/**
 * A secret's output law under truncation (docs/math.md §5). X = x is the data and only the noise is
 * redrawn, so atom x releases f(y − x)·1_I/F_x(I), F_x(I) its own chance of landing in I, and the
 * secret's law is Σ_x P(x)·f(y − x)·1_I/F_x(I): the mixture of P reweighted by 1/F_x(I), restricted
 * to I and renormalised. Each log F_x(I) is certified within δ_x, so each reweighted mass is within
 * e^{±2δ} of the true one, plus the few ulps of normalising: returned as `massError` (relative).
 */
function redrawnLaw(d: Law, logF: Map<number, Bounded>): { law: Law; massError: number } {
  const n = d.values.length;
  const lw = new Float64Array(n);
  let top = -Infinity,
    delta = 0;
  for (let i = 0; i < n; i++) {
    const f = logF.get(d.values[i])!;
    lw[i] = d.masses[i] > 0 ? Math.log(d.masses[i]) - f.value : -Infinity;
    if (d.masses[i] > 0) delta = Math.max(delta, f.error);
    top = Math.max(top, lw[i]);
  }
  const w = lw.map((l) => Math.exp(l - top));
  const total = w.reduce((a, x) => a + x, 0);
  const masses = w.map((x) => x / total);
  return { law: { values: d.values, masses }, massError: Math.expm1(2 * delta + (n + 8) * EPS) };
}

/** log F_x(I) of every atom of the laws at one noise scale: each atom's chance of landing in I. */
function atomMasses(laws: readonly Law[], noise: Noise, interval: [number, number]): Map<number, Bounded> {
  const out = new Map<number, Bounded>();
  for (const d of laws)
    for (const x of d.values) if (!out.has(x)) out.set(x, logMassIn({ values: Float64Array.of(x), masses: Float64Array.of(1) }, noise, interval));
  return out;
}

/**
 * Exact D_α of the truncated outputs, worst direction, as a condition ≤ ε (the reweighting's error
 * charged); `quick`: a check at one scale, certified with a looser error (negligible gaps bounded).
 */
function truncatedEvaluation(
  p: Law,
  q: Law,
  noise: Noise,
  alpha: number,
  epsilon: number,
  ordered: boolean,
  interval: [number, number],
  quick = false,
): Evaluation {
  const logF = atomMasses([p, q], noise, interval);
  for (const f of logF.values()) if (!Number.isFinite(f.value) || !Number.isFinite(f.error)) return { value: Infinity, error: 0, target: epsilon, sense: 'le' };
  const [rp, rq] = [redrawnLaw(p, logF), redrawnLaw(q, logF)];
  const charge = massErrorCharge(Math.max(rp.massError, rq.massError), alpha);
  let value = -Infinity,
    error = 0;
  for (const [a, b] of ordered
    ? [[rp.law, rq.law]]
    : [
        [rp.law, rq.law],
        [rq.law, rp.law],
      ]) {
    const d = alpha === Infinity ? (exactDInf(noise, a, b, interval) ?? { value: Infinity, error: 0 }) : exactRenyi(a, b, noise, alpha, { interval, quick });
    if (!Number.isFinite(d.value)) return { value: Infinity, error: 0, target: epsilon, sense: 'le' };
    if (d.value + d.error > value + error) {
      value = d.value;
      error = d.error;
    }
  }
  return { value, error: error + charge, target: epsilon, sense: 'le' };
}

/** A truncation interval [LO, HI] with LO < HI (an end may be infinite). */
export function checkTruncation(lo: number, hi: number): void {
  if (!(Number.isFinite(lo) || lo === -Infinity) || !(Number.isFinite(hi) || hi === Infinity) || !(lo < hi))
    throw new InputError(`needs LO < HI, got [${lo}, ${hi}]`, 'truncate');
}

/**
 * Calibrates a truncated release (Fu et al.; docs/math.md §5): outputs outside [lo, hi] are redrawn,
 * the noise only, so each secret's output law is the mixture over its values x of x + noise
 * restricted to the interval and renormalised on its own, and
 * the untruncated calibration does not carry over (the Laplace counterexamples exceed the
 * untruncated RDP). For each prior and pair the exact D_α of the truncated outputs is searched:
 * up by doubling from the W∞ scale until it meets ε, down by halving until it fails, then
 * Brent's method to the feasible end of that bracket. Truncation is not post-processing, so
 * D_α need not be monotone in the scale: the answer is always verified to meet ε, and is the
 * least such scale within the bracket found (minimality is local).
 * @example calibrateTruncated(builtinScenario('heart'), { mechanism: 'laplace', method: 'exact', alpha: 2, epsilon: 1 }, [0, 3]).scale
 */
export function calibrateTruncated(scenario: AnyScenario, settings: CalibrationSettings, interval: [number, number]): TruncatedCalibration {
  checkShape(OBJECT, settings, 'settings');
  checkShape(ARRAY, interval, 'interval');
  return byLaw(scenario, { finite: (s) => truncatedFinite(s, settings, interval) }, 'a truncated release', 'truncate');
}

function truncatedFinite(scenario: Scenario, settings: CalibrationSettings, interval: [number, number]): TruncatedCalibration {
  const [lo, hi] = interval;
  checkTruncation(lo, hi);
  if (!(settings.alpha > 0) || settings.alpha === 1) throw new InputError(`must be in (0, 1) ∪ (1, ∞] for a truncated release, got ${settings.alpha}`, 'alpha');
  const outside = settings.alpha === Infinity ? mechanismDef(settings.mechanism).alphaRange(Infinity) : null;
  if (outside) throw new InputError(outside, 'alpha');
  if (!(settings.epsilon > 0))
    throw new InputError(`must be > 0 for a truncated release (ε = 0 would need identical output laws), got ${settings.epsilon}`, 'epsilon');
  if (scenario.lawsNotApplicable) throw new InputError(`has no laws for a truncated release: ${scenario.lawsNotApplicable}`, 'truncate');
  // Computed laws (a chain's): each truncated density is the law's within (1 ± μ) over its mass in
  // the interval, also within (1 ± μ), so within 2μ/(1 − μ) of the true one: charged to the budget.
  const mu = scenario.massError ?? 0;
  const charge = mu > 0 ? massErrorCharge((2 * mu) / (1 - mu), settings.alpha) : 0;
  if (!(settings.epsilon > charge)) throw budgetBelowCharge(charge);
  const epsilon = settings.epsilon - charge;
  const ordered = scenario.ordered ?? false;
  const laplaceShaped = proportionalTails(mechanismNoise(settings, 1));
  const beyond = `[${lo}, ${hi}] lies beyond every atom of the pair, where each Laplace-shaped output density is proportional to the same e^{∓y/b}: the truncated outputs are one law at every scale`;
  // Each atom's noise must range over [lo − x, hi − x]: an interval whose ends are one double there cannot be integrated.
  const pcs = pairCouplings(scenario);
  for (const pc of pcs)
    for (const x of [...pc.p.values, ...pc.q.values])
      if (!(hi - x > lo - x))
        throw new InputError(`[${lo}, ${hi}] is narrower than the doubles resolve at the value ${x} (its ends coincide there): widen it`, 'truncate');
  // Pairs checked at the scale last tried, with their certified levels: a pair whose laws are near
  // one of theirs is certified from it (docs/math.md §5: a truncated output is Σ_x P(x)·g_x with
  // each g_x the same for both laws, so P ≤ e^δ·P′ carries over to the outputs as untruncated).
  const near = nearPairs(settings.alpha, epsilon);
  const units = pcs.map((pc) => {
    const label = { p: pc.p, q: pc.q, prior: pc.prior, pair: [pc.pair[0], pc.pair[1]] as [string, string] };
    if (laplaceShaped && beyondAllAtoms(pc.p, pc.q, interval)) return { label, problem: { zero: beyond } };
    const evaluate = (s: number, quick = false) =>
      truncatedEvaluation(pc.p, pc.q, mechanismNoise(settings, s), settings.alpha, epsilon, ordered, interval, quick);
    // π*'s W∞ by the walk (the very number the built coupling gives, without building it), for the pairs searched only.
    const start = () => Math.max(pc.exactWInf / epsilon, Number.isFinite(hi - lo) ? (hi - lo) * 1e-6 : 0, 1e-12);
    return {
      label,
      // One evaluation: whether the pair holds at a scale another pair already needs.
      holdsAt: (s: number) => {
        if (near.holds(pc, ordered, s)) return true;
        const e = evaluate(s, true);
        near.remember(pc, s, e);
        return isFeasible(e);
      },
      problem: () => {
        const full = (s: number) => evaluate(s);
        const up = bracketAbove(full, start(), `truncated calibration, prior '${pc.prior}', pair ${label.pair.join(' vs ')}`);
        // Not known to be monotone: the bracket follows the last feasible scale (minimality is local).
        return { evaluate: full, ...bracketBelow(full, up, { halvings: 80, tighten: true }), rtol: 1e-10 };
      },
    };
  });
  if (units.length === 0) throw new InputError('no secret pairs', 'pairs');
  // A pair is searched only where it fails at the largest scale searched so far; every pair is
  // re-checked at the final scale, which is what the guarantee needs (no monotonicity is leaned on:
  // the scale is the binding pair's own, verified for every pair).
  const sol = solveUnits(
    units,
    (l) => `prior '${l.prior}', pair ${l.pair.join(' vs ')} (truncated; calibrate pairs separately)`,
    undefined,
    undefined,
    undefined,
    true,
  );
  if (sol.scale === 0) {
    return {
      scale: 0,
      binding: null,
      check: { value: 0, error: 0, target: settings.epsilon, sense: 'le' },
      minMass: 0,
      explanation: `[${lo}, ${hi}] lies beyond every atom of every secret pair, where each Laplace-shaped output density is proportional to the same e^{∓y/b}: the truncated outputs are one law for every scale, D_α = 0, and no noise is needed for privacy (docs/math.md, "Truncated releases").`,
    };
  }
  const best = { scale: sol.scale, prior: sol.top.label.prior, pair: sol.top.label.pair, check: sol.check! };
  const solved = sol.units.filter((u) => u.problem).map((u) => u.label);
  // The noise is redrawn until it lands in I: a release checks its own value's chance; here the
  // interval is refused only when no value of the support has a usable one.
  let logMin = 0,
    logMax = -Infinity;
  for (const f of atomMasses(
    solved.flatMap((s) => [s.p, s.q]),
    mechanismNoise(settings, best.scale),
    interval,
  ).values()) {
    logMin = Math.min(logMin, f.value);
    logMax = Math.max(logMax, f.value);
  }
  const minMass = Math.exp(logMin);
  if (Math.exp(logMax) < NEGLIGIBLE_MASS) {
    throw new InputError(
      `[${lo}, ${hi}] has probability at most e^${logMax.toFixed(1)} for every value of the support at the calibrated scale: negligible (below ${NEGLIGIBLE_MASS}); widen it`,
      'truncate',
    );
  }
  return {
    scale: best.scale,
    binding: { prior: best.prior, pair: best.pair },
    check: best.check,
    minMass,
    explanation:
      `exact accountant of the truncated release on [${numberText(lo)}, ${numberText(hi)}]: D_α of each secret's output law (each value's noise restricted to the interval and renormalised on its own) ≤ ε (verified); bound by prior '${best.prior}', pair ${best.pair.join(' vs ')}.` +
      (charge > 0 ? ` The laws' floating-point error is charged to the budget: calibrated at ε − ${precisionUp(charge, 3)}.` : ''),
  };
}
