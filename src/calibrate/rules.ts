import { maxOf } from '../numerics/float.js';
import { wInf } from '../coupling/wasserstein.js';
import { absCost, etaPower, type Cost, type Eta } from '../conditions/costs.js';
import { corollary1Problem } from '../conditions/corollary1.js';
import { coupledLaplaceProblem } from '../conditions/coupled.js';
import { exactProblem } from '../conditions/exact.js';
import { powerIntensity } from '../conditions/moment.js';
import { pierquinGaussianProblem, pierquinLaplaceProblem } from '../conditions/pierquin.js';
import { proposition1Problem } from '../conditions/proposition1.js';
import { songProblem } from '../conditions/song.js';
import { theorem1Problem } from '../conditions/theorem1.js';
import { theorem2Problem } from '../conditions/theorem2.js';
import { InputError } from '../errors.js';
import { smallestFeasibleScale, type ScaleProblem } from '../numerics/smallestScale.js';
import type { PairCoupling } from './scenario.js';

export const MECHANISMS = ['laplace', 'gaussian', 'exponential'] as const;
export type Mechanism = (typeof MECHANISMS)[number];
/** Single methods; `best` (the default) picks the smallest of those that apply. */
export const METHODS = ['theorem', 'pierquin', 'wasserstein-inf', 'coupled', 'exact', 'best'] as const;
export type Method = (typeof METHODS)[number];
export type SingleMethod = Exclude<Method, 'best'>;
export const SINGLE_METHODS: readonly SingleMethod[] = ['theorem', 'pierquin', 'wasserstein-inf', 'coupled', 'exact'];

/** Short names for tables and chart legends. */
export const METHOD_LABEL: Record<SingleMethod, string> = { theorem: 'Theorem 1/2', pierquin: 'Cor. 3.1 (Pierquin)', 'wasserstein-inf': 'W∞ (Song)', coupled: 'coupled', exact: 'exact' };

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

/** A pair needs no noise, and why. */
export interface Zero {
  zero: string;
}

/** The condition a method imposes on one (prior, pair). */
export interface CalibrationRule {
  rule: string;
  condition: string;
  problem(pc: PairCoupling, ordered: boolean): ScaleProblem | Zero;
}

const fmtAlpha = (a: number) => (a === Infinity ? '∞' : String(a));

/** Checks α and ε; throws InputError naming the field. */
export function checkSettings(s: CalibrationSettings): void {
  const { mechanism, method, alpha, epsilon } = s;
  if (typeof alpha !== 'number' || Number.isNaN(alpha) || alpha <= 0) throw new InputError(`must be a number > 0 or "inf", got ${String(alpha)}`, 'alpha');
  if (alpha === 1) throw new InputError('α = 1 (KL divergence) is not a Rényi order these bounds cover; use α ≠ 1, e.g. 1.01', 'alpha');
  if (typeof epsilon !== 'number' || !Number.isFinite(epsilon) || epsilon <= 0) throw new InputError(`must be a finite number > 0, got ${String(epsilon)}`, 'epsilon');
  if (!(MECHANISMS as readonly string[]).includes(mechanism)) throw new InputError(`unknown mechanism '${String(mechanism)}' (one of ${MECHANISMS.join(', ')})`, 'mechanism');
  if (!(METHODS as readonly string[]).includes(method)) throw new InputError(`unknown method '${String(method)}' (one of ${METHODS.join(', ')})`, 'method');
  if (mechanism === 'gaussian' && alpha === Infinity) throw new InputError('Gaussian noise cannot give α = ∞ (its log-likelihood ratio is unbounded); use a finite α or the Laplace mechanism', 'alpha');
  if (mechanism === 'gaussian' && alpha < 1) throw new InputError('Gaussian calibration (Theorem 2) needs α > 1', 'alpha');
}

const NOT_APPLICABLE = Symbol('not applicable');

/**
 * The rule of one single method for the mechanism at this α, or a reason it does not apply.
 * One table: every method × mechanism × α range, with the theorem it implements.
 */
