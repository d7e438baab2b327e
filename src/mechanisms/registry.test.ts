import { describe, expect, it } from 'vitest';
import { calibrate } from '../calibrate/calibrate.js';
import { calibrationRule } from '../calibrate/rules.js';
import type { Scenario } from '../distribution/scenario.js';
import { absCost, sqrtCost } from '../conditions/costs.js';
import { fromCounts } from '../distribution/discrete.js';
import { InputError } from '../errors.js';
import { isNotApplicable, SINGLE_METHODS, type MechanismDef, type RuleEntry, type RuleTable, type SingleMethod } from './mechanism.js';
import { MECHANISMS, mechanismDef, noiseOptions, REGISTRY, type Mechanism } from './registry.js';

const scenario: Scenario = {
  name: 'two secrets',
  priors: [{ name: 'p', conditionals: { a: fromCounts([0, 1, 2], [3, 2, 1]), b: fromCounts([0, 1, 3], [1, 2, 3]) } }],
};
const ALPHAS = [0.5, 2, 8, Infinity];

describe('mechanism registry', () => {
  it('lists each family once, under its own name, with a complete rule table', () => {
    expect(MECHANISMS).toEqual(Object.keys(REGISTRY));
    for (const m of MECHANISMS) {
      expect(REGISTRY[m].name).toBe(m);
      for (const method of SINGLE_METHODS) expect(typeof REGISTRY[m].rules[method]).toBe('function');
    }
  });

  // Every (mechanism, cost, method, α) either calibrates with the table's rule, or is refused with
  // the table's (or the family's α range's) reason — nothing falls through to another family's rule.
  const cases = MECHANISMS.flatMap((mechanism) =>
    (mechanism === 'exponential' ? [absCost, sqrtCost] : [absCost]).flatMap((cost) =>
      SINGLE_METHODS.flatMap((method) => ALPHAS.map((alpha) => ({ mechanism, cost, method, alpha }))),
    ),
  );
  it.each(cases)('$mechanism ($cost.name) $method at α = $alpha: calibrates or is refused with the registry reason', ({ mechanism, cost, method, alpha }) => {
    const settings = { mechanism, method, alpha, epsilon: 1, cost };
    const def = mechanismDef(mechanism);
    const outside = def.alphaRange(alpha);
    if (outside) {
      expect(() => calibrate(scenario, settings)).toThrow(outside);
      return;
    }
    const o = noiseOptions(settings);
    const entry = def.rules[method]({ alpha, epsilon: 1, releases: 1, ...o, accountant: def.accountant(o), bounds: () => [] });
    if (isNotApplicable(entry)) {
      let err: unknown;
      try {
        calibrate(scenario, settings);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).message).toContain(entry.notApplicable);
      return;
    }
    const r = calibrate(scenario, settings);
    expect(r.rule).toBe(calibrationRule(settings).rule);
    expect(r.rule).toBe(entry.rule);
    expect(r.parameter).toBe(def.parameter);
    // Scale 0 only with a stated reason (e.g. exact at α < 1: the data itself meets ε).
    if (r.scale === 0) expect(r.pairs.every((p) => p.zeroReason)).toBe(true);
    else expect(r.binding).not.toBeNull();
    expect(r.variance).toBe(def.variance(r.scale, o));
  });

  it('names the unknown mechanism', () => {
    expect(() => mechanismDef('cauchy')).toThrow(/unknown mechanism 'cauchy' \(one of laplace, gaussian, exponential, geometric\)/);
    expect(() => mechanismDef('toString')).toThrow(/unknown mechanism/);
  });
});

// Type-level checks: `npm run typecheck` fails if any of these starts to compile (an unused
// expect-error directive is itself an error), so the registry's exhaustiveness is tested, not assumed.
describe('the compiler enforces the registry (type-level)', () => {
  it('refuses a family without every field, a table without every method, and a method added for one family only', () => {
    const entry: RuleEntry = () => ({ notApplicable: 'test' });
    // A new family that forgets its sampler (or any other field) does not compile.
    // @ts-expect-error — 'sampler' is missing
    const cauchy: MechanismDef = { ...REGISTRY.laplace, sampler: undefined };
    // A rule table missing a method does not compile.
    // @ts-expect-error — 'exact' is missing
    const partial: RuleTable = { theorem: entry, pierquin: entry, 'wasserstein-inf': entry, coupled: entry };
    // A method added to the list but declared for one family only: the others' tables no longer fit.
    type Widened = { readonly [M in SingleMethod | 'new-method']: RuleEntry };
    // @ts-expect-error — the Laplace table has no 'new-method'
    const widened: Widened = REGISTRY.laplace.rules;
    // A registry key must name a family the type knows: a fourth mechanism needs its own entry.
    // @ts-expect-error — 'cauchy' is not registered
    const fourth: MechanismDef = REGISTRY['cauchy' as Mechanism | 'cauchy'];
    expect([cauchy, partial, widened, fourth].length).toBe(4);
  });
});
