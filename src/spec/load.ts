import { rejectDuplicateKeys } from './duplicateKeys.js';
import type { CalibrationSettings, Mechanism, Method } from '../calibrate/calibrate.js';
import type { Scenario } from '../distribution/scenario.js';
import { pairsOf } from '../distribution/scenario.js';
import { costs, etaPower } from '../conditions/costs.js';
import { fromCounts, fromWeights } from '../distribution/discrete.js';
import { InputError } from '../errors.js';
import { parseAlpha } from '../settings.js';
import { userRecord } from '../records.js';
import { markovSpecSchema, specSchema, validate, type Spec } from './schema.js';
import { validateSpec } from '../markov/chain.js';
import { markovScenario } from '../markov/source.js';
import { windowScenario, type WindowScenario } from '../markov/windowScenario.js';
import { checkMixture, type GaussianMixture, type GaussianScenario } from '../distribution/mixture.js';
import { pointLaw, type PointLaw, type PointScenario } from '../distribution/points.js';

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
function probabilitiesOf(conds: ReadonlyMap<string, { counts?: number[]; weights?: number[]; probability?: number }>, path: string): Record<string, number> {
  const entries = [...conds];
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
    return userRecord(given.map(([k, c]) => [k, c.probability!]));
  }
  if (entries.every(([, c]) => c.counts)) return userRecord(entries.map(([k, c]) => [k, c.counts!.reduce((a, b) => a + b, 0)]));
  return userRecord(entries.map(([k]) => [k, 1]));
}

/** Defaults of a spec that the CLI may override: mechanism, method, α, ε, cost. */
export type SpecDefaults = Partial<Omit<CalibrationSettings, 'contamination'>> & {
  guarantee?: 'renyi' | 'mi';
  method?: string;
  contamination?: number;
  /** One [LO, HI], or (vector queries) one per coordinate. */
  domain?: [number, number] | [number, number][];
  coordinateScales?: number[];
  /** An (ε, δ) target instead of a Rényi one. */
  delta?: number;
  /** The laws are one unit's contribution to this statistic of `units` units (docs/math.md §18). */
  statistic?: SpecStatistic;
};

/** A spec's statistic: what the laws are one unit's contribution to, and n. */
export interface SpecStatistic {
  kind: 'sum' | 'mean' | 'count' | 'share';
  units: number;
  column?: string;
  predicate?: string;
  unit?: string;
}

type Defaults = { defaults: SpecDefaults };
/** A validated spec: finite conditionals, or (any conditional Gaussian) Gaussian-mixture ones (docs/math.md §11). */
/** `at`: the path of the first Gaussian (or vector) conditional. */
export type AnySpec =
  | ({ kind: 'finite'; scenario: Scenario } & Defaults)
  | ({ kind: 'mixture'; scenario: GaussianScenario; at: string } & Defaults)
  | ({ kind: 'vector'; scenario: PointScenario; at: string } & Defaults)
  | ({ kind: 'windows'; scenario: WindowScenario; at: string } & Defaults);

type Conditional = Spec['priors'][number]['conditionals'] extends ReadonlyMap<string, infer C> ? C : never;

/** A conditional as a Gaussian mixture (finite values become components of width 0). */
function mixtureOf(c: Conditional, path: string): GaussianMixture {
  if (c.gaussian) return [{ weight: 1, ...c.gaussian }];
  if (c.mixture) {
    const m = c.mixture.map((x) => ({ weight: x.weight, mean: x.mean, sd: x.sd }));
    checkMixture(m, `${path}.mixture`);
    return m;
  }
  if (Array.isArray(c.values![0])) throw new InputError('must be numbers in a spec with Gaussian conditionals', `${path}.values`);
  const d = c.counts ? fromCounts(c.values as number[], c.counts, path) : fromWeights(c.values as number[], c.weights!, path);
  return Array.from(d.values, (mean, k) => ({ weight: d.masses[k], mean, sd: 0 }));
}