function ruleOrReason(s: CalibrationSettings & { method: SingleMethod }): CalibrationRule | { [NOT_APPLICABLE]: string } {
  const { mechanism, method, alpha, epsilon } = s;
  const no = (why: string) => ({ [NOT_APPLICABLE]: why });
  const cost = s.cost ?? absCost;
  const eta = s.eta ?? etaPower(1);
  const laplaceEta = powerIntensity(1, 1); // b ↦ 1/b
  if (mechanism === 'gaussian') {
    switch (method) {
      case 'theorem': return { rule: 'Theorem 2 (eq. 18)', condition: 'log E_π* exp(α(α−1)(x−x′)²/(2σ²)) ≤ (α−1)ε', problem: (pc) => theorem2Problem(pc.coupling, alpha, epsilon) };
      case 'pierquin': return { rule: 'Pierquin et al. 2024, Cor. 3.1 (Gaussian)', condition: 'σ ≥ W∞·√(α/(2ε))', problem: (pc) => pierquinGaussianProblem(wInf(pc.coupling), alpha, epsilon) };
      case 'coupled': return { rule: 'coupled RDP bound (docs/math.md §4) = Theorem 2 for Gaussian noise', condition: 'log E_π* exp((α−1)·α(x−x′)²/(2σ²)) ≤ (α−1)ε', problem: (pc) => theorem2Problem(pc.coupling, alpha, epsilon) };
      case 'wasserstein-inf': return no('the W∞ mechanism is a Laplace (ε-Pufferfish) mechanism; use pierquin for a W∞-based Gaussian baseline');
      case 'exact': return exactRule(s, 'gaussian', (x) => x);
    }
  }
  if (mechanism === 'exponential') {
    const maxCost = (pc: PairCoupling) => maxOf(pc.coupling.x.map((x, k) => cost.apply(x - pc.coupling.y[k])));
    switch (method) {
      case 'pierquin': return no('Cor. 3.1 covers Laplace and Gaussian noise only');
      case 'wasserstein-inf': return { rule: 'Song et al. 2017 / Corollary 1 at α = ∞', condition: 'η(θ)·sup_π* c(x−x′) ≤ ε', problem: (pc) => songProblem(maxCost(pc), epsilon, eta) };
      case 'theorem':
        if (alpha < 1) return no('Corollary 1 needs α > 1 (use wasserstein-inf, valid for every α)');
        return alpha === Infinity
          ? { rule: 'Corollary 1 (α = ∞)', condition: 'η(θ)·sup_π* c(x−x′) ≤ ε', problem: (pc) => corollary1Problem(pc.coupling, alpha, epsilon, cost, eta) }
          : { rule: 'Corollary 1 (eq. 16)', condition: 'log E_π* exp(α·η(θ)·c(x−x′)) ≤ (α−1)ε', problem: (pc) => corollary1Problem(pc.coupling, alpha, epsilon, cost, eta) };
      case 'coupled':
        if (cost !== absCost) return no('the coupled bound needs the exact divergence of shifted noise, known in closed form for c = |z| only');
        if (alpha < 1) return no('the coupled bound is for α > 1');
        return alpha === Infinity
          ? { rule: 'coupled bound at α = ∞ (= Corollary 1)', condition: 'η(θ)·W∞ ≤ ε', problem: (pc) => corollary1Problem(pc.coupling, alpha, epsilon, cost, eta) }
          : { rule: 'coupled RDP bound (docs/math.md §4), c = |z|', condition: 'log E_π* exp((α−1)R_α(η(θ)|x−x′|)) ≤ (α−1)ε', problem: (pc) => coupledLaplaceProblem(pc.coupling, alpha, epsilon, eta) };
      case 'exact':
        if (cost !== absCost) return no('exact accounting covers c = |z| (Laplace-shaped noise) only');
        return exactRule(s, 'laplace', (theta) => 1 / eta.at(theta));
    }
  }
  switch (method) {
    case 'wasserstein-inf': return { rule: 'Song et al. 2017 (W∞ mechanism)', condition: 'b ≥ W∞/ε', problem: (pc) => songProblem(wInf(pc.coupling), epsilon, laplaceEta) };
    case 'pierquin':
      if (alpha < 1) return no('Cor. 3.1 (Mironov’s Laplace RDP) is for α > 1');
      return { rule: 'Pierquin et al. 2024, Cor. 3.1 (Laplace)', condition: 'R_α(W∞/b) ≤ ε', problem: (pc) => pierquinLaplaceProblem(wInf(pc.coupling), alpha, epsilon) };
    case 'coupled':
      if (alpha < 1) return no('the coupled bound is for α > 1');
      return alpha === Infinity
        ? { rule: 'coupled bound at α = ∞ (= Remark 1)', condition: 'b ≥ W∞/ε', problem: (pc) => theorem1Problem(pc.coupling, alpha, epsilon) }
        : { rule: 'coupled RDP bound (docs/math.md §4)', condition: 'log E_π* exp((α−1)R_α(|x−x′|/b)) ≤ (α−1)ε', problem: (pc) => coupledLaplaceProblem(pc.coupling, alpha, epsilon, laplaceEta) };
    case 'exact': return exactRule(s, 'laplace', (b) => b);
    case 'theorem':
      if (alpha < 1) {
        return {
          rule: 'Proposition 1',
          condition: 'E_π* exp(−α|x−x′|/b) ≥ e^{(α−1)ε}',
          problem: (pc) => proposition1Problem(pc.coupling, alpha, epsilon) ?? { zero: 'π* keeps mass ≥ e^{(α−1)ε} in place, so Proposition 1 holds for every b > 0 and for the data itself' },
        };
      }
      if (alpha === Infinity) return { rule: 'Remark 1 (α = ∞)', condition: 'b ≥ W∞/ε', problem: (pc) => theorem1Problem(pc.coupling, alpha, epsilon) };
      return { rule: 'Theorem 1 (eq. 7)', condition: 'log E_π* exp(α|x−x′|/b) ≤ (α−1)ε', problem: (pc) => theorem1Problem(pc.coupling, alpha, epsilon) };
  }
}

