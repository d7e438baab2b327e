import { type Command, Option } from 'commander';
import {
  checkSetting,
  settingText,
  type Guarantee,
  inRange,
  MODES,
  type Mode,
  perGuarantee,
  settingDefault,
  SETTINGS,
  type SettingDecl,
  type SettingName,
  type SettingValue,
  wholeNumber,
} from '../settings.js';
import { InputError } from '../errors.js';
import { decimalValue, isDecimal } from '../numerics/float.js';
import { decimal } from './numbers.js';
import { parseGrid } from './grid.js';
import { costs, type Cost } from '../conditions/costs.js';
import { mechanismDef } from '../mechanisms/registry.js';

/**
 * The one map between the library's setting names (what its InputErrors name) and the CLI's
 * flags. The library never names a flag; the CLI shows the flag for a setting it recognises.
 */
export const FIELD_FLAGS: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(SETTINGS).map(([name, d]) => [name, d.flag]));

/**
 * A declared setting's flag (`SETTINGS`): its name and argument from the declaration, the help
 * the command gives it (what the setting means there), else the declaration's; `form.one`: the
 * command takes a single value of a setting that is otherwise a list (`--alpha <a>`); `form.arg`:
 * what its argument is there (`--out <dir>`).
 * @example settingOption('delta').flags // '--delta <d>'
 */
export function settingOption(name: SettingName, help?: string, form: { one?: boolean; arg?: string; noDefault?: boolean } = {}): Option {
  const d: SettingDecl = SETTINGS[name];
  const arg = form.arg ?? (form.one && d.one ? d.one : d.arg);
  const text = help ?? d.help;
  // `noDefault`: the command reads the flag's absence itself (no (ε, δ) target, a required budget).
  return new Option(arg ? `${d.flag} ${arg}` : d.flag, /\bdefault\b/.test(text) || form.noDefault ? text : `${text}${defaultHelp(d)}`);
}

/**
 * The help's note of a declared default, read off the declaration: ` (default: spec, else 2)` for
 * a setting a spec may carry, ` (default 50000; 20000 with --guarantee mi)` where the guarantees differ.
 * @example defaultHelp(SETTINGS.confidence) // ' (default 0.95)'
 * @example defaultHelp(SETTINGS.delta) // ' (default: spec, else 1e-6)'
 */
export function defaultHelp(d: SettingDecl): string {
  const declared = d.default;
  if (declared === undefined) return '';
  const [renyi, mi] = (['renyi', 'mi'] as const).map((g) => settingText(perGuarantee(declared, g)));
  const value = renyi === mi ? renyi : `${renyi}; ${mi} with --guarantee mi`;
  return d.spec ? ` (default: spec, else ${value})` : ` (default ${value})`;
}

/**
 * A setting's text as its declaration reads it (`kind`), or its default when the flag is absent:
 * a decimal checked against its range, a whole number from `min` to `max`, a grid, one of its
 * choices. Errors name the flag and quote the text.
 * @example parseSetting('confidence', '0.9') // 0.9
 * @example parseSetting('samples', undefined, 'mi') // 20000
 */
export function parseSetting(name: SettingName, text: string | undefined, guarantee: Guarantee = 'renyi'): SettingValue | number[] | undefined {
  const d: SettingDecl = SETTINGS[name];
  if (text === undefined) return d.default === undefined ? undefined : perGuarantee(d.default, guarantee);
  switch (d.kind) {
    case 'whole':
      return wholeNumber(text, d.flag, perGuarantee(d.min ?? 1, guarantee), d.max ?? Number.MAX_SAFE_INTEGER);
    case 'number': {
      // Text that is no number gets the range's message (what the setting takes), naming the text.
      const value = d.range && !isDecimal(text) ? Number.NaN : decimal(text, d.flag);
      return d.range ? inRange(d.range, value, d.flag, `'${text}'`) : value;
    }
    case 'grid':
      return parseGrid(text, name, name === 'alpha');
    case 'choice':
      if (!d.choices?.includes(text)) throw new InputError(`must be ${d.choices?.join(' or ')}, got '${text}'`, d.flag);
      return text;
    default:
      return text;
  }
}

