import { noiseOf } from '../kernels.js';
import { exactRule } from '../exactRule.js';
import { pierquinGaussianProblem } from '../../conditions/pierquin.js';
import { theorem2Problem } from '../../conditions/theorem2.js';
import { divideDown } from '../../conditions/repeated.js';
import { EPS } from '../../numerics/float.js';
import { normalQuantile } from '../../numerics/normalQuantile.js';
import { gaussianNoise } from '../../sampling/samplers.js';
import { notApplicable, type MechanismDef, type RuleTable } from '../mechanism.js';
import { mixtureRules } from './mixture.js';

/** Gaussian noise N(0, σ²) (paper §2.2, Theorem 2): finite α > 1 only. */
const rules: RuleTable = {
  theorem: ({ alpha, epsilon }) => ({
    rule: 'Theorem 2 (eq. 18)',
    condition: 'log E_π* exp(α(α−1)(x−x′)²/(2σ²)) ≤ (α−1)ε',
    problem: (pc) => theorem2Problem(pc.coupling, alpha, epsilon),
  }),
  pierquin: ({ alpha, epsilon }) => ({
    rule: 'Pierquin et al. 2024, Cor. 3.1 (Gaussian)',
    condition: 'σ ≥ W∞·√(α/(2ε))',
    problem: (pc) => pierquinGaussianProblem(pc.wInf, alpha, epsilon),
  }),
  'wasserstein-inf': () => notApplicable('the W∞ mechanism is a Laplace (ε-Pufferfish) mechanism; use pierquin for a W∞-based Gaussian baseline'),
  // The coupled bound's inner term for Gaussian noise is α(x−x′)²/(2σ²): it *is* Theorem 2.
  coupled: ({ alpha, epsilon }) => ({
    rule: 'coupled RDP bound (docs/math.md §4) = Theorem 2 for Gaussian noise',
    condition: 'log E_π* exp((α−1)·α(x−x′)²/(2σ²)) ≤ (α−1)ε',
    problem: (pc) => theorem2Problem(pc.coupling, alpha, epsilon),
  }),
  exact: exactRule,
};

export const gaussian: MechanismDef = {
  name: 'gaussian',
  title: 'Gaussian',
  parameter: 'sigma',
  symbol: 'σ',
  theoremLabel: 'Theorem 2',
  varianceFormula: 'σ²',
  composes: 'precision',
  scaleFamily: true,
  alphaRange: (alpha) =>
    alpha === Infinity
      ? 'Gaussian noise cannot give α = ∞ (its log-likelihood ratio is unbounded); use a finite α or the Laplace mechanism'
      : alpha < 1
        ? 'Gaussian calibration (Theorem 2) needs α > 1'
        : // σ grows as √α and the conditions carry α²Δ²/σ²: past 1e150 their brackets leave the doubles.
          alpha > 1e150
          ? 'Gaussian calibration covers α up to 1e150 (the noise grows as √α; beyond, its search leaves the range of a double)'
          : null,
  variance: (sigma) => sigma * sigma,
  // σ·Φ⁻¹((1 + coverage)/2), widened past the approximation's 1.2·10⁻⁹ relative error.
  // The lower tail (1 − c)/2 keeps its digits when c is near 1 (0.5 + c/2 would round to 1).
  halfWidth: (sigma, coverage) => sigma * -normalQuantile((1 - coverage) / 2) * (1 + 1e-8),
  accountant: () => (sigma) => noiseOf('gaussian', sigma),
  sampler: (sigma) => gaussianNoise(sigma),
  // Ȳ = X + N(0, σ²/N) is sufficient for X: N releases are one release at σ/√N (docs/math.md §9).
  sufficientScale: { toSingle: (sigma, n) => divideDown(sigma, Math.sqrt(n)), fromSingle: (sigma, n) => sigma * Math.sqrt(n) },
  // D_α(N(0, σ²) ‖ N(Δ, σ²)) = αΔ²/(2σ²) for every α > 0 (∞ at α = ∞).
  pointDivergence: (delta, sigma, alpha) => {
    const value = (alpha * delta * delta) / (2 * sigma * sigma);
    return { value, error: 8 * EPS * value };
  },
  options: [],
  describe: () => ({}),
  rules,
  mixture: mixtureRules,
  coupledIsTheorem: 'For Gaussian noise the coupled bound equals Theorem 2, so their lines coincide (two point shapes on one line).',
  product: {
    norm: 'l2',
    // α(α−1)/2 · Σ_c t_c² (D_α of a shifted Gaussian is αΔ²/2σ²), with the sum's rounding.
    exponent: (alpha, t, coords) => {
      let sum = 0,
        err = 0;
      for (const c of coords) {
        const x = t(c);
        sum += x * x;
        err += 4 * EPS * Math.abs(sum);
      }
      const k = (alpha * (alpha - 1)) / 2;
      return { value: k * sum, error: k * err };
    },
    cost: (alpha, t) => ((alpha * (alpha - 1)) / 2) * t * t,
    term: 'αΔ_c²/(2σ²)',
    // N·α·W²/(2σ²) ≤ ε (the search nudges it up past rounding).
    feasibleScale: (alpha, n, dist, epsilon) => dist * Math.sqrt((alpha * n) / (2 * epsilon)),
    normExponent: (alpha, n, dist, sigma) => (alpha * (alpha - 1) * n * dist * dist) / (2 * sigma * sigma),
  },
  // h(Y) ≤ ½ log 2πe(Var X + σ²) and h(Y|X) = h(N) (docs/math.md §7).
  mi: {
    rule: 'MI variance bound σ² ≥ Var X/(e^{2ε}−1) (docs/math.md §7)',
    value: (m, sigma) => 0.5 * Math.log1p(m.variance / (sigma * sigma)),
    closed: (m, epsilon) => Math.sqrt(m.variance / Math.expm1(2 * epsilon)),
  },
};
