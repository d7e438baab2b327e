import type { Coupling } from '../coupling/comonotone.js';
import { wInf } from '../coupling/wasserstein.js';
import { absCost, etaPower, type Cost, type Eta } from '../conditions/costs.js';
import { corollary1Problem } from '../conditions/corollary1.js';
import { pierquinGaussianProblem, pierquinLaplaceProblem } from '../conditions/pierquin.js';
import { proposition1Problem } from '../conditions/proposition1.js';
import { songProblem } from '../conditions/song.js';
import { theorem1Problem } from '../conditions/theorem1.js';
import { theorem2Problem } from '../conditions/theorem2.js';
import { InputError, NumericalError } from '../errors.js';
import { isFeasible, smallestFeasibleScale, type Evaluation, type ScaleProblem } from '../numerics/smallestScale.js';
import { pairCouplings, type Scenario } from './scenario.js';

export const MECHANISMS = ['laplace', 'gaussian', 'exponential'] as const;
export type Mechanism = (typeof MECHANISMS)[number];
export const METHODS = ['theorem', 'pierquin', 'wasserstein-inf'] as const;
export type Method = (typeof METHODS)[number];

export interface CalibrationSettings {
  mechanism: Mechanism;
  method: Method;
  /** Rényi order; `Infinity` for ε-Pufferfish privacy. */
  alpha: number;
  epsilon: number;
  /** Exponential mechanism only: the cost c (default |·|) and η(θ) (default 1/θ). */
  cost?: Cost;
  eta?: Eta;
}

export interface PairScale {
  prior: string;
  pair: [string, string];
  scale: number;
  /** Why this pair needs no noise, when scale = 0. */
  zeroReason?: string;
}

export interface CalibrationResult {
  mechanism: Mechanism;
  method: Method;
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
}

/** The condition a method imposes on one coupled pair (null problem: no noise needed). */
export interface CalibrationRule {
  rule: string;
  condition: string;
  problem(c: Coupling): ScaleProblem | null;
}

const fmtAlpha = (a: number) => (a === Infinity ? '∞' : String(a));

/** Checks α, ε and that the method applies to the mechanism at this α; returns the rule. */
export function calibrationRule(s: CalibrationSettings): CalibrationRule {
  const { mechanism, method, alpha, epsilon } = s;
  if (typeof alpha !== 'number' || Number.isNaN(alpha) || alpha <= 0) throw new InputError(`must be a number > 0 or "inf", got ${String(alpha)}`, 'alpha');
  if (alpha === 1) throw new InputError('α = 1 (KL divergence) is not a Rényi order these bounds cover; use α ≠ 1, e.g. 1.01', 'alpha');
  if (typeof epsilon !== 'number' || !Number.isFinite(epsilon) || epsilon <= 0) throw new InputError(`must be a finite number > 0, got ${String(epsilon)}`, 'epsilon');
  if (!(MECHANISMS as readonly string[]).includes(mechanism)) throw new InputError(`unknown mechanism '${String(mechanism)}' (one of ${MECHANISMS.join(', ')})`, 'mechanism');
  if (!(METHODS as readonly string[]).includes(method)) throw new InputError(`unknown method '${String(method)}' (one of ${METHODS.join(', ')})`, 'method');
  const not = (why: string): never => {
    throw new InputError(`${method} does not apply to ${mechanism} at α = ${fmtAlpha(alpha)}: ${why}`, 'method');
  };
  const cost = s.cost ?? absCost;
  const eta = s.eta ?? etaPower(1);
  if (mechanism === 'gaussian') {
    if (alpha === Infinity) throw new InputError('Gaussian noise cannot give α = ∞ (its log-likelihood ratio is unbounded); use a finite α or the Laplace mechanism', 'alpha');
    if (alpha < 1) throw new InputError('Gaussian calibration (Theorem 2) needs α > 1', 'alpha');
    if (method === 'theorem') return { rule: 'Theorem 2 (eq. 18)', condition: 'log E_π* exp(α(α−1)(x−x′)²/(2σ²)) ≤ (α−1)ε', problem: (c) => theorem2Problem(c, alpha, epsilon) };
    if (method === 'pierquin') return { rule: 'Pierquin et al. 2024, Cor. 3.1 (Gaussian)', condition: 'σ ≥ W∞·√(α/(2ε))', problem: (c) => pierquinGaussianProblem(wInf(c), alpha, epsilon) };
    return not('the W∞ mechanism is a Laplace (ε-Pufferfish) mechanism; use pierquin for a W∞-based Gaussian baseline');
  }
  if (mechanism === 'exponential') {
    const phiMax = (c: Coupling) => Math.max(...c.x.map((x, k) => cost.apply(x - c.y[k])));
    if (method === 'pierquin') return not('Cor. 3.1 covers Laplace and Gaussian noise only');
    if (method === 'wasserstein-inf') return { rule: 'Song et al. 2017 / Corollary 1 at α = ∞', condition: 'η(θ)·sup_π* c(x−x′) ≤ ε', problem: (c) => songProblem(phiMax(c), epsilon, eta) };
    if (alpha < 1) return not('Corollary 1 needs α > 1 (use wasserstein-inf, valid for every α)');
    return alpha === Infinity
      ? { rule: 'Corollary 1 (α = ∞)', condition: 'η(θ)·sup_π* c(x−x′) ≤ ε', problem: (c) => corollary1Problem(c, alpha, epsilon, cost, eta) }
      : { rule: 'Corollary 1 (eq. 16)', condition: 'log E_π* exp(α·η(θ)·c(x−x′)) ≤ (α−1)ε', problem: (c) => corollary1Problem(c, alpha, epsilon, cost, eta) };
  }
  if (method === 'wasserstein-inf') return { rule: 'Song et al. 2017 (W∞ mechanism)', condition: 'b ≥ W∞/ε', problem: (c) => songProblem(wInf(c), epsilon, etaPower(1)) };
  if (method === 'pierquin') {
    if (alpha < 1) return not('Cor. 3.1 (Mironov’s Laplace RDP) is for α > 1');
    return { rule: 'Pierquin et al. 2024, Cor. 3.1 (Laplace)', condition: 'R_α(W∞/b) ≤ ε', problem: (c) => pierquinLaplaceProblem(wInf(c), alpha, epsilon) };
  }
  if (alpha < 1) return { rule: 'Proposition 1', condition: 'E_π* exp(−α|x−x′|/b) ≥ e^{(α−1)ε}', problem: (c) => proposition1Problem(c, alpha, epsilon) };
  if (alpha === Infinity) return { rule: 'Remark 1 (α = ∞)', condition: 'b ≥ W∞/ε', problem: (c) => theorem1Problem(c, alpha, epsilon) };
  return { rule: 'Theorem 1 (eq. 7)', condition: 'log E_π* exp(α|x−x′|/b) ≤ (α−1)ε', problem: (c) => theorem1Problem(c, alpha, epsilon) };
}