/**
 * A setting read as a number (decimal or whole): the flag's value, else `given` (a spec's field,
 * a ledger's budget), else the declared default for `guarantee`.
 * @example numberSetting('releases', undefined, 3) // 3
 */
export function numberSetting(name: SettingName, text: string | undefined, given?: number, guarantee?: Guarantee): number {
  return (text === undefined && given !== undefined ? given : parseSetting(name, text, guarantee)) as number;
}

/**
 * A grid setting (α, ε): the flag's list, else `given` (a spec's field), else the declared default.
 * @example gridSetting('alpha', '2,inf') // [2, Infinity]
 */
export function gridSetting(name: 'alpha' | 'epsilon', text: string | undefined, given?: number): number[] {
  return text ? (parseSetting(name, text) as number[]) : [given ?? settingDefault(name)];
}

/** The flag for a setting path: from the map, else `--path` for a bare name; spec and nested paths unchanged. */
function flagOf(path: string): string {
  return FIELD_FLAGS[path] ?? (/^[a-z][a-z-]*$/.test(path) ? `--${path}` : path);
}

/** Settings a spec file may carry as well as a flag. */
const SPEC_SETTINGS = Object.entries(SETTINGS).flatMap(([name, d]) => ('spec' in d && d.spec ? [name] : []));

/**
 * The same error naming where its setting came from: the flag if it was given, else the spec's
 * field (a setting read from a spec file), else the flag (`asFlagError`).
 */
export function fromSetting(e: unknown, given: object, spec: boolean): unknown {
  if (e instanceof InputError && e.path && SPEC_SETTINGS.includes(e.path) && spec && (given as Record<string, unknown>)[e.path] === undefined)
    return new InputError(e.reason, `spec.${e.path}`);
  return asFlagError(e);
}

/** The same error naming the flag of its setting (a path already naming a flag or a spec field is kept). */
export function asFlagError(e: unknown): unknown {
  return e instanceof InputError && e.path && !e.path.startsWith('-') ? new InputError(e.reason, flagOf(e.path)) : e;
}

/**
 * Refuses options a command or guarantee does not take, never ignoring them: each entry is a
 * flag with its given value (undefined = absent) and `why` says what does take it.
 * @example refuseUnused(notTakenBy('mi', o), 'with --guarantee mi (the guarantee has no Rényi order)')
 */
export function refuseUnused(given: readonly (readonly [string, unknown])[], why: string): void {
  for (const [flag, value] of given) if (value !== undefined && value !== false) throw new InputError(`is not taken ${why}`, flag);
}

/** A value given on the command line: an absent flag is undefined, an unset switch false, an uncollected list empty. */
const isGiven = (v: unknown) => v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0);

/**
 * Refuses every flag the settings' declarations say `mode` does not read (`notIn`), with the mode's
 * reason; `also` adds flags refused for that same reason (a guarantee's, `notTakenBy`).
 * @example refuseIn('sequence', { given: 'sex' }) // throws: --given is not taken with --sequence (…)
 */
export function refuseIn(mode: Mode, o: object, also: readonly (readonly [string, unknown])[] = []): void {
  const options = o as Record<string, unknown>;
  const own = (Object.keys(SETTINGS) as SettingName[])
    .filter((k) => (SETTINGS[k] as SettingDecl).notIn?.includes(mode))
    .map((k) => [SETTINGS[k].flag, isGiven(options[k]) ? options[k] : undefined] as const);
  refuseUnused([...also, ...own], MODES[mode]);
}

/** The settings `guarantee` does not take (their declarations' `guarantees`). */
const notFor = (guarantee: Guarantee): SettingName[] =>
  (Object.keys(SETTINGS) as SettingName[]).filter((k) => {
    const g = (SETTINGS[k] as SettingDecl).guarantees;
    return g !== undefined && !g.includes(guarantee);
  });

