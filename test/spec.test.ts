import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { calibrate } from '../src/calibrate/calibrate.js';
import { InputError } from '../src/errors.js';
import { scenarioFromSpec } from '../src/spec/load.js';

const example = () => JSON.parse(readFileSync(new URL('./fixtures/issue-example.json', import.meta.url), 'utf8'));

describe('scenario spec', () => {
  it('parses the documented example and calibrates it', () => {
    const { scenario, defaults } = scenarioFromSpec(example());
    expect(defaults).toMatchObject({ mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 });
    const r = calibrate(scenario, defaults as never);
    expect(r.binding).toEqual({ prior: 'empirical', pair: ['Husband', 'Not-in-family'] });
    expect(r.scale).toBeGreaterThan(0);
  });

  it('"inf" is α = ∞', () => {
    const spec = { ...example(), alpha: 'inf' };
    expect(scenarioFromSpec(spec).defaults.alpha).toBe(Infinity);
  });

  const bad: [string, (s: any) => void, string][] = [
    [
      'negative weight',
      (s) => (s.priors[0].conditionals['Not-in-family'].weights[1] = -0.3),
      'spec.priors[0].conditionals["Not-in-family"].weights[1]: weight -0.3 is negative',
    ],
    ['all-zero counts', (s) => (s.priors[0].conditionals.Husband.counts = [0, 0, 0]), 'spec.priors[0].conditionals.Husband.counts: counts sum to zero'],
    [
      'length mismatch',
      (s) => (s.priors[0].conditionals.Husband.counts = [1, 2]),
      'spec.priors[0].conditionals.Husband.counts: has 2 entries but values has 3',
    ],
    [
      'both counts and weights',
      (s) => (s.priors[0].conditionals.Husband.weights = [1, 1, 1]),
      'spec.priors[0].conditionals.Husband: give exactly one of "counts" or "weights"',
    ],
    ['non-numeric value', (s) => (s.priors[0].conditionals.Husband.values[0] = 'x'), 'spec.priors[0].conditionals.Husband.values[0]'],
    ['unknown secret in a pair', (s) => (s.pairs = [['Husband', 'Wife']]), "spec.pairs[0][1]: unknown secret 'Wife'"],
    [
      'prior missing a secret',
      (s) => s.priors.push({ name: 'other', conditionals: { Husband: { values: [1], counts: [1] } } }),
      "spec.priors[1].conditionals: prior 'other' is missing secret 'Not-in-family'",
    ],
    [
      'fewer than two secrets',
      (s) => delete s.priors[0].conditionals.Husband,
      "spec.priors[0].conditionals: prior 'empirical' has 1 secret(s); at least two are needed",
    ],
    ['unknown mechanism', (s) => (s.mechanism = 'cauchy'), 'spec.mechanism'],
    ['unknown field', (s) => (s.epsilonn = 1), 'spec: Unrecognized key'],
    ['bad alpha string', (s) => (s.alpha = 'big'), 'spec.alpha'],
    ['no priors', (s) => (s.priors = []), 'spec.priors: needs at least one prior'],
    ['the priors key left out', (s) => delete s.priors, 'spec: is missing the required key "priors"'],
    ['duplicate prior', (s) => s.priors.push(s.priors[0]), "spec.priors[1].name: duplicate prior name 'empirical'"],
  ];
  it.each(bad)('rejects %s with the path of the bad field', (_name, mutate, message) => {
    const s = example();
    mutate(s);
    const run = () => scenarioFromSpec(s);
    expect(run).toThrow(InputError);
    expect(run).toThrow(message);
  });
});

describe('one settings schema for spec files and web worker messages', () => {
  it('names the bad field of a worker message the way a spec error does', async () => {
    const { validate, workerSettingsSchema, settingsEntries, specSchema } = await import('../src/spec/schema.js');
    expect(Object.keys(settingsEntries).every((k) => k in specSchema.entries && k in workerSettingsSchema.entries)).toBe(true);
    const bad = validate(workerSettingsSchema, { mechanisms: ['laplace', 'cauchy'], alpha: 2, epsilon: 1 });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.path).toEqual(['mechanisms', 1]);
    const count = validate(workerSettingsSchema, { count: 0 });
    expect(!count.ok && count.message).toBe('must be a whole number ≥ 1, got 0');
    expect(validate(workerSettingsSchema, { mechanism: 'gaussian', alpha: 'inf', epsilon: 0.5, value: 3, count: 2 }).ok).toBe(true);
  });
});
