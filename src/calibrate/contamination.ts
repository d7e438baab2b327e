import { checkSetting } from '../settings.js';
import { InputError } from '../errors.js';
import type { NoNoise } from '../mechanisms/mechanism.js';
import { bracketAbove, bracketBelow } from '../numerics/bracket.js';
import { EPS } from '../numerics/float.js';
import type { Bounded } from '../numerics/logExpectation.js';
import type { Evaluation, ScaleProblem } from '../numerics/smallestScale.js';
import type { Scenario } from '../distribution/scenario.js';
import type { PairCoupling } from '../coupling/pairs.js';
import { dataDivergence } from '../divergence/dataDivergence.js';

/**
 * The ε-contamination class of robust Bayesian analysis: every prior whose conditionals are
 * (1 − λ′)·P + λ′·A for some λ′ ≤ λ, P a conditional of the current class and A any law on the
 * domain [lo, hi] (docs/math.md §10).
 */
export interface Contamination {
  lambda: number;
  domain: [number, number];
}

/** Checks λ and the domain, and that every atom of every conditional lies in the domain. */
export function checkContamination(c: Contamination, scenario: Scenario): void {
  checkSetting('contamination', c.lambda);
  const [lo, hi] = c.domain ?? [];
  if (!(Number.isFinite(lo) && Number.isFinite(hi) && lo < hi)) throw new InputError(`needs finite LO < HI, got [${lo}, ${hi}]`, 'domain');
  for (const p of scenario.priors) {
    for (const [secret, d] of Object.entries(p.conditionals)) {
      const out = Array.from(d.values).find((x) => x < lo || x > hi);
      if (out !== undefined)
        throw new InputError(
          `value ${out} of secret '${secret}' (prior '${p.name}') lies outside [${lo}, ${hi}]; widen the domain to cover every value`,
          'domain',
        );
    }
  }
}

/**
 * A method's condition read back as a bound on D_α: every "≤" condition here has the form
 * c·D ≤ c·ε (c = α − 1 for the log-moment forms, 1 otherwise), so D ≤ value·ε/target; the two
 * roundings are charged. "≥" forms (Proposition 1) give nothing here (∞).
 */
function methodBound(e: Evaluation, epsilon: number): number {
  if (e.sense !== 'le' || !(e.target > 0)) return Infinity;
  const d = ((e.value + e.error) * epsilon) / e.target;
  return d + 4 * EPS * Math.abs(d);
}

export interface ContaminatedProblem extends ScaleProblem {
  /** The two terms at a scale: (1−λ)e^{(α−1)D} from the class, λe^{(α−1)ρ} from the contamination (logs). */
  terms(scale: number): { data: number; contamination: number };
}

/**
 * The condition for the contaminated class (docs/math.md §10). With D a certified bound on
 * D_α(P_Y‖Q_Y) (the method's, capped by the data's own divergence and by ρ) and ρ the noise's divergence
 * between points the domain width apart, joint convexity (α > 1; concavity, α < 1) gives
 *   D_α(P′_Y‖Q′_Y) ≤ f = 1/(α−1)·log((1−λ′)e^{(α−1)D} + λ′e^{(α−1)ρ}),
 * monotone in λ′, so the class up to λ needs max(D, f(λ)); α = ∞: max(D, ρ) (mediant inequality).
 * f is a weighted log-sum-exp: its error is at most D's and ρ's plus the rounding of a few ops.
 */
export function contaminatedProblem(
  base: ScaleProblem | NoNoise,
  pc: PairCoupling,
  c: Contamination,
  s: { alpha: number; epsilon: number; ordered: boolean },
  point: (scale: number) => Bounded,
): ContaminatedProblem {
  const { alpha, epsilon } = s;
  const data = dataDivergence(pc, alpha, s.ordered);
  const lam = c.lambda;
  const terms = (scale: number) => {
    const r = point(scale);
    // Laws on the domain never differ by more than ρ (quasi-convexity over any coupling; ρ grows with the distance).
    const D = Math.min(data, r.value + r.error, 'zero' in base ? Infinity : methodBound(base.evaluate(scale), epsilon));
    const a = alpha === Infinity ? 1 : alpha - 1;
    return { data: Math.log1p(-lam) + a * D, contamination: Math.log(lam) + a * (r.value + r.error), D, rho: r.value + r.error };
  };
  const evaluate = (scale: number): Evaluation => {
    const t = terms(scale);
    let value: number;
    if (alpha === Infinity) value = Math.max(t.D, t.rho);
    else {
      const m = Math.max(t.data, t.contamination);
      const f = m === -Infinity ? -Infinity : (m + Math.log(Math.exp(t.data - m) + Math.exp(t.contamination - m))) / (alpha - 1);
      value = Math.max(t.D, f);
    }
    const a = alpha === Infinity ? 1 : Math.abs(alpha - 1);
    // A weight of 0 (λ = 0 or 1) contributes a term of −∞, which carries no rounding.
    const mag = (x: number) => (Number.isFinite(x) ? Math.abs(x) : 0);
    const error = (16 * EPS * (mag(t.data) + mag(t.contamination) + 1)) / a + 4 * EPS * Math.abs(value);
    return { value: Number.isNaN(value) ? Infinity : value, error, target: epsilon, sense: 'le' };
  };
  const start = 'zero' in base ? 1 : base.upper;
  const up = bracketAbove(evaluate, start, `contaminated condition, prior '${pc.prior}', pair ${pc.pair.join(' vs ')}`);
  return {
    evaluate,
    ...bracketBelow(evaluate, up, { halvings: 200 }),
    rtol: 1e-10,
    terms: (scale) => {
      const t = terms(scale);
      return { data: t.data, contamination: t.contamination };
    },
  };
}

/** The explanation's sentence on the contaminated class: λ, where the moved mass may go, and which term binds. */
export function robustNote(c: Contamination, box: readonly (readonly [number, number])[], t: { data: number; contamination: number } | null): string {
  const where = box.length === 1 ? `[${box[0].join(', ')}]` : `the box ${box.map((r) => `[${r.join(', ')}]`).join(' × ')}`;
  return ` For every prior within λ = ${c.lambda} of the class (up to λ of each conditional's mass moved anywhere in ${where}; docs/math.md §10)${t ? `: the binding term is the ${t.contamination >= t.data ? 'contamination' : 'class'} term (log-weights ${t.contamination.toPrecision(4)} vs ${t.data.toPrecision(4)})` : ''}.`;
}