/** A validated spec as a scenario (finite or Gaussian) plus its calibration defaults. Errors name the bad field. */
export function specFromRaw(raw: unknown, prefix = 'spec'): AnySpec {
  if (typeof raw === 'object' && raw !== null && Object.hasOwn(raw, 'markov')) return markovSpec(raw, prefix);
  const checked = validate(specSchema, raw);
  if (!checked.ok) throw schemaError(checked, prefix);
  const spec: Spec = checked.value;
  const pathOf = (i: number, secret: string) => `${prefix}.priors[${i}].conditionals${formatPath([secret]).replace(/^(?!\[)/, '.')}`;
  const priorsOf = <C>(law: (c: Conditional, path: string) => C) =>
    spec.priors.map((p, i) => ({
      name: p.name,
      ...(p.absent?.length ? { absent: p.absent } : {}),
      probabilities: probabilitiesOf(p.conditionals, `${prefix}.priors[${i}].conditionals`),
      conditionals: userRecord([...p.conditionals].map(([secret, c]) => [secret, law(c, pathOf(i, secret))])),
    }));
  const names = new Set<string>();
  spec.priors.forEach((p, i) => {
    if (names.has(p.name)) throw new InputError(`duplicate prior name '${p.name}'`, `${prefix}.priors[${i}].name`);
    names.add(p.name);
  });
  const first = spec.priors.flatMap((p, i) => [...p.conditionals].flatMap(([secret, c]) => (c.values === undefined ? [pathOf(i, secret)] : [])))[0];
  const isVec = (c: Conditional) => c.values !== undefined && Array.isArray(c.values[0]);
  const firstVector = spec.priors.flatMap((p, i) => [...p.conditionals].flatMap(([secret, c]) => (isVec(c) ? [pathOf(i, secret)] : [])))[0];
  if (firstVector && first) throw new InputError('is a vector conditional, and another is Gaussian: a spec takes one kind', firstVector);
  const common = { name: spec.name ?? 'spec', pairs: spec.pairs, ordered: spec.ordered ?? false };
  const vectorOf = (c: Conditional, path: string): PointLaw => {
    if (!isVec(c)) throw new InputError('must be vectors like the other conditionals (arrays of numbers)', `${path}.values`);
    return pointLaw(c.values as number[][], { counts: c.counts, weights: c.weights }, path);
  };
  const out: AnySpec = first
    ? { kind: 'mixture', scenario: { ...common, priors: priorsOf(mixtureOf) }, at: first, defaults: defaultsOf(spec, prefix) }
    : firstVector
      ? { kind: 'vector', scenario: { ...common, priors: priorsOf(vectorOf) }, at: firstVector, defaults: defaultsOf(spec, prefix) }
      : {
          kind: 'finite',
          scenario: {
            ...common,
            priors: priorsOf((c, path) => (c.counts ? fromCounts(c.values as number[], c.counts, path) : fromWeights(c.values as number[], c.weights!, path))),
          },
          defaults: defaultsOf(spec, prefix),
        };
  try {
    pairsOf<unknown>(out.scenario);
  } catch (e) {
    throw e instanceof InputError ? e.under(prefix) : e;
  }
  if (spec.statistic) checkStatisticLaws(out, spec.statistic, prefix);
  return out;
}

/** A spec's window lengths as named in its scenario: in full up to 24, else in runs (`30×3334`). */
function windowList(lengths: readonly number[]): string {
  if (lengths.length <= 24) return lengths.join(',');
  const runs: [number, number][] = [];
  for (const n of lengths) {
    const last = runs.at(-1);
    if (last && last[0] === n) last[1]++;
    else runs.push([n, 1]);
  }
  return runs.map(([n, k]) => (k === 1 ? String(n) : `${n}×${k}`)).join(',');
}

