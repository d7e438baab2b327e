import { noiseOf } from '../kernels.js';
import { exactRule } from '../exactRule.js';
import { powerIntensity } from '../../conditions/moment.js';
import { songProblem } from '../../conditions/song.js';
import { coupledShiftProblem } from '../../conditions/coupled.js';
import { w1 } from '../../coupling/wasserstein.js';
import { geometricShiftExponent } from './shift.js';
import type { PairCoupling } from '../../coupling/pairs.js';
import { EPS, nextUp } from '../../numerics/float.js';
import { geometricNoise } from '../../sampling/samplers.js';
import { beyondFiniteOrders, isNotApplicable, notApplicable, type CalibrationRule, type MechanismDef, type RuleContext, type RuleTable } from '../mechanism.js';
import { checkIntegerAtoms } from './kernel.js';

/** b ↦ 1/b: D∞ of an integer shift k is k/b, as for Laplace. */
const rate = powerIntensity(1, 1);

/** A pair's laws must sit on the integers: otherwise the two outputs live on different lattices. */
function onIntegers(pc: PairCoupling): void {
  checkIntegerAtoms(pc.p.values);
  checkIntegerAtoms(pc.q.values);
}

const CONTINUOUS_ONLY = 'is proven for continuous Laplace noise; geometric noise is calibrated by wasserstein-inf, coupled or exact';

/**
 * The coupled bound's scales: infeasible below W₁/(ε/N + log 2/(α−1)) (the shift's bracket is at
 * least 1/2, so (α−1)G_α(k, b) ≥ (α−1)k/b − log 2, and Jensen), feasible from N·W∞/ε (G_α < D∞ = k/b),
 * widened by a part in 10⁹ past the condition's four-ulp margin.
 */
function coupledBracket(pc: PairCoupling, alpha: number, epsilon: number, n: number): { lower: number; upper: number } {
  return { lower: w1(pc.coupling) / (epsilon / n + Math.LN2 / (alpha - 1)), upper: ((n * pc.wInf) / epsilon) * (1 + 1e-9) };
}

/**
 * The W∞ mechanism under the name a rule gives it: |log f(y − x) − log f(y − x′)| ≤ |x − x′|/b at
 * every integer y, so the product ratio of N releases is at most e^{N·W∞/b}.
 */
function wInfRule({ epsilon, releases: n }: RuleContext, rule: string): CalibrationRule {
  return {
    rule,
    condition: n > 1 ? `b ≥ ${n}·W∞/ε` : 'b ≥ W∞/ε',
    problem: (pc) => {
      onIntegers(pc);
      return songProblem(n === 1 ? pc.wInf : nextUp(n * pc.wInf), epsilon, rate);
    },
  };
}

/**
 * Two-sided geometric (discrete Laplace) noise, P(Z = z) = (1 − r)/(1 + r)·r^{|z|}, r = e^{−1/b},
 * on the integers (docs/math.md §21): integer outputs for counts and sums of integer columns. Its
 * log-mass is (1/b)-Lipschitz in the shift like Laplace's density, so the W∞ mechanism holds as is;
 * the exact accountant sums over ℤ.
 */
const rules: RuleTable = {
  theorem: () => notApplicable(`Theorem 1 ${CONTINUOUS_ONLY}`),
  pierquin: () => notApplicable(`Cor. 3.1 (Mironov’s Laplace RDP) ${CONTINUOUS_ONLY}`),
  'wasserstein-inf': (ctx) => wInfRule(ctx, `Song et al. 2017 (W∞ mechanism)${ctx.releases > 1 ? `, ${ctx.releases} releases (docs/math.md §9)` : ''}`),
  coupled: (ctx) => {
    const { alpha, epsilon, releases: n } = ctx;
    if (alpha < 1) return notApplicable('the coupled bound is for α > 1');
    if (alpha === Infinity) return wInfRule(ctx, `coupled bound at α = ∞ (= the W∞ mechanism)${n > 1 ? `, ${n} releases` : ''}`);
    return {
      rule: `coupled RDP bound with the geometric shift's divergence (docs/math.md §4, §21)${n > 1 ? `, ${n} releases (§9)` : ''}`,
      condition: `log E_π* exp((α−1)${n > 1 ? `·${n}` : ''}·G_α(|x−x′|, b)) ≤ (α−1)ε`,
      problem: (pc) => {
        onIntegers(pc);
        return coupledShiftProblem(pc.coupling, alpha, epsilon, (b) => (d) => geometricShiftExponent(alpha, d, b), coupledBracket(pc, alpha, epsilon, n), n);
      },
    };
  },
  exact: (ctx) => {
    const rule = exactRule(ctx);
    if (isNotApplicable(rule)) return rule;
    return {
      ...rule,
      rule: 'exact Rényi accountant, a sum over the integers (docs/math.md §21)',
      problem: (pc, ordered) => {
        onIntegers(pc);
        return rule.problem(pc, ordered);
      },
    };
  },
};

