import { noiseOf } from '../kernels.js';
import { exactRule } from '../exactRule.js';
import { coupledLaplaceProblem } from '../../conditions/coupled.js';
import { powerIntensity } from '../../conditions/moment.js';
import { pierquinLaplaceProblem, scaledLaplaceRdp } from '../../conditions/pierquin.js';
import { proposition1Problem } from '../../conditions/proposition1.js';
import { songProblem } from '../../conditions/song.js';
import { remark1Problem, theorem1Problem } from '../../conditions/theorem1.js';
import { atSingleScale, divideDown, timesReleases } from '../../conditions/repeated.js';
import { EPS, nextUp } from '../../numerics/float.js';
import type { ScaleProblem } from '../../numerics/smallestScale.js';
import { laplaceNoise } from '../../sampling/samplers.js';
import { laplaceGapRule2d } from './gapRule2d.js';
import { beyondFiniteOrders, notApplicable, type MechanismDef, type ProductNoise, type RuleTable } from '../mechanism.js';
import type { PairCoupling } from '../../coupling/pairs.js';

/** The exact accountant on ℝ² (docs/math.md §12): a relative 10⁻⁹ per slice and panel, far below any budget's digits. */
const plane: NonNullable<ProductNoise['exact2d']> = (P, Q, alpha, scales, both) => laplaceGapRule2d(P, Q, alpha, scales, 1e-9, both);

/** (α−1)·R_α(t) in plain floating point (a transport cost, not a certificate): log of Mironov's two-term mixture. */
function laplaceRdpScaled(alpha: number, t: number): number {
  return (alpha - 1) * t + Math.log(alpha / (2 * alpha - 1) + ((alpha - 1) / (2 * alpha - 1)) * Math.exp(-(2 * alpha - 1) * t));
}

/** b ↦ 1/b: the Laplace rate as the W∞ and coupled conditions take it. */
const rate = powerIntensity(1, 1);

/**
 * A condition log E_π* e^{t(|x−x′|)} ≤ target with t increasing, checked at its largest cost alone:
 * log E_π* e^{t} ≤ t(W∞), so `bound` = t(W∞) within the target (with a relative 10⁻⁹ for the
 * evaluation's own rounding, ~n·u) means the condition holds — without π*'s exact masses, whose
 * BigInt build is most of a long chain's `best`. A pair that fails this is checked in full.
 */
const holdsByWInf = (bound: number, target: number) => bound * (1 + 1e-9) + 1e-9 <= target;