/** A spec whose law source is a Markov chain (docs/math.md §13): the chain's secrets and laws. */
function markovSpec(raw: object, prefix: string): AnySpec {
  const checked = validate(markovSpecSchema, raw);
  if (!checked.ok) throw schemaError(checked, prefix);
  // A refusal of its query (a window sum's values) names the spec's field.
  const model = { ...validateSpec(checked.value.markov, `${prefix}.markov`), queryAt: `${prefix}.markov.query` };
  const defaults = defaultsOf(checked.value as unknown as Spec, prefix);
  if (model.windows) {
    refuseWindowKeys(checked.value as Record<string, unknown>, prefix);
    return {
      kind: 'windows',
      // " per window over " names a series' windows (a ledger of them says what it assumes by it).
      scenario: windowScenario(
        model,
        model.windows,
        `${checked.value.name ?? 'markov chain'}: the ${model.query.kind} per window over ${model.length} steps (windows ${windowList(model.windows)})`,
      ),
      at: `${prefix}.markov.query`,
      defaults,
    };
  }
  const { scenario } = markovScenario(model, checked.value.name ?? 'markov chain');
  return model.query.kind === 'histogram'
    ? { kind: 'vector', scenario: scenario as PointScenario, at: `${prefix}.markov.query`, defaults }
    : { kind: 'finite', scenario: scenario as Scenario, defaults };
}

/**
 * The settings window counts do not take (the flags are refused with `--window` alike): one
 * release per window, Rényi or (ε, δ) targets, no contamination and the default cost. A spec's
 * key would otherwise be dropped without a word, and a plan for N releases certified at one.
 */
const NOT_FOR_WINDOWS: Record<string, string> = {
  releases: 'each window is released once (a series released as it happens: --windows-released or a ledger)',
  contamination: 'contamination is not implemented for window counts',
  domain: 'contamination is not implemented for window counts',
  cost: 'window counts take the default cost',
  eta: 'window counts take the default cost',
  coordinateScales: 'every window gets the same scale',
};

function refuseWindowKeys(spec: Record<string, unknown>, prefix: string): void {
  for (const [key, why] of Object.entries(NOT_FOR_WINDOWS))
    if (spec[key] !== undefined) throw new InputError(`is not taken with window counts: ${why}`, `${prefix}.${key}`);
  if (spec.guarantee !== undefined && spec.guarantee !== 'renyi')
    throw new InputError('window counts are calibrated for Rényi and (ε, δ) targets, not mutual information', `${prefix}.guarantee`);
}

function defaultsOf(spec: Spec, prefix: string): SpecDefaults {
  return {
    mechanism: spec.mechanism as Mechanism | undefined,
    method: spec.method as Method | undefined,
    guarantee: spec.guarantee,
    alpha: spec.alpha === undefined ? undefined : parseAlpha(spec.alpha, `${prefix}.alpha`),
    epsilon: spec.epsilon,
    ...(spec.releases !== undefined ? { releases: spec.releases } : {}),
    ...(spec.delta !== undefined ? { delta: spec.delta } : {}),
    ...(spec.contamination !== undefined ? { contamination: spec.contamination } : {}),
    ...(spec.domain !== undefined ? { domain: spec.domain as [number, number] | [number, number][] } : {}),
    ...(spec.coordinateScales !== undefined ? { coordinateScales: spec.coordinateScales } : {}),
    cost: spec.cost ? costs[spec.cost] : undefined,
    eta: spec.eta ? etaPower(spec.eta.power) : undefined,
    ...(spec.statistic !== undefined ? { statistic: spec.statistic } : {}),
  };
}

/**
 * A spec's statistic checked against its laws: finite laws on ℝ (one number per unit), and for a
 * count or share whole numbers of rows ≥ 0. Errors name `statistic`.
 */
