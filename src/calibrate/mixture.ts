import { MECHANISMS, mechanismDef, noiseOptions } from '../mechanisms/registry.js';
import { IDENTICAL } from './result.js';
import type { CalibrationKind } from './kind.js';
import { checkSettings, type CalibrationSettings, type Mechanism, type SingleMethod } from './rules.js';
import { priorPairs } from '../distribution/scenario.js';
import { InputError } from '../errors.js';
import { isNotApplicable, type MixturePair, type MixtureRule, type MixtureRules, type NoNoise } from '../mechanisms/mechanism.js';
import { EPS } from '../numerics/float.js';
import type { ScaleProblem } from '../numerics/smallestScale.js';
import { componentCoupling, couplingThreshold, trueThreshold } from '../gaussianPriors/gaussianScenario.js';
import { checkMixture, type GaussianScenario } from '../distribution/mixture.js';

type MixtureSettings = Pick<CalibrationSettings, 'mechanism' | 'method' | 'alpha' | 'epsilon' | 'releases' | 'contamination'>;

/**
 * The noise family Gaussian and mixture priors are calibrated with when none is named: the
 * registry's first family with rules for them (its divergences between Gaussian components have
 * closed forms, docs/math.md §11).
 */
export const MIXTURE_NOISE: Mechanism = MECHANISMS.find((m) => mechanismDef(m).mixture)!;

/** The family's rules for Gaussian and mixture priors, or the refusal naming `mechanism`. */
function rulesOf(mechanism: Mechanism): MixtureRules {
  const rules = mechanismDef(mechanism).mixture;
  if (!rules)
    throw new InputError(
      `Gaussian and mixture priors are calibrated for ${mechanismDef(MIXTURE_NOISE).title} noise (closed-form D_α, docs/math.md §11); for ${mechanism} noise give the conditionals as values`,
      'mechanism',
    );
  return rules;
}

/** One method's rule at the settings (a method the family's table refuses is refused, naming the ones that apply). */
function ruleOf(s: MixtureSettings & { method: SingleMethod }): MixtureRule {
  const { order, rules } = rulesOf(s.mechanism);
  const rule = order.includes(s.method) ? rules[s.method]({ alpha: s.alpha, epsilon: s.epsilon }) : null;
  if (!rule || isNotApplicable(rule))
    throw new InputError(`method '${s.method}' does not apply to Gaussian priors (one of ${order.join(', ')}, best)`, 'method');
  return rule;
}

/** Checks the settings and the scenario for Gaussian priors; the pairs with their couplings. */
function pairsFor(scenario: GaussianScenario, s: MixtureSettings): MixturePair[] {
  rulesOf(s.mechanism);
  checkSettings({ ...s, method: s.method });
  if (s.contamination && s.contamination.lambda > 0)
    throw new InputError('is not available for Gaussian priors yet (give the conditionals as values to use a contamination class)', 'contamination');
  if (s.method !== 'best') ruleOf({ ...s, method: s.method as SingleMethod });
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

/** Which methods apply to every pair (the others with the first pair's reason), in `best`'s order. */
function applicable(pairs: MixturePair[], s: MixtureSettings): { methods: SingleMethod[]; reasons: string[] } {
  const reasons: string[] = [];
  const methods = rulesOf(s.mechanism).order.filter((method) => {
    const rule = ruleOf({ ...s, method });
    for (const pc of pairs) {
      const why = rule.leftOut?.(pc);
      if (why) return !reasons.push(`${method} left out: ${why}`);
    }
    return true;
  });
  return { methods, reasons };
}

/** Identical conditionals: no method's condition is asked of them. */
const identical = ({ c }: MixturePair) => c.p.every((x, k) => x.mean === c.q[k].mean && x.sd === c.q[k].sd);

/**
 * Gaussian and mixture priors as a kind of the one calibration (docs/math.md §11): per (prior,
 * pair) the smallest scale meeting the method's closed-form condition, the rules the noise family's
 * own (`MechanismDef.mixture`). N releases: the mean of N releases is sufficient, so the condition
 * is checked at σ/√N.
 */
export const MIXTURE: CalibrationKind<GaussianScenario, MixturePair> = {
  check(scenario, s) {
    pairsFor(scenario, s);
    return s;
  },
  bestMethods(scenario, s) {
    const { methods, reasons } = applicable(pairsFor(scenario, s), s);
    return { methods, note: reasons.length ? ` (${reasons.join('; ')})` : '' };
  },
  units(scenario, s) {
    const rule = ruleOf(s);
    const n = s.releases ?? 1;
    const sufficient = mechanismDef(s.mechanism).sufficientScale;
    if (n > 1 && !sufficient) throw new InputError(`${s.mechanism} noise has no one-release equivalent of ${n} releases on Gaussian priors`, 'releases');
    const ordered = scenario.ordered ?? false;
    return pairsFor(scenario, s).map((pc) => ({
      label: pc,
      problem: (): ScaleProblem | NoNoise => {
        if (identical(pc)) return { zero: IDENTICAL };
        const b = rule.problem(pc, ordered);
        if (isNotApplicable(b)) throw new InputError(`prior '${pc.prior}', pair ${pc.pair.join(' vs ')}: ${b.notApplicable}`, 'method');
        if ('zero' in b || n === 1) return b;
        // N releases carry what one release at the family's sufficient scale does (Gaussian: the mean, σ/√N; docs/math.md §9).
        const r = Math.sqrt(n);
        return { ...b, evaluate: (x) => b.evaluate(sufficient!.toSingle(x, n)), lower: b.lower * r * (1 - 4 * EPS), upper: b.upper * r * (1 + 4 * EPS) };
      },
    }));
  },
  text(scenario, s, sol) {
    const { rule, condition } = ruleOf(s);
    const n = s.releases ?? 1;
    const ordered = scenario.ordered ?? false;
    const top = sol.top.label;
    const threshold = sol.scale > 0 ? trueThreshold(top.P, top.Q, s.alpha, ordered) * Math.sqrt(n) : 0;
    const own = sol.scale > 0 && s.method === 'coupled' ? couplingThreshold(top.c, s.alpha, ordered) * Math.sqrt(n) : 0;
    const finite =
      (threshold > 0
        ? ` No σ ≤ ${threshold.toPrecision(6)} gives a finite α-guarantee for this pair (α·τ_j² − (α−1)·τ_i² + σ² > 0 is needed for the widest components: the wider conditional's tails outweigh the narrower one's at this α), so the scale lies above that threshold.`
        : '') + (own > threshold ? ` This method's component coupling is finite only above σ = ${own.toPrecision(6)}.` : '');
    const def = mechanismDef(s.mechanism);
    return {
      settings: s,
      parameter: def.parameter,
      variance: def.variance(sol.scale, noiseOptions({})),
      rule,
      meets: `with ${condition}`,
      symbol: def.symbol,
      before: n > 1 ? `For ${n} releases of the same value, together (the mean is sufficient: one release at ${def.symbol}/√${n}): ` : '',
      bindingNote: finite,
    };
  },
};