/**
 * `exact`: the exact accountant searched below the tightest certified bound of the pair
 * (coupled for α > 1, else Proposition 1 / the W∞ mechanism).
 */
function exactRule(s: CalibrationSettings, family: 'laplace' | 'gaussian', noiseScale: (x: number) => number): CalibrationRule {
  const bounds = SINGLE_METHODS.filter((m) => m !== 'exact')
    .map((method) => ruleOrReason({ ...s, method }))
    .filter((r): r is CalibrationRule => !(NOT_APPLICABLE in r));
  return {
    rule: 'exact Rényi accountant (docs/math.md §4)',
    condition: `exact ${s.alpha === Infinity ? 'sup log p/q' : 'D_α(P_Y‖Q_Y)'} + error ≤ ε`,
    problem(pc, ordered) {
      let best: { problem: ScaleProblem; scale: number } | null = null;
      for (const b of bounds) {
        const pr = b.problem(pc, ordered);
        if ('zero' in pr) return pr;
        const scale = smallestFeasibleScale(pr).scale;
        if (!best || scale < best.scale) best = { problem: pr, scale };
      }
      if (!best) throw new InputError('no certified bound applies', 'method');
      return exactProblem({ p: pc.p, q: pc.q, family, alpha: s.alpha, epsilon: s.epsilon, ordered, noiseScale, certified: best.problem, certifiedScale: best.scale });
    },
  };
}

/** Checks the settings and returns the rule of a single method; InputError if it does not apply. */
export function calibrationRule(s: CalibrationSettings & { method: SingleMethod }): CalibrationRule {
  checkSettings(s);
  const r = ruleOrReason(s);
  if (NOT_APPLICABLE in r) throw new InputError(`${s.method} does not apply to ${s.mechanism} at α = ${fmtAlpha(s.alpha)}: ${r[NOT_APPLICABLE]}`, 'method');
  return r;
}

/** The single methods that apply to these settings (what `best` chooses from). */
export function applicableMethods(s: CalibrationSettings): SingleMethod[] {
  checkSettings(s);
  return SINGLE_METHODS.filter((method) => !(NOT_APPLICABLE in ruleOrReason({ ...s, method })));
}
