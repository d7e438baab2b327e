import { exactRule } from '../../calibrate/exactRule.js';
import { wInf } from '../../coupling/wasserstein.js';
import { coupledLaplaceProblem } from '../../conditions/coupled.js';
import { powerIntensity } from '../../conditions/moment.js';
import { pierquinLaplaceProblem } from '../../conditions/pierquin.js';
import { proposition1Problem } from '../../conditions/proposition1.js';
import { songProblem } from '../../conditions/song.js';
import { theorem1Problem } from '../../conditions/theorem1.js';
import { laplaceNoise } from '../../release/samplers.js';
import { notApplicable, type MechanismDef, type RuleTable } from '../mechanism.js';

/** b ↦ 1/b: the Laplace rate as the W∞ and coupled conditions take it. */
const rate = powerIntensity(1, 1);

/** Laplace noise, density e^{−|z|/b}/(2b) (paper §2.2): every method, every α ∈ (0,1) ∪ (1,∞]. */
const rules: RuleTable = {
  theorem: ({ alpha, epsilon }) => {
    if (alpha < 1) {
      return {
        rule: 'Proposition 1',
        condition: 'E_π* exp(−α|x−x′|/b) ≥ e^{(α−1)ε}',
        problem: (pc) => proposition1Problem(pc.coupling, alpha, epsilon) ?? { zero: 'π* keeps mass ≥ e^{(α−1)ε} in place, so Proposition 1 holds for every b > 0 and for the data itself' },
      };
    }
    if (alpha === Infinity) return { rule: 'Remark 1 (α = ∞)', condition: 'b ≥ W∞/ε', problem: (pc) => theorem1Problem(pc.coupling, alpha, epsilon) };
    return { rule: 'Theorem 1 (eq. 7)', condition: 'log E_π* exp(α|x−x′|/b) ≤ (α−1)ε', problem: (pc) => theorem1Problem(pc.coupling, alpha, epsilon) };
  },
  pierquin: ({ alpha, epsilon }) => alpha < 1
    ? notApplicable('Cor. 3.1 (Mironov’s Laplace RDP) is for α > 1')
    : { rule: 'Pierquin et al. 2024, Cor. 3.1 (Laplace)', condition: 'R_α(W∞/b) ≤ ε', problem: (pc) => pierquinLaplaceProblem(wInf(pc.coupling), alpha, epsilon) },
  'wasserstein-inf': ({ epsilon }) => ({ rule: 'Song et al. 2017 (W∞ mechanism)', condition: 'b ≥ W∞/ε', problem: (pc) => songProblem(wInf(pc.coupling), epsilon, rate) }),
  coupled: ({ alpha, epsilon }) => {
    if (alpha < 1) return notApplicable('the coupled bound is for α > 1');
    return alpha === Infinity
      ? { rule: 'coupled bound at α = ∞ (= Remark 1)', condition: 'b ≥ W∞/ε', problem: (pc) => theorem1Problem(pc.coupling, alpha, epsilon) }
      : { rule: 'coupled RDP bound (docs/math.md §4)', condition: 'log E_π* exp((α−1)R_α(|x−x′|/b)) ≤ (α−1)ε', problem: (pc) => coupledLaplaceProblem(pc.coupling, alpha, epsilon, rate) };
  },
  exact: exactRule,
};

export const laplace: MechanismDef = {
  name: 'laplace',
  title: 'Laplace',
  parameter: 'b',
  symbol: 'b',
  theoremLabel: 'Theorem 1',
  varianceFormula: '2b²',
  alphaRange: () => null,
  variance: (b) => 2 * b * b,
  accountant: () => (b) => ({ family: 'laplace', scale: b }),
  sampler: (b) => laplaceNoise(b),
  describe: () => ({}),
  rules,
  // The Laplace law maximises entropy at a given mean absolute deviation (docs/math.md §7).
  mi: {
    rule: 'MI deviation bound b ≥ E|X−EX|/(e^ε−1) (docs/math.md §7)',
    value: (m, b) => Math.log1p(m.mad / b),
    closed: (m, epsilon) => m.mad / Math.expm1(epsilon),
  },
};