/** Laplace noise, density e^{−|z|/b}/(2b) (paper §2.2): every method, every α ∈ (0,1) ∪ (1,∞]. */
const rules: RuleTable = {
  theorem: ({ alpha, epsilon, releases: n }) => {
    if (alpha < 1) {
      if (n > 1) return notApplicable('Proposition 1 covers one release; for several use wasserstein-inf (valid for every α)');
      return {
        rule: 'Proposition 1',
        condition: 'E_π* exp(−α|x−x′|/b) ≥ e^{(α−1)ε}',
        problem: (pc) =>
          proposition1Problem(pc.coupling, alpha, epsilon) ?? {
            zero: 'π* keeps mass ≥ e^{(α−1)ε} in place, so Proposition 1 holds for every b > 0 and for the data itself',
          },
      };
    }
    // N releases: Theorem 1's condition at b/N implies the coupled N-fold one (docs/math.md §9).
    const atBoverN = (p: ScaleProblem) =>
      n === 1
        ? p
        : atSingleScale(
            p,
            (b) => divideDown(b, n),
            (b) => b * n,
          );
    const many = n > 1 ? ` for ${n} releases (at b/${n}, docs/math.md §9)` : '';
    if (alpha === Infinity)
      return {
        rule: `Remark 1 (α = ∞)${many}`,
        condition: n > 1 ? `b ≥ ${n}·W∞/ε` : 'b ≥ W∞/ε',
        problem: (pc) => atBoverN(remark1Problem(pc.wInf, epsilon)),
      };
    return {
      rule: `Theorem 1 (eq. 7)${many}`,
      condition: `log E_π* exp(α${n > 1 ? `·${n}` : ''}|x−x′|/b) ≤ (α−1)ε`,
      problem: (pc) => atBoverN(theorem1Problem(pc.coupling, alpha, epsilon)),
      ...(n === 1
        ? {
            holdsAt: (pc: PairCoupling, _o: boolean, b: number) =>
              holdsByWInf((alpha * pc.exactWInf) / b, (alpha - 1) * epsilon) ||
              (pc.logExpectationUp !== undefined &&
                holdsByWInf(
                  pc.logExpectationUp((d) => (alpha * d) / b),
                  (alpha - 1) * epsilon,
                )),
          }
        : {}),
    };
  },
  pierquin: ({ alpha, epsilon, releases: n }) =>
    alpha < 1
      ? notApplicable('Cor. 3.1 (Mironov’s Laplace RDP) is for α > 1')
      : {
          rule: `Pierquin et al. 2024, Cor. 3.1 (Laplace)${n > 1 ? `, ${n} releases (docs/math.md §9)` : ''}`,
          condition: n > 1 ? `${n}·R_α(W∞/b) ≤ ε` : 'R_α(W∞/b) ≤ ε',
          problem: (pc) => {
            const p = pierquinLaplaceProblem(pc.wInf, alpha, epsilon);
            return n === 1 ? p : timesReleases(p, n);
          },
        },
  'wasserstein-inf': ({ epsilon, releases: n }) => ({
    rule: `Song et al. 2017 (W∞ mechanism)${n > 1 ? `, ${n} releases (docs/math.md §9)` : ''}`,
    condition: n > 1 ? `b ≥ ${n}·W∞/ε` : 'b ≥ W∞/ε',
    // The product density ratio of N releases is at most e^{N·W∞/b}; N·W∞ rounded up.
    problem: (pc) => songProblem(n === 1 ? pc.wInf : nextUp(n * pc.wInf), epsilon, rate),
  }),
  coupled: ({ alpha, epsilon, releases: n }) => {
    if (alpha < 1) return notApplicable('the coupled bound is for α > 1');
    if (alpha === Infinity) {
      return {
        rule: `coupled bound at α = ∞ (= Remark 1)${n > 1 ? `, ${n} releases` : ''}`,
        condition: n > 1 ? `b ≥ ${n}·W∞/ε` : 'b ≥ W∞/ε',
        problem: (pc) => (n === 1 ? remark1Problem(pc.wInf, epsilon) : songProblem(nextUp(n * pc.wInf), epsilon, rate)),
      };
    }
    return {
      rule: `coupled RDP bound (docs/math.md §4)${n > 1 ? `, ${n} releases (§9)` : ''}`,
      condition: `log E_π* exp((α−1)${n > 1 ? `·${n}` : ''}R_α(|x−x′|/b)) ≤ (α−1)ε`,
      problem: (pc) => coupledLaplaceProblem(pc.coupling, alpha, epsilon, rate, n),
      ...(n === 1
        ? {
            holdsAt: (pc: PairCoupling, _o: boolean, b: number) => {
              const target = (alpha - 1) * epsilon * (1 - 4 * EPS);
              const t = (d: number) => {
                const r = scaledLaplaceRdp(alpha, d * rate.at(b));
                return r.value + r.error;
              };
              return holdsByWInf(t(pc.exactWInf), target) || (pc.logExpectationUp !== undefined && holdsByWInf(pc.logExpectationUp(t), target));
            },
          }
        : {}),
    };
  },
  exact: (ctx) => exactRule(ctx, plane),
};

/**
 * D_α(Lap(0, b) ‖ Lap(Δ, b)) at t = Δ/b: R_α(t) for finite α > 1; for α ∈ (0, 1) the same integral
 * in a form without cancellation (`laplaceShiftBelowOne`); t (D∞) at α = ∞.
 */