function checkStatisticLaws(out: AnySpec, st: SpecStatistic, prefix: string): void {
  const at = `${prefix}.statistic`;
  if (out.kind !== 'finite') throw new InputError(`needs finite conditionals of numbers (one unit's contribution); this spec's are of kind '${out.kind}'`, at);
  if ((st.kind === 'sum' || st.kind === 'mean') && st.predicate !== undefined)
    throw new InputError(`a ${st.kind} adds up a column's values: no predicate`, `${at}.predicate`);
  if ((st.kind === 'count' || st.kind === 'share') && st.column !== undefined)
    throw new InputError(`a ${st.kind} adds up rows: no column (a predicate selects them)`, `${at}.column`);
  if (st.kind !== 'count' && st.kind !== 'share') return;
  for (const p of out.scenario.priors)
    for (const [secret, d] of Object.entries(p.conditionals))
      for (const x of d.values)
        if (!(Number.isInteger(x) && x >= 0))
          throw new InputError(`a ${st.kind}'s contribution is a whole number of rows ≥ 0; prior '${p.name}', secret '${secret}' has the value ${x}`, at);
}

/** Laws of finite support, on ℝ or ℝ^d (commands without Gaussian priors): Gaussian ones are refused as by `finiteOnly`. */
export function finiteSupport(s: AnySpec): { scenario: Scenario | PointScenario; defaults: SpecDefaults } {
  return s.kind === 'vector' ? s : finiteOnly(s);
}

/** Only finite conditionals: Gaussian ones are refused, naming the first and where they are taken. */
function finiteOnly(s: AnySpec): { scenario: Scenario; defaults: SpecDefaults } {
  if (s.kind === 'finite') return s;
  if (s.kind === 'windows')
    throw new InputError(
      "gives windows: a series' window counts are calibrated by `pufferfish calibrate`, accounted by `pufferfish account` and kept by `pufferfish ledger` (docs/math.md §19)",
      s.at,
    );
  if (s.kind === 'vector')
    throw new InputError(
      'is a vector conditional: this command takes numbers; vector queries are calibrated by `pufferfish calibrate`, released by `pufferfish release`, audited by `pufferfish audit` and accounted by `pufferfish account` (docs/math.md §12)',
      s.at,
    );
  throw new InputError(
    'is a Gaussian or mixture conditional: this command takes finite conditionals ("values") only; Gaussian priors are calibrated (Rényi guarantee, Gaussian noise) by `pufferfish calibrate` and released by `pufferfish release` (docs/math.md §11)',
    s.at,
  );
}

/**
 * A validated spec with finite conditionals as a scenario plus its calibration defaults. Errors name the bad field.
 * With a `"statistic"` (`defaults.statistic`), the laws are one unit's contribution: a calibration of
 * them is in the sum's units, and a mean's or share's scale is that divided by `units`, rounded up
 * (`toStatistic({ divisor: units }).scale`, as the CLI prints it).
 * @example scenarioFromSpec({ name: 'toy', priors: [{ name: 'p', conditionals: { a: { values: [0, 1], counts: [3, 1] }, b: { values: [0, 1], counts: [1, 3] } } }], alpha: 2, epsilon: 1 }).defaults.epsilon // 1
 */
export function scenarioFromSpec(raw: unknown, prefix = 'spec'): { scenario: Scenario; defaults: SpecDefaults } {
  return finiteOnly(specFromRaw(raw, prefix));
}

/** Parses and validates a spec from JSON text, finite or Gaussian (browser-safe: no file access). Repeated keys are refused. */
export function parseAnySpecText(text: string, name = 'spec'): AnySpec {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new InputError(`'${name}' is not valid JSON: ${(e as Error).message}`, 'spec');
  }
  rejectDuplicateKeys(text);
  return specFromRaw(raw);
}

/**
 * Parses and validates a spec with finite conditionals from JSON text.
 * @example parseSpecText('{"name": "toy", "priors": [{"name": "p", "conditionals": {"a": {"values": [0, 1], "counts": [3, 1]}, "b": {"values": [0, 1], "counts": [1, 3]}}}]}').scenario.name // 'toy'
 */
export function parseSpecText(text: string, name = 'spec'): { scenario: Scenario; defaults: SpecDefaults } {
  return finiteOnly(parseAnySpecText(text, name));
}
