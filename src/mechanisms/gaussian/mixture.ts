import type { Noise } from '../../divergence/kernel.js';
import { exactEvaluation, exactProblem } from '../../conditions/exact.js';
import { divideDown } from '../../conditions/repeated.js';
import { remark2Problem } from '../../conditions/theorem2.js';
import { fromWeights } from '../../distribution/discrete.js';
import { bracketAbove, bracketBelow } from '../../numerics/bracket.js';
import { EPS } from '../../numerics/float.js';
import { logExpectationExp } from '../../numerics/logExpectation.js';
import { isFeasible, smallestFeasibleScale, type Evaluation, type ScaleProblem } from '../../numerics/smallestScale.js';
import { precisionUp } from '../../numerics/decimal.js';
import { gaussianRenyi, logSquareMoment, type Bounded } from '../../gaussianPriors/closedForm.js';
import { commonSd, couplingThreshold, type ComponentCoupling } from '../../gaussianPriors/gaussianScenario.js';
import { noiseOf } from '../kernels.js';
import { notApplicable, type MixturePair, type MixtureRules, type NoNoise } from '../mechanism.js';

/** The worse of two bounded divergences (value + error). */
const worse = (a: Bounded, b: Bounded): Bounded => (b.value + b.error > a.value + a.error ? b : a);

/** Is the condition already met with no noise (σ = 0)? Only meaningful when every component has a width. */
function zeroAtData(evaluate: (s: number) => Evaluation, pc: MixturePair, what: string): NoNoise | null {
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

/** The pair's search start: above the σ where a coupled component pair's divergence is infinite. */
const startFor = (c: ComponentCoupling, alpha: number, epsilon: number, ordered: boolean) => startOf(c, alpha, epsilon, couplingThreshold(c, alpha, ordered));

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

/** Gaussian noise at σ, as the exact accountant sees it. */
const noise = (sigma: number): Noise => noiseOf('gaussian', sigma);

const differentWidths = (c: ComponentCoupling) => c.p.some((x, k) => x.sd !== c.q[k].sd);

/** Whether exact accounting covers the pair: single Gaussians, or mixtures of one common width. */
const exactCovers = (pc: MixturePair) => (pc.P.length === 1 && pc.Q.length === 1) || commonSd(pc.P, pc.Q) !== null;

/**
 * Gaussian noise on Gaussian and mixture priors (docs/math.md §11): each method's closed-form
 * condition per (prior, pair), `best` preferring exact on ties (for single Gaussians the coupled
 * bound equals it). Identical conditionals are the calibration's: no rule is asked of them.
 */
export const mixtureRules: MixtureRules = {
  order: ['exact', 'coupled', 'theorem', 'pierquin'],
  rules: {
    coupled: ({ alpha, epsilon }) => ({
      rule: 'coupled bound over the mixture components (joint convexity; docs/math.md §11)',
      condition: 'log Σ_π w·exp((α−1)·D_α(component pair)) ≤ (α−1)ε',
      problem(pc, ordered) {
        const coupled = coupledEvaluate(pc.c, alpha, epsilon, ordered);
        return zeroAtData(coupled, pc, 'the coupled bound') ?? bracketed(coupled, startFor(pc.c, alpha, epsilon, ordered), 'coupled bound');
      },
    }),
    theorem: ({ alpha, epsilon }) => ({
      rule: 'Theorem 2 over the quantile coupling of the components (docs/math.md §11)',
      condition: "log E_π exp(α(α−1)(x−x')²/(2σ²)) ≤ (α−1)ε",
      problem(pc, ordered) {
        return bracketed(theoremEvaluate(pc.c, alpha, epsilon), startFor(pc.c, alpha, epsilon, ordered), 'Theorem 2');
      },
    }),
    pierquin: ({ alpha, epsilon }) => ({
      rule: 'Cor. 3.1 (Pierquin) with W∞ of equal-width components (Remark 2)',
      condition: 'σ ≥ W∞·√(α/(2ε))',
      leftOut: (pc) => (differentWidths(pc.c) ? 'W∞ is infinite between Gaussian components of different widths' : null),
      problem(pc) {
        const { c } = pc;
        if (differentWidths(c))
          return notApplicable(
            'W∞ is infinite between Gaussian components of different widths (their quantile coupling moves the tails without bound); use coupled or exact',
          );
        let w = 0;
        for (let k = 0; k < c.p.length; k++) w = Math.max(w, Math.abs(c.p[k].mean - c.q[k].mean));
        return remark2Problem(w, alpha, epsilon);
      },
    }),
    'wasserstein-inf': () => notApplicable('the W∞ mechanism is a Laplace mechanism'),
    exact: ({ alpha, epsilon }) => ({
      rule: 'exact D_α of the Gaussian(-mixture) outputs (closed form; docs/math.md §11)',
      condition: 'D_α(P_Y‖Q_Y) ≤ ε',
      leftOut: (pc) =>
        exactCovers(pc)
          ? null
          : `prior '${pc.prior}', pair ${pc.pair.join(' vs ')}: mixtures of different widths (exact covers single Gaussians and equal-width mixtures)`,
      problem(pc, ordered) {
        const { c } = pc;
        const coupled = coupledEvaluate(c, alpha, epsilon, ordered);
        const start = startFor(c, alpha, epsilon, ordered);
        if (pc.P.length === 1 && pc.Q.length === 1) return zeroAtData(coupled, pc, 'D_α(P_X‖Q_X)') ?? bracketed(coupled, start, 'exact D_α');
        const tau = commonSd(pc.P, pc.Q);
        if (tau === null)
          return notApplicable(
            'exact accounting covers single Gaussians and mixtures whose components all share one width (the output is then a finite mixture under Gaussian noise of scale √(τ² + σ²)); use coupled',
          );
        const p = fromWeights(
          pc.P.map((x) => x.mean),
          pc.P.map((x) => x.weight),
        );
        const q = fromWeights(
          pc.Q.map((x) => x.mean),
          pc.Q.map((x) => x.weight),
        );
        if (tau > 0) {
          const e = exactEvaluation(p, q, noise(widened(tau, 0)), alpha, epsilon, ordered);
          if (isFeasible(e))
            return { zero: `the Gaussian-mixture conditionals themselves already meet ε (exact D_α(P_X‖Q_X) = ${precisionUp(e.value, 6)} ≤ ${epsilon})` };
        }
        return exactProblem({
          p,
          q,
          noise: (s) => noise(widened(tau, s)),
          alpha,
          epsilon,
          ordered,
          bound: () => {
            const certified = bracketed(coupled, start, 'coupled bound');
            return { problem: certified, scale: smallestFeasibleScale(certified).scale };
          },
        });
      },
    }),
  },
};
