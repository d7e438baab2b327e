import { FAMILY_OF, mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import type { Noise } from '../divergence/kernel.js';
import { IDENTICAL } from '../calibrate/result.js';
import type { CalibrationKind } from '../calibrate/kind.js';
import { checkSettings, type CalibrationSettings, type Mechanism, type SingleMethod } from '../calibrate/rules.js';
import { priorPairs } from '../distribution/scenario.js';
import { exactEvaluation, exactProblem } from '../conditions/exact.js';
import { divideDown } from '../conditions/repeated.js';
import { remark2Problem } from '../conditions/theorem2.js';
import { fromWeights } from '../distribution/discrete.js';
import { InputError } from '../errors.js';
import type { NoNoise, NotApplicable } from '../mechanisms/mechanism.js';
import { bracketAbove, bracketBelow } from '../numerics/bracket.js';
import { EPS } from '../numerics/float.js';
import { logExpectationExp } from '../numerics/logExpectation.js';
import { isFeasible, smallestFeasibleScale, type Evaluation, type ScaleProblem } from '../numerics/smallestScale.js';
import { gaussianRenyi, infiniteBelow, logSquareMoment, type Bounded } from './closedForm.js';
import { commonSd, componentCoupling, type ComponentCoupling } from './gaussianScenario.js';
import { checkMixture, type GaussianMixture, type GaussianScenario } from '../distribution/mixture.js';
import { precisionUp } from '../numerics/decimal.js';

/** The methods that apply to Gaussian and mixture priors (Gaussian noise). */
/** In `best`'s order of preference on ties (exact first: for single Gaussians coupled equals it). */
const GAUSSIAN_PRIOR_METHODS = ['exact', 'coupled', 'theorem', 'pierquin'] as const satisfies readonly SingleMethod[];
type GMethod = (typeof GAUSSIAN_PRIOR_METHODS)[number];

type GaussianPriorSettings = Pick<CalibrationSettings, 'mechanism' | 'method' | 'alpha' | 'epsilon' | 'releases' | 'contamination'>;

interface Pair {
  prior: string;
  pair: [string, string];
  P: GaussianMixture;
  Q: GaussianMixture;
  c: ComponentCoupling;
}

/** The worse of two bounded divergences (value + error). */
const worse = (a: Bounded, b: Bounded): Bounded => (b.value + b.error > a.value + a.error ? b : a);

/** σ below which some coupled component pair has an infinite divergence (either required direction). */
function thresholdOf(c: ComponentCoupling, alpha: number, ordered: boolean): number {
  let t = 0;
  for (let k = 0; k < c.p.length; k++) {
    t = Math.max(t, infiniteBelow(c.p[k], c.q[k], alpha), ordered ? 0 : infiniteBelow(c.q[k], c.p[k], alpha));
  }
  return Math.sqrt(t);
}

/**
 * σ at or below which D_α(P_Y‖Q_Y) itself is infinite: the widest components decide the tails,
 * so the mixture's threshold is that of its widest components (docs/math.md §11).
 */
function trueThreshold(P: GaussianMixture, Q: GaussianMixture, alpha: number, ordered: boolean): number {
  const widest = (m: GaussianMixture) => m.reduce((a, c) => (c.weight > 0 && c.sd > a.sd ? c : a), { mean: 0, sd: 0 });
  const [p, q] = [widest(P), widest(Q)];
  return Math.sqrt(Math.max(infiniteBelow(p, q, alpha), ordered ? 0 : infiniteBelow(q, p, alpha)));
}

/** Is the condition already met with no noise (σ = 0)? Only meaningful when every component has a width. */
function zeroAtData(evaluate: (s: number) => Evaluation, pc: Pair, what: string): NoNoise | null {
  if (![...pc.P, ...pc.Q].every((x) => x.sd > 0 || x.weight === 0)) return null;
  const e = evaluate(0);
  return isFeasible(e)
    ? { zero: `the Gaussian conditionals themselves already meet ε (${what} at σ = 0: ${precisionUp(e.value, 6)} ≤ ${e.target.toPrecision(6)})` }
    : null;
}

/** Searches a bracket for a monotone condition: doubles up from `start` until feasible, halves down until not. */
function bracketed(evaluate: (s: number) => Evaluation, start: number, what: string, rtol?: number): ScaleProblem {
  const upper = bracketAbove(evaluate, start, what);
  return { evaluate, ...bracketBelow(evaluate, upper), ...(rtol ? { rtol } : {}) };
}

/** A starting scale of the right order: Remark 2 on the largest mean gap plus the width gap, above the threshold. */
function startOf(c: ComponentCoupling, alpha: number, epsilon: number, threshold: number): number {
  let gap = 0;
  for (let k = 0; k < c.p.length; k++) gap = Math.max(gap, Math.abs(c.p[k].mean - c.q[k].mean) + Math.abs(c.p[k].sd - c.q[k].sd) * Math.sqrt(alpha));
  return Math.max(2 * threshold, gap * Math.sqrt(alpha / (2 * epsilon)), Number.MIN_VALUE * 2 ** 60);
}

/**
 * Coupled bound over components (docs/math.md §11): joint convexity of ∫p^α q^{1−α} over the
 * component coupling gives log Σ_π w·exp((α−1)·D_α(P_k * N ‖ Q_k * N)) ≤ (α−1)ε, with the closed
 * form of each component pair. Exact for single Gaussians.
 */
function coupledEvaluate(c: ComponentCoupling, alpha: number, epsilon: number, ordered: boolean) {
  const t = new Float64Array(c.p.length);
  const target = (alpha - 1) * epsilon;
  const direction = (sigma: number, flip: boolean): Bounded => {
    let inner = 0;
    for (let k = 0; k < t.length; k++) {
      const d = flip ? gaussianRenyi(c.q[k], c.p[k], sigma, alpha) : gaussianRenyi(c.p[k], c.q[k], sigma, alpha);
      if (d.value === Infinity) return { value: Infinity, error: 0 };
      t[k] = (alpha - 1) * d.value; // rel. error ≤ 2u (α−1 and the product)
      inner = Math.max(inner, (alpha - 1) * d.error * (1 + 2 * EPS) + EPS * Math.abs(t[k]));
    }
    const outer = logExpectationExp(c.mass, t);
    return { value: outer.value, error: outer.error + inner };
  };
  return (sigma: number): Evaluation => {
    const d = ordered ? direction(sigma, false) : worse(direction(sigma, false), direction(sigma, true));
    return { ...d, target, sense: 'le' };
  };
}

/**
 * Theorem 2 (Ding, Yang, Zhang, arXiv 2605.05723, eq. 18) over the coupling that pairs
 * components in order and each pair by quantiles (x′ = μ₂ + (τ₂/τ₁)(x − μ₁)): x − x′ is Gaussian,
 * so the moment E exp(α(α−1)(x−x′)²/(2σ²)) has a closed form (docs/math.md §11).
 */
function theoremEvaluate(c: ComponentCoupling, alpha: number, epsilon: number) {
  const t = new Float64Array(c.p.length);
  const target = (alpha - 1) * epsilon;
  return (sigma: number): Evaluation => {
    const rate = (alpha * (alpha - 1)) / (2 * sigma * sigma); // rel. error ≤ 4u
    let inner = 0;
    for (let k = 0; k < t.length; k++) {
      const m = logSquareMoment(c.p[k].mean - c.q[k].mean, c.p[k].sd - c.q[k].sd, rate);
      if (m.value === Infinity) return { value: Infinity, error: 0, target, sense: 'le' };
      t[k] = m.value;
      inner = Math.max(inner, m.error);
    }
    const outer = logExpectationExp(c.mass, t);
    return { value: outer.value, error: outer.error + inner, target, sense: 'le' };
  };
}

/** The Gaussian scale √(τ² + σ²) rounded down (D_α is non-increasing in it, so this over-estimates D_α). */
const widened = (tau: number, sigma: number) => divideDown(Math.sqrt(tau * tau + sigma * sigma), 1);

type Built = ScaleProblem | NoNoise;

/** One (prior, pair)'s condition under `method`, or why the method does not apply to it. */
function pairProblem(pc: Pair, method: GMethod, alpha: number, epsilon: number, ordered: boolean): Built | NotApplicable {
  const { c } = pc;
  if (c.p.every((x, k) => x.mean === c.q[k].mean && x.sd === c.q[k].sd)) return { zero: IDENTICAL };
  const threshold = thresholdOf(c, alpha, ordered);
  const start = startOf(c, alpha, epsilon, threshold);
  const coupled = coupledEvaluate(c, alpha, epsilon, ordered);
  switch (method) {
    case 'coupled':
      return zeroAtData(coupled, pc, 'the coupled bound') ?? bracketed(coupled, start, 'coupled bound');
    case 'theorem':
      return bracketed(theoremEvaluate(c, alpha, epsilon), start, 'Theorem 2');
    case 'pierquin': {
      if (c.p.some((x, k) => x.sd !== c.q[k].sd))
        return {
          notApplicable:
            'W∞ is infinite between Gaussian components of different widths (their quantile coupling moves the tails without bound); use coupled or exact',
        };
      let w = 0;
      for (let k = 0; k < c.p.length; k++) w = Math.max(w, Math.abs(c.p[k].mean - c.q[k].mean));
      return remark2Problem(w, alpha, epsilon);
    }
    case 'exact': {
      if (pc.P.length === 1 && pc.Q.length === 1) return zeroAtData(coupled, pc, 'D_α(P_X‖Q_X)') ?? bracketed(coupled, start, 'exact D_α');
      const tau = commonSd(pc.P, pc.Q);
      if (tau === null)
        return {
          notApplicable:
            'exact accounting covers single Gaussians and mixtures whose components all share one width (the output is then a finite mixture under Gaussian noise of scale √(τ² + σ²)); use coupled',
        };
      const p = fromWeights(
        pc.P.map((x) => x.mean),
        pc.P.map((x) => x.weight),
      );
      const q = fromWeights(
        pc.Q.map((x) => x.mean),
        pc.Q.map((x) => x.weight),
      );
      const evaluate = (s: number) => exactEvaluation(p, q, priorNoise(widened(tau, s)), alpha, epsilon, ordered);
      if (tau > 0) {
        const e = evaluate(0);
        if (isFeasible(e))
          return { zero: `the Gaussian-mixture conditionals themselves already meet ε (exact D_α(P_X‖Q_X) = ${precisionUp(e.value, 6)} ≤ ${epsilon})` };
      }
      return exactProblem({
        p,
        q,
        noise: (s) => priorNoise(widened(tau, s)),
        alpha,
        epsilon,
        ordered,
        bound: () => {
          const certified = bracketed(coupled, start, 'coupled bound');
          return { problem: certified, scale: smallestFeasibleScale(certified).scale };
        },
      });
    }
    default: {
      const unknown: never = method;
      throw new InputError(`unknown method '${String(unknown)}'`, 'method');
    }
  }
}

const RULES: Record<GMethod, { rule: string; condition: string }> = {
  exact: { rule: 'exact D_α of the Gaussian(-mixture) outputs (closed form; docs/math.md §11)', condition: 'D_α(P_Y‖Q_Y) ≤ ε' },
  coupled: {
    rule: 'coupled bound over the mixture components (joint convexity; docs/math.md §11)',
    condition: 'log Σ_π w·exp((α−1)·D_α(component pair)) ≤ (α−1)ε',
  },
  theorem: { rule: 'Theorem 2 over the quantile coupling of the components (docs/math.md §11)', condition: "log E_π exp(α(α−1)(x−x')²/(2σ²)) ≤ (α−1)ε" },
  pierquin: { rule: 'Cor. 3.1 (Pierquin) with W∞ of equal-width components (Remark 2)', condition: 'σ ≥ W∞·√(α/(2ε))' },
};

/** The prior family's noise at σ, as the exact accountant sees it. */
const priorNoise = (sigma: number): Noise => (mechanismDef(PRIOR_NOISE).accountant(noiseOptions({})) as (s: number) => Noise)(sigma);

/** The noise family whose divergences between Gaussian components have closed forms (docs/math.md §11). */
export const PRIOR_NOISE: Mechanism = FAMILY_OF.gaussianPriors;

/** Checks the settings and the scenario for Gaussian priors; the pairs with their couplings. */
function pairsFor(scenario: GaussianScenario, s: GaussianPriorSettings): Pair[] {
  if (s.mechanism !== PRIOR_NOISE)
    throw new InputError(
      `Gaussian and mixture priors are calibrated for Gaussian noise (closed-form D_α, docs/math.md §11); for ${s.mechanism} noise give the conditionals as values`,
      'mechanism',
    );
  checkSettings({ ...s, method: s.method });
  if (s.contamination && s.contamination.lambda > 0)
    throw new InputError('is not available for Gaussian priors yet (give the conditionals as values to use a contamination class)', 'contamination');
  if (s.method !== 'best' && !(GAUSSIAN_PRIOR_METHODS as readonly string[]).includes(s.method))
    throw new InputError(`method '${s.method}' does not apply to Gaussian priors (one of ${GAUSSIAN_PRIOR_METHODS.join(', ')}, best)`, 'method');
  const { units } = priorPairs(scenario);
  scenario.priors.forEach((p, i) => {
    for (const [secret, m] of Object.entries(p.conditionals)) checkMixture(m, `priors[${i}].conditionals.${secret}`);
  });
  return units.map(({ prior: p, pair: [a, b] }) => ({
    prior: p.name,
    pair: [a, b] as [string, string],
    P: p.conditionals[a],
    Q: p.conditionals[b],
    c: componentCoupling(p.conditionals[a], p.conditionals[b]),
  }));
}

/** Which methods apply to every pair (the others with the first pair's reason). */
function applicable(pairs: Pair[]): { methods: GMethod[]; reasons: Partial<Record<GMethod, string>> } {
  const reasons: Partial<Record<GMethod, string>> = {};
  for (const pc of pairs) {
    if (!reasons.pierquin && pc.c.p.some((x, k) => x.sd !== pc.c.q[k].sd)) reasons.pierquin = 'W∞ is infinite between Gaussian components of different widths';
    if (!reasons.exact && !(pc.P.length === 1 && pc.Q.length === 1) && commonSd(pc.P, pc.Q) === null)
      reasons.exact = `prior '${pc.prior}', pair ${pc.pair.join(' vs ')}: mixtures of different widths (exact covers single Gaussians and equal-width mixtures)`;
  }
  return { methods: GAUSSIAN_PRIOR_METHODS.filter((m) => !reasons[m]), reasons };
}

/**
 * Gaussian and mixture priors as a kind of the one calibration (docs/math.md §11): Gaussian noise,
 * per (prior, pair) the smallest σ meeting the method's closed-form condition. N releases: the
 * mean of N releases is sufficient, so the condition is checked at σ/√N.
 */
export const MIXTURE: CalibrationKind<GaussianScenario, Pair> = {
  check(scenario, s) {
    pairsFor(scenario, s);
    return s;
  },
  bestMethods(scenario, s) {
    const { methods, reasons } = applicable(pairsFor(scenario, s));
    const left = Object.entries(reasons).map(([m, why]) => `${m} left out: ${why}`);
    return { methods, note: left.length ? ` (${left.join('; ')})` : '' };
  },
  units(scenario, s) {
    const method = s.method as GMethod;
    const n = s.releases ?? 1;
    const ordered = scenario.ordered ?? false;
    return pairsFor(scenario, s).map((pc) => ({
      label: pc,
      problem: (): Built => {
        const b = pairProblem(pc, method, s.alpha, s.epsilon, ordered);
        if ('notApplicable' in b) throw new InputError(`prior '${pc.prior}', pair ${pc.pair.join(' vs ')}: ${b.notApplicable}`, 'method');
        if ('zero' in b || n === 1) return b;
        // Ȳ = X + N(0, σ²/N) is sufficient for the N releases (docs/math.md §9).
        const r = Math.sqrt(n);
        return { ...b, evaluate: (x) => b.evaluate(divideDown(x, r)), lower: b.lower * r * (1 - 4 * EPS), upper: b.upper * r * (1 + 4 * EPS) };
      },
    }));
  },
  text(scenario, s, sol) {
    const method = s.method as GMethod;
    const n = s.releases ?? 1;
    const ordered = scenario.ordered ?? false;
    const top = sol.top.label;
    const { rule, condition } = RULES[method];
    const threshold = sol.scale > 0 ? trueThreshold(top.P, top.Q, s.alpha, ordered) * Math.sqrt(n) : 0;
    const own = sol.scale > 0 && method === 'coupled' ? thresholdOf(top.c, s.alpha, ordered) * Math.sqrt(n) : 0;
    const finite =
      (threshold > 0
        ? ` No σ ≤ ${threshold.toPrecision(6)} gives a finite α-guarantee for this pair (α·τ_j² − (α−1)·τ_i² + σ² > 0 is needed for the widest components: the wider conditional's tails outweigh the narrower one's at this α), so the scale lies above that threshold.`
        : '') + (own > threshold ? ` This method's component coupling is finite only above σ = ${own.toPrecision(6)}.` : '');
    return {
      settings: { ...s, mechanism: PRIOR_NOISE, method },
      parameter: 'sigma',
      variance: sol.scale * sol.scale,
      rule,
      meets: `with ${condition}`,
      symbol: 'σ',
      before: n > 1 ? `For ${n} releases of the same value, together (the mean is sufficient: one release at σ/√${n}): ` : '',
      bindingNote: finite,
    };
  },
};
