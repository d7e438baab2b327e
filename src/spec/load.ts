import { rejectDuplicateKeys } from './duplicateKeys.js';
import type { CalibrationSettings, Mechanism, Method } from '../calibrate/calibrate.js';
import type { Scenario } from '../calibrate/scenario.js';
import { pairsOf } from '../calibrate/scenario.js';
import { costs, etaPower } from '../conditions/costs.js';
import { fromCounts, fromWeights } from '../distribution/discrete.js';
import { InputError } from '../errors.js';
import { specSchema, validate, type Spec } from './schema.js';

/** `priors[0].conditionals["Not-in-family"].weights[2]` from a schema issue's path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(String(key))) out += `${out ? '.' : ''}${String(key)}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out || '(root)';
}

function schemaError(issue: { path: PropertyKey[]; message: string }, prefix: string): InputError {
  return new InputError(issue.message, `${prefix}${issue.path.length ? '.' + formatPath(issue.path) : ''}`);
}

/**
 * Secret probabilities of a spec prior: the given `probability` fields (all or none); else, with
 * counts everywhere, the secrets' total counts; else uniform.
 */
function probabilitiesOf(conds: Record<string, { counts?: number[]; weights?: number[]; probability?: number }>, path: string): Record<string, number> {
  const entries = Object.entries(conds);
  const given = entries.filter(([, c]) => c.probability !== undefined);
  if (given.length > 0 && given.length < entries.length) {
    const missing = entries.find(([, c]) => c.probability === undefined)![0];
    throw new InputError(
      'has "probability" on some secrets but not all; give it on every secret or none',
      `${path}${formatPath([missing]).replace(/^(?!\[)/, '.')}.probability`,
    );
  }
  if (given.length) {
    if (!(given.reduce((a, [, c]) => a + c.probability!, 0) > 0)) throw new InputError('probabilities sum to zero', `${path}`);
    return Object.fromEntries(given.map(([k, c]) => [k, c.probability!]));
  }
  if (entries.every(([, c]) => c.counts)) return Object.fromEntries(entries.map(([k, c]) => [k, c.counts!.reduce((a, b) => a + b, 0)]));
  return Object.fromEntries(entries.map(([k]) => [k, 1]));
}

/** Parses α as given in a spec or on the command line: a number or "inf". */
export function parseAlpha(a: number | string, path = 'alpha'): number {
  if (typeof a === 'number') return a;
  if (/^(inf|infinity|∞)$/i.test(a.trim())) return Infinity;
  const n = Number(a);
  if (a.trim() === '' || Number.isNaN(n)) throw new InputError(`'${a}' is not a number or "inf"`, path);
  return n;
}

/** Defaults of a spec that the CLI may override: mechanism, method, α, ε, cost. */
export type SpecDefaults = Partial<Omit<CalibrationSettings, 'contamination'>> & {
  guarantee?: 'renyi' | 'mi';
  method?: string;
  contamination?: number;
  domain?: [number, number];
};

/** A validated spec as a scenario plus its calibration defaults. Errors name the bad field. */
export function scenarioFromSpec(raw: unknown, prefix = 'spec'): { scenario: Scenario; defaults: SpecDefaults } {
  const checked = validate(specSchema, raw);
  if (!checked.ok) throw schemaError(checked, prefix);
  const spec: Spec = checked.value;
  const priors = spec.priors.map((p, i) => ({
    name: p.name,
    probabilities: probabilitiesOf(p.conditionals, `${prefix}.priors[${i}].conditionals`),
    conditionals: Object.fromEntries(
      Object.entries(p.conditionals).map(([secret, c]) => {
        const path = `${prefix}.priors[${i}].conditionals${formatPath([secret]).replace(/^(?!\[)/, '.')}`;
        return [secret, c.counts ? fromCounts(c.values, c.counts, path) : fromWeights(c.values, c.weights!, path)];
      }),
    ),
  }));
  const names = new Set<string>();
  priors.forEach((p, i) => {
    if (names.has(p.name)) throw new InputError(`duplicate prior name '${p.name}'`, `${prefix}.priors[${i}].name`);
    names.add(p.name);
  });
  const scenario: Scenario = { name: spec.name ?? 'spec', priors, pairs: spec.pairs, ordered: spec.ordered ?? false };
  try {
    pairsOf(scenario);
  } catch (e) {
    throw e instanceof InputError ? e.under(prefix) : e;
  }
  const defaults: SpecDefaults = {
    mechanism: spec.mechanism as Mechanism | undefined,
    method: spec.method as Method | undefined,
    guarantee: spec.guarantee,
    alpha: spec.alpha === undefined ? undefined : parseAlpha(spec.alpha, `${prefix}.alpha`),
    epsilon: spec.epsilon,
    ...(spec.releases !== undefined ? { releases: spec.releases } : {}),
    ...(spec.contamination !== undefined ? { contamination: spec.contamination } : {}),
    ...(spec.domain !== undefined ? { domain: spec.domain as [number, number] } : {}),
    cost: spec.cost ? costs[spec.cost] : undefined,
    eta: spec.eta ? etaPower(spec.eta.power) : undefined,
  };
  return { scenario, defaults };
}

/** Parses and validates a spec from JSON text (browser-safe: no file access). Repeated keys are refused. */
export function parseSpecText(text: string, name = 'spec'): { scenario: Scenario; defaults: SpecDefaults } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new InputError(`'${name}' is not valid JSON: ${(e as Error).message}`, 'spec');
  }
  rejectDuplicateKeys(text);
  return scenarioFromSpec(raw);
}
