import { noiseOf } from '../kernels.js';
import { exactRule } from '../exactRule.js';
import type { PairCoupling } from '../../coupling/pairs.js';
import { absCost, sqrtCost, type Cost } from '../../conditions/costs.js';
import { corollary1Problem } from '../../conditions/corollary1.js';
import { coupledLaplaceProblem } from '../../conditions/coupled.js';
import { songProblem } from '../../conditions/song.js';
import { InputError } from '../../errors.js';
import { EPS, maxOf, nextUp } from '../../numerics/float.js';
import { laplacePointDivergence } from '../laplace/laplace.js';
import { laplaceNoise, sqrtCostNoise } from '../../sampling/samplers.js';
import { beyondFiniteOrders, notApplicable, type MechanismDef, type RuleTable } from '../mechanism.js';

const maxCost = (pc: PairCoupling, cost: Cost) => maxOf(pc.coupling.x.map((x, k) => cost.apply(x - pc.coupling.y[k])));

/**
 * The exponential mechanism p(z) ∝ exp(−η(θ)·c(z)) (paper §2.2, Corollary 1). With c = |z| it is
 * Laplace noise with b = 1/η(θ), which is what the coupled bound and the exact accountant use.
 */
const rules: RuleTable = {
  theorem: ({ alpha, epsilon, cost, eta, releases: n }) => {
    if (alpha < 1) return notApplicable('Corollary 1 needs α > 1 (use wasserstein-inf, valid for every α)');
    if (n > 1) return notApplicable('Corollary 1 covers one release; for several use coupled (c = |z|) or wasserstein-inf');
    return alpha === Infinity
      ? { rule: 'Corollary 1 (α = ∞)', condition: 'η(θ)·sup_π* c(x−x′) ≤ ε', problem: (pc) => corollary1Problem(pc.coupling, alpha, epsilon, cost, eta) }
      : {
          rule: 'Corollary 1 (eq. 16)',
          condition: 'log E_π* exp(α·η(θ)·c(x−x′)) ≤ (α−1)ε',
          problem: (pc) => corollary1Problem(pc.coupling, alpha, epsilon, cost, eta),
        };
  },
  pierquin: () => notApplicable('Cor. 3.1 covers Laplace and Gaussian noise only'),
  // N releases: the product density ratio is at most e^{N·η(θ)·sup c} (docs/math.md §9); N·sup c rounded up.
  'wasserstein-inf': ({ epsilon, cost, eta, releases: n }) => ({
    rule: `Song et al. 2017 / Corollary 1 at α = ∞${n > 1 ? `, ${n} releases (docs/math.md §9)` : ''}`,
    condition: n > 1 ? `${n}·η(θ)·sup_π* c(x−x′) ≤ ε` : 'η(θ)·sup_π* c(x−x′) ≤ ε',
    problem: (pc) => songProblem(n === 1 ? maxCost(pc, cost) : nextUp(n * maxCost(pc, cost)), epsilon, eta),
  }),
  coupled: ({ alpha, epsilon, cost, eta, releases: n }) => {
    if (cost !== absCost) return notApplicable('the coupled bound needs the exact divergence of shifted noise, known in closed form for c = |z| only');
    if (alpha < 1) return notApplicable('the coupled bound is for α > 1');
    if (alpha === Infinity) {
      return n === 1
        ? {
            rule: 'coupled bound at α = ∞ (= Corollary 1)',
            condition: 'η(θ)·W∞ ≤ ε',
            problem: (pc) => corollary1Problem(pc.coupling, alpha, epsilon, cost, eta),
          }
        : {
            rule: `coupled bound at α = ∞, ${n} releases`,
            condition: `${n}·η(θ)·W∞ ≤ ε`,
            problem: (pc) => songProblem(nextUp(n * maxCost(pc, cost)), epsilon, eta),
          };
    }
    return {
      rule: `coupled RDP bound (docs/math.md §4), c = |z|${n > 1 ? `, ${n} releases (§9)` : ''}`,
      condition: `log E_π* exp((α−1)${n > 1 ? `·${n}` : ''}R_α(η(θ)|x−x′|)) ≤ (α−1)ε`,
      problem: (pc) => coupledLaplaceProblem(pc.coupling, alpha, epsilon, eta, n),
    };
  },
  exact: exactRule,
};

export const exponential: MechanismDef = {
  name: 'exponential',
  title: 'Exponential',
  parameter: 'theta',
  symbol: 'θ',
  theoremLabel: 'Corollary 1',
  varianceFormula: 'Var(η(θ), c)',
  composes: 'ratio',
  alphaRange: (alpha) => beyondFiniteOrders('exponential-mechanism', alpha),
  variance: (theta, { cost, eta }) => cost.variance(eta.at(theta)),
  halfWidth: (theta, coverage, { cost, eta }) => {
    const e = eta.at(theta);
    if (cost === absCost) return nextUp(nextUp(-Math.log1p(-coverage) / e));
    if (cost === sqrtCost) {
      // √|Z| is Gamma(2, η): P(√|Z| > t) = e^{−v}(1 + v), v = ηt; bisection keeps the covering end.
      let lo = 0,
        hi = 1;
      while (Math.exp(-hi) * (1 + hi) > 1 - coverage) hi *= 2;
      for (let i = 0; i < 200 && nextUp(lo) < hi; i++) {
        const mid = (lo + hi) / 2;
        if (Math.exp(-mid) * (1 + mid) > 1 - coverage) lo = mid;
        else hi = mid;
      }
      return nextUp(((hi * (1 + 1e-12)) / e) ** 2);
    }
    throw new InputError(`no noise quantile for cost '${cost.name}' (abs and sqrt have one)`, 'cost');
  },
  accountant: ({ cost, eta }) =>
    cost === absCost ? (theta) => noiseOf('laplace', 1 / eta.at(theta)) : notApplicable('exact accounting covers c = |z| (Laplace-shaped noise) only'),
  // Derived parameters are rounded towards more noise: b = 1/η up, the rate η down.
  sampler: (theta, { cost, eta }) => {
    const e = eta.at(theta);
    if (cost === absCost) return laplaceNoise(nextUp(nextUp(1 / e)));
    if (cost === sqrtCost) return sqrtCostNoise(e * (1 - 4 * Number.EPSILON));
    throw new InputError(`no exact sampler for cost '${cost.name}' (abs and sqrt have one)`, 'cost');
  },
  // c = |z| is Laplace with b = 1/η; other costs: the density ratio is at most e^{η·c(Δ)} (a D∞ bound).
  pointDivergence: (delta, theta, alpha, { cost, eta }) => {
    const e = eta.at(theta);
    if (cost === absCost) return laplacePointDivergence(delta * e, alpha);
    const value = e * cost.apply(delta);
    return { value, error: 8 * EPS * value };
  },
  options: ['cost', 'eta'],
  describe: ({ cost, eta }) => ({ cost: cost.name, eta: eta.name }),
  rules,
  mi: notApplicable('the MI guarantee covers Laplace and Gaussian noise'),
  product: notApplicable('vector queries take laplace, gaussian or geometric noise (independent per coordinate)'),
};