/** P(|Z| > k) = 2r^{k+1}/(1 + r). */
const tailBeyond = (b: number, k: number): number => (2 * Math.exp(-(k + 1) / b)) / (1 + Math.exp(-1 / b));

/** The smallest integer k with P(|Z| ≤ k) ≥ coverage, with a relative margin of 10⁻⁹ on the tail so rounding never undercovers. */
function integerHalfWidth(b: number, coverage: number): number {
  const covers = (k: number) => tailBeyond(b, k) * (1 + 1e-9) <= 1 - coverage;
  let k = Math.max(0, Math.ceil(b * Math.log(2 / ((1 - coverage) * (1 + Math.exp(-1 / b)))) - 1));
  // Past 2⁵⁰ the integers are too sparse to step through: the closed form, widened by 10⁻⁹ (rounded up).
  if (k > 2 ** 50) return Math.ceil(k * (1 + 1e-9));
  while (!covers(k)) k++;
  while (k > 0 && covers(k - 1)) k--;
  return k;
}

export const geometric: MechanismDef = {
  name: 'geometric',
  title: 'Geometric',
  parameter: 'b',
  symbol: 'b',
  theoremLabel: 'W∞ mechanism',
  varianceFormula: '2r/(1−r)², r = e^{−1/b}',
  composes: 'lattice',
  alphaRange: (alpha) => beyondFiniteOrders('Geometric', alpha),
  variance: (b) => {
    const r = Math.exp(-1 / b);
    return (2 * r) / Math.expm1(-1 / b) ** 2;
  },
  halfWidth: integerHalfWidth,
  accountant: () => (b) => noiseOf('geometric', b),
  sampler: (b) => geometricNoise(b),
  // D∞ = Δ/b for an integer shift Δ bounds every α; a non-integer shift moves the outputs off the lattice (∞).
  pointDivergence: (delta, b) => (Number.isInteger(delta) ? { value: delta / b, error: EPS * (delta / b) } : { value: Infinity, error: 0 }),
  options: [],
  describe: () => ({}),
  rules,
  mi: notApplicable('the MI guarantee covers Laplace and Gaussian noise'),
  product: {
    norm: 'l1',
    // Σ_c (α−1)·G_α(k_c, b_c), each certified in closed form at the coordinate's own shift and scale
    // (docs/math.md §21); a shift off the integers gives ∞.
    exponent: (alpha, _t, coords, lattice) => {
      if (!lattice) return { value: Infinity, error: 0 };
      let sum = 0,
        err = 0;
      for (const c of coords) {
        const [k, scale] = lattice(c);
        const e = geometricShiftExponent(alpha, k, scale);
        sum += e.value;
        err += e.error + EPS * Math.abs(sum);
      }
      return { value: sum, error: err };
    },
    // The transport's cost (no certificate): the shift's D∞ exponent, which G_α approaches for large shifts.
    cost: (alpha, t) => (alpha - 1) * t,
    term: 'G_α (the geometric shift’s divergence)',
    // Σ_c G_α ≤ Σ_c D∞ = Σ_c k_c/b_c ≤ ‖Δ‖/b in the weighted ℓ₁ norm: N·W/ε (the search nudges it up past rounding).
    feasibleScale: (_alpha, n, dist, epsilon) => (n * dist) / epsilon,
    normExponent: (alpha, n, dist, b) => (alpha * n * dist) / b,
    // On integer shifts only: the laws are checked to be integer-valued wherever this noise meets them.
    dInfRate: (b) => 1 / b,
  },
};