/** Noise variance at a scale: Laplace 2b², Gaussian σ², exponential per its cost and η. */
export function noiseVariance(s: Pick<CalibrationSettings, 'mechanism' | 'cost' | 'eta'>, scale: number): number {
  if (scale === 0) return 0;
  if (s.mechanism === 'gaussian') return scale * scale;
  if (s.mechanism === 'laplace') return 2 * scale * scale;
  return (s.cost ?? absCost).variance((s.eta ?? etaPower(1)).at(scale));
}

const SYMBOL = { b: 'b', sigma: 'σ', theta: 'θ' } as const;

const IDENTICAL = 'the two conditionals are identical, so Y = X reveals nothing about the pair';

/**
 * Calibrates one mechanism by one method: the smallest certified scale for every prior and
 * pair, maximised over them (the guarantee must hold for every prior in the class and every
 * declared pair). Each pair's condition is re-checked at the final scale.
 * @example calibrate(builtinScenario('adult'), { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }).scale
 */
export function calibrate(scenario: Scenario, settings: CalibrationSettings): CalibrationResult {
  const rule = calibrationRule(settings);
  const solved = pairCouplings(scenario).map((pc): { problem: ScaleProblem | null; result: PairScale } => {
    const identical = wInf(pc.coupling) === 0;
    const problem = identical ? null : rule.problem(pc.coupling);
    const base = { prior: pc.prior, pair: [pc.pair[0], pc.pair[1]] as [string, string] };
    if (!problem) {
      const zeroReason = identical ? IDENTICAL : `π* keeps mass ≥ e^{(α−1)ε} in place, so ${rule.rule} holds for every b > 0 and for the data itself`;
      return { problem, result: { ...base, scale: 0, zeroReason } };
    }
    return { problem, result: { ...base, scale: smallestFeasibleScale(problem).scale } };
  });
  let top = solved[0];
  for (const s of solved) if (s.result.scale > top.result.scale) top = s;
  const scale = top.result.scale;
  for (const s of solved) {
    if (s.problem && !isFeasible(s.problem.evaluate(scale))) {
      throw new NumericalError(`re-check failed for prior '${s.result.prior}', pair ${s.result.pair.join(' vs ')} at scale ${scale}`);
    }
  }
  const parameter = settings.mechanism === 'laplace' ? 'b' : settings.mechanism === 'gaussian' ? 'sigma' : 'theta';
  const binding = scale > 0 ? { prior: top.result.prior, pair: top.result.pair } : null;
  const explanation = binding
    ? `${rule.rule}: smallest ${SYMBOL[parameter]} with ${rule.condition}, maximised over ${solved.length} (prior, pair) combination(s); bound by prior '${binding.prior}', pair ${binding.pair[0]} vs ${binding.pair[1]}.`
    : `No noise needed: for every prior and pair ${[...new Set(solved.map((s) => s.result.zeroReason))].join('; ')}.`;
  const exp = settings.mechanism === 'exponential' ? { cost: (settings.cost ?? absCost).name, eta: (settings.eta ?? etaPower(1)).name } : {};
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
    check: top.problem && scale > 0 ? top.problem.evaluate(scale) : null,
    pairs: solved.map((s) => s.result),
    ...exp,
  };
}