export function laplacePointDivergence(t: number, alpha: number): { value: number; error: number } {
  if (alpha > 1 && alpha < Infinity) {
    const r = scaledLaplaceRdp(alpha, t);
    return { value: r.value / (alpha - 1), error: r.error / (alpha - 1) + 2 * EPS * Math.abs(r.value / (alpha - 1)) };
  }
  if (alpha > 0 && alpha < 1) {
    const g = laplaceShiftBelowOne(t, alpha);
    const r = { value: g.value / (alpha - 1), error: g.error / (1 - alpha) };
    // Near α = 1 the charge over 1 − α grows: D∞ = t bounds every order and is then tighter.
    return r.value + r.error <= t ? r : { value: t, error: EPS * t };
  }
  return { value: t, error: EPS * t };
}

/**
 * log ∫ p^α q^{1−α} for p = Lap(0, 1), q = Lap(t, 1), α ∈ (0, 1), t ≥ 0 (docs/math.md §4): Mironov's
 * two-term form, [(1−α)e^{−αt} − αe^{−(1−α)t}]/(1 − 2α), holds below 1 too, but its terms cancel.
 * With β = min(α, 1−α), γ = 1 − β it is e^{−βt}·(1 + βt·φ((γ−β)t)), φ(x) = (1 − e^{−x})/x
 * (φ(0) = 1: the α = ½ case (1 + t/2)e^{−t/2}), whose terms are all positive. Error: each of the
 * few operations (expm1, the products, log1p) is within a few ulps, 16u of the magnitudes charged.
 */
function laplaceShiftBelowOne(t: number, alpha: number): { value: number; error: number } {
  const beta = Math.min(alpha, 1 - alpha),
    x = (1 - 2 * beta) * t;
  const phi = x === 0 ? 1 : -Math.expm1(-x) / x;
  const tail = Math.log1p(beta * t * phi);
  const value = -beta * t + tail;
  return { value, error: 16 * EPS * (beta * t + tail) + EPS };
}

export const laplace: MechanismDef = {
  name: 'laplace',
  title: 'Laplace',
  parameter: 'b',
  symbol: 'b',
  theoremLabel: 'Theorem 1',
  varianceFormula: '2b²',
  composes: 'rate',
  scaleFamily: true,
  alphaRange: (alpha) => beyondFiniteOrders('Laplace', alpha),
  variance: (b) => 2 * b * b,
  // P(|Z| > x) = e^{−x/b}.
  halfWidth: (b, coverage) => nextUp(nextUp(-b * Math.log1p(-coverage))),
  accountant: () => (b) => noiseOf('laplace', b),
  sampler: (b) => laplaceNoise(b),
  // Mironov's R_α(Δ/b) for α > 1, its cancellation-free form below 1, D∞ = Δ/b at α = ∞.
  pointDivergence: (delta, b, alpha) => laplacePointDivergence(delta / b, alpha),
  options: [],
  describe: () => ({}),
  rules,
  product: {
    norm: 'l1',
    // Σ_c (α−1)·R_α(t_c), each certified (Mironov's two-term mixture), with the sum's rounding.
    exponent: (alpha, t, coords) => {
      let sum = 0,
        err = 0;
      for (const c of coords) {
        const e = scaledLaplaceRdp(alpha, t(c));
        sum += e.value;
        err += e.error + EPS * Math.abs(sum);
      }
      return { value: sum, error: err };
    },
    cost: (alpha, t) => laplaceRdpScaled(alpha, t),
    term: 'R_α',
    exact2d: plane,
    // Σ_c R_α(t_c) ≤ R_α(Σ_c t_c) ≤ Σ_c t_c ((α−1)R_α is convex with R_α(0) = 0, so superadditive): N·W/ε (the search nudges it up past rounding).
    feasibleScale: (_alpha, n, dist, epsilon) => (n * dist) / epsilon,
    normExponent: (alpha, n, dist, b) => (alpha * n * dist) / b,
    dInfRate: (b) => 1 / b,
  },
  // The Laplace law maximises entropy at a given mean absolute deviation (docs/math.md §7).
  mi: {
    rule: 'MI deviation bound b ≥ E|X−EX|/(e^ε−1) (docs/math.md §7)',
    value: (m, b) => Math.log1p(m.mad / b),
    closed: (m, epsilon) => m.mad / Math.expm1(epsilon),
  },
};