/**
 * The flags that `guarantee` does not take, each with its value in the options (for `refuseUnused`),
 * read off the settings' declarations; a command adds its own.
 * @example refuseUnused(notTakenBy('mi', o), 'with --guarantee mi')
 */
export const notTakenBy = (guarantee: Guarantee, o: object): [string, unknown][] =>
  notFor(guarantee).map((k) => [SETTINGS[k].flag, (o as Record<string, unknown>)[k]]);

/** The spec fields that `guarantee` does not take, each with its value in the spec's defaults. */
export const specNotTakenBy = (guarantee: Guarantee, d: object): [string, unknown][] =>
  notFor(guarantee)
    .filter((k) => (SETTINGS[k] as SettingDecl).spec)
    .map((k) => [`spec.${k}`, (d as Record<string, unknown>)[k]]);

/** `--delta D`: a number in (0, 1); `fallback` when the flag is absent (a spec's δ, or none: no (ε, δ) target). */
export function parseDelta<F extends number | undefined>(text: string | undefined, fallback: F): number | F {
  return text === undefined ? fallback : (parseSetting('delta', text) as number);
}

/** `--confidence C`: the share of the noise each error bar covers (its declared default when absent). */
export const parseConfidence = (text: string | undefined): number => parseSetting('confidence', text) as number;

/** `--guarantee renyi | mi` (its declared default when absent). */
export const parseGuarantee = (text: string | undefined): Guarantee => parseSetting('guarantee', text) as Guarantee;

/** A comma-separated column list without an empty name (`a,,b`). */
export function checkColumnNames(columns: readonly string[] | undefined, text: string, flag: string): void {
  if (columns?.some((c) => c === '')) throw new InputError(`has an empty column name in '${text}'`, flag);
}

/** The parser of an option that may be given more than once (`--secret`, `--release`): each value is kept. */
export const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

/**
 * Refuses an option given twice on the command line unless it collects its values (`collect`)
 * or is variadic: commander keeps the last value silently, so `--scale 0.1 --scale 5` would audit 5.
 * `--header` and `--no-header` count as one option.
 */
export function refuseRepeats(c: Command): void {
  const seen = new Map<string, string>();
  for (const o of c.options) {
    if (o.variadic || o.parseArg === collect) continue;
    c.on(`option:${o.name()}`, () => {
      const first = seen.get(o.attributeName());
      if (first !== undefined) throw new InputError(first === o.long ? 'is given twice' : `is given twice (as ${first} and ${o.long})`, o.long ?? o.flags);
      seen.set(o.attributeName(), o.long ?? o.flags);
    });
  }
}

/**
 * `--cost NAME` (or a release's `cost=NAME`): a cost of the exponential-mechanism family, refused
 * for a noise that reads none (it would be ignored).
 */
export function parseCost(text: string | undefined, mechanism: string, flag: string, where = ''): Cost | undefined {
  if (text === undefined) return undefined;
  if (!Object.hasOwn(costs, text)) throw new InputError(`unknown cost '${text}'${where} (${Object.keys(costs).join(', ')})`, flag);
  const def = mechanismDef(mechanism);
  if (!def.options.includes('cost')) throw new InputError(`${def.title} noise takes no cost${where}`, flag);
  return costs[text];
}

/**
 * `--scale S` (a release at this scale instead of calibrating): only with `--ledger`, whose joint
 * check is then its guarantee; undefined when not given.
 */
export function ledgerScale(scale: string | undefined, ledger: string | undefined): number | undefined {
  if (scale === undefined) return undefined;
  if (ledger === undefined)
    throw new InputError("goes with --ledger: a scale that is not calibrated here needs the ledger's joint budget check as its guarantee", '--scale');
  const value = decimalValue(scale);
  return checkSetting('scale', value, '--scale', `'${scale}'`);
}
