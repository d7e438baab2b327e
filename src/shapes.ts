import * as v from 'valibot';
import { InputError } from './errors.js';

// The shapes of the library's arguments, checked where a call enters it (valibot, as the spec
// files are): a wrong shape is an InputError naming the argument and the path inside it, never a
// TypeError from deep inside. Values are checked where they are used (checkSetting).

/** What a value is, for a message: its type, or `null`, or an array. */
const kindOf = (x: unknown) =>
  x === null ? 'null' : Array.isArray(x) ? 'an array' : typeof x === 'object' ? 'an object' : `${typeof x} ${String(x).slice(0, 40)}`;

/** A plain object (not null, not an array). */
export const OBJECT = v.custom<Record<string, unknown>>(
  (x) => typeof x === 'object' && x !== null && !Array.isArray(x),
  (i) => `must be an object, got ${kindOf(i.input)}`,
);
/** An array. */
export const ARRAY = v.custom<unknown[]>(
  (x) => Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView)),
  (i) => `must be an array, got ${kindOf(i.input)}`,
);
/** A number (its range is the setting's own check). */
export const NUMBER = v.custom<number>(
  (x) => typeof x === 'number',
  (i) => `must be a number, got ${kindOf(i.input)}`,
);

/** One prior of a scenario: a name and its secret-conditional laws. */
const PRIOR = v.looseObject(
  {
    name: v.string((i) => `must be a string (the prior's name), got ${kindOf(i.input)}`),
    conditionals: OBJECT,
  },
  (i) => `must be an object {name, conditionals}, got ${kindOf(i.input)}`,
);

/**
 * Checks `value` against `schema`, throwing the first problem as an InputError at `field` (and
 * the path inside it: `settings.alpha`, `scenario.priors.0.conditionals`); returns the value itself.
 * @example checkShape(OBJECT, 5, 'settings') // throws "settings: must be an object, got number 5"
 */
export function checkShape<T>(schema: v.GenericSchema<unknown, T>, value: unknown, field: string): T {
  const r = v.safeParse(schema, value, { abortEarly: true });
  if (r.success) return value as T;
  const issue = r.issues[0];
  const path = (issue.path ?? []).map((p) => String(p.key)).join('.');
  throw new InputError(issue.message, path ? `${field}.${path}` : field);
}

/**
 * An options object's fields are all ones it takes: a misspelt or foreign field (`relases`, a
 * `delta` where no δ is read) is refused by name, never ignored. Fields set to `undefined` count
 * as absent.
 * @example checkKeys({ alpha: 2, relases: 4 }, ['alpha', 'releases'], 'settings') // throws "settings.relases: …"
 */
export function checkKeys(value: object, known: readonly string[], field: string): void {
  for (const [k, x] of Object.entries(value))
    if (x !== undefined && !known.includes(k)) throw new InputError(`is not a field it takes (${known.join(', ')})`, `${field}.${k}`);
}

/**
 * A scenario's shape: an object whose `priors` is a list of {name, conditionals} (checked when
 * given as data; a law source computing its laws on first use is not made to compute them here).
 */
export function checkScenarioShape(s: unknown, field = 'scenario'): void {
  checkShape(OBJECT, s, field);
  const priors = Object.getOwnPropertyDescriptor(s, 'priors');
  if (priors === undefined) {
    if (!('priors' in (s as object)))
      throw new InputError('must have "priors" (a prior class: builtinScenario, scenarioFromSpec or scenarioFromTable make one)', field);
    return;
  }
  if ('value' in priors)
    checkShape(
      v.array(PRIOR, (i) => `must be an array of priors, got ${kindOf(i.input)}`),
      priors.value,
      `${field}.priors`,
    );
}

const floats = (what: string) =>
  v.custom<Float64Array>(
    (x) => x instanceof Float64Array,
    (i) => `must be a Float64Array (${what}), got ${kindOf(i.input)}`,
  );
/** A finite law as `fromCounts`/`fromWeights` make it: sorted values and masses. */
export const LAW = v.looseObject(
  { values: floats('the sorted values'), masses: floats('the masses') },
  (i) => `must be a law (fromCounts or fromWeights make one), got ${kindOf(i.input)}`,
);
/** A coupling as `comonotoneCoupling` makes it. */
export const COUPLING = v.looseObject(
  { x: floats('the first law’s atoms'), y: floats('the second law’s atoms'), mass: floats('the masses') },
  (i) => `must be a coupling (comonotoneCoupling makes one), got ${kindOf(i.input)}`,
);
/** A noise as `noiseOf` makes it: a family and a scale. */
export const NOISE = v.looseObject(
  { family: v.string((i) => `must be a noise family's name, got ${kindOf(i.input)}`), scale: NUMBER },
  (i) => `must be a noise (noiseOf makes one), got ${kindOf(i.input)}`,
);
/** A projection as `projection` makes it: k rows of d numbers. */
export const PROJECTION = v.looseObject(
  { k: NUMBER, d: NUMBER, rows: ARRAY },
  (i) => `must be a projection (projection([[…]]) makes one), got ${kindOf(i.input)}`,
);
