import { numberText } from '../numerics/decimal.js';
import { checkSetting } from '../settings.js';
import type { Cost, Eta } from '../conditions/costs.js';
import { atSingleScale } from '../conditions/repeated.js';
import type { Contamination } from './contamination.js';
import { InputError, unknownName } from '../errors.js';
import {
  isNotApplicable,
  METHODS,
  SINGLE_METHODS,
  type CalibrationRule,
  type Method,
  type NotApplicable,
  type RuleContext,
  type SingleMethod,
} from '../mechanisms/mechanism.js';
import { mechanismDef, noiseOptions, type Mechanism } from '../mechanisms/registry.js';

export { MECHANISMS, type Mechanism } from '../mechanisms/registry.js';
export { METHODS, METHOD_LABEL, type CalibrationRule, type Method, type SingleMethod } from '../mechanisms/mechanism.js';

/** What to calibrate: the noise family, the method, the Rényi order α and budget ε, and optional releases, contamination class and exponential-mechanism cost. */
export interface CalibrationSettings {
  mechanism: Mechanism;
  method: Method;
  /** Rényi order; `Infinity` for ε-Pufferfish privacy. */
  alpha: number;
  epsilon: number;
  /** Exponential mechanism only: the cost c (default |·|) and η(θ) (default 1/θ). */
  cost?: Cost;
  eta?: Eta;
  /** Releases of the same value to account jointly (default 1); docs/math.md §9. */
  releases?: number;
  /** Guarantee for every prior within λ of the class (mass moved anywhere in the domain); docs/math.md §10. */
  contamination?: Contamination;
}

/** The most releases accounted jointly (beyond, the noise would swamp any use of the value). */
const MAX_RELEASES = 1_000_000;

/** Checks α, ε, the mechanism and the method; throws InputError naming the field. */
export function checkSettings(s: CalibrationSettings): void {
  const { mechanism, method, alpha, epsilon } = s;
  if (typeof alpha !== 'number' || Number.isNaN(alpha) || alpha <= 0) throw new InputError(`must be a number > 0 or "inf", got ${String(alpha)}`, 'alpha');
  if (alpha === 1) throw new InputError('α = 1 (KL divergence) is not a Rényi order these bounds cover; use α ≠ 1, e.g. 1.01', 'alpha');
  checkSetting('epsilon', epsilon);
  const def = mechanismDef(mechanism);
  if (!(METHODS as readonly string[]).includes(method)) throw unknownName('method', String(method), METHODS, 'method', 'one of ');
  const outside = def.alphaRange(alpha);
  if (outside) throw new InputError(outside, 'alpha');
  const n = s.releases ?? 1;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_RELEASES)
    throw new InputError(`must be a whole number from 1 to ${MAX_RELEASES}, got ${String(s.releases)}`, 'releases');
}

/** The rule of one single method for these settings, from the family's table, or why it does not apply. */
function ruleOrReason(s: CalibrationSettings & { method: SingleMethod }): CalibrationRule | NotApplicable {
  const def = mechanismDef(s.mechanism);
  const n = s.releases ?? 1;
  const sufficient = def.sufficientScale;
  if (n > 1 && sufficient) {
    // N releases are one release at a smaller scale: the single-release rule at that scale.
    const one = ruleOrReason({ ...s, releases: 1 });
    if (isNotApplicable(one)) return one;
    return {
      rule: `${one.rule}, ${n} releases as one at ${def.symbol}/√${n} (docs/math.md §9)`,
      condition: `${one.condition} at ${def.symbol}/√${n}`,
      problem(pc, ordered) {
        const p = one.problem(pc, ordered);
        return 'zero' in p
          ? p
          : atSingleScale(
              p,
              (x) => sufficient.toSingle(x, n),
              (x) => sufficient.fromSingle(x, n),
            );
      },
    };
  }
  const o = noiseOptions(s);
  const ctx: RuleContext = {
    alpha: s.alpha,
    epsilon: s.epsilon,
    releases: n,
    ...o,
    accountant: def.accountant(o),
    bounds: () =>
      SINGLE_METHODS.filter((m) => m !== 'exact')
        .map((method) => def.rules[method](ctx))
        .filter((r): r is CalibrationRule => !isNotApplicable(r)),
  };
  return def.rules[s.method](ctx);
}

/** Checks the settings and returns the rule of a single method; InputError if it does not apply. */
export function calibrationRule(s: CalibrationSettings & { method: SingleMethod }): CalibrationRule {
  checkSettings(s);
  const r = ruleOrReason(s);
  if (isNotApplicable(r)) throw new InputError(`${s.method} does not apply to ${s.mechanism} at α = ${numberText(s.alpha)}: ${r.notApplicable}`, 'method');
  return r;
}

/**
 * The single methods that apply to these settings (what `best` chooses from).
 * @example applicableMethods({ mechanism: 'gaussian', method: 'best', alpha: 2, epsilon: 1 }) // ['theorem', 'pierquin', 'coupled', 'exact']
 */
export function applicableMethods(s: CalibrationSettings): SingleMethod[] {
  checkSettings(s);
  return SINGLE_METHODS.filter((method) => !isNotApplicable(ruleOrReason({ ...s, method })));
}
