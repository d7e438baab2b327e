import { type Command, Option } from 'commander';
import { checkSetting, SETTINGS, type SettingName } from '../settings.js';
import { checkConfidence, DEFAULT_CONFIDENCE } from '../release/interval.js';
import { InputError } from '../errors.js';
import { decimalValue } from '../numerics/float.js';
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
export function settingOption(name: SettingName, help?: string, form: { one?: boolean; arg?: string } = {}): Option {
  const d: { flag: string; arg?: string; one?: string; help: string } = SETTINGS[name];
  const arg = form.arg ?? (form.one && d.one ? d.one : d.arg);
  return new Option(arg ? `${d.flag} ${arg}` : d.flag, help ?? d.help);
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
 * @example refuseUnused([['--alpha', o.alpha]], 'with --guarantee mi (the guarantee has no Rényi order)')
 */
export function refuseUnused(given: readonly (readonly [string, unknown])[], why: string): void {
  for (const [flag, value] of given) if (value !== undefined && value !== false) throw new InputError(`is not taken ${why}`, flag);
}

/** `--delta D`: a number in (0, 1); `fallback` when the flag is absent. */
export function parseDelta<F extends number | undefined>(text: string | undefined, fallback: F): number | F {
  if (text === undefined) return fallback;
  const delta = decimalValue(text);
  checkSetting('delta', delta, '--delta', `'${text}'`);
  return delta;
}

/** `--confidence C` (default 0.95): the share of the noise each error bar covers. */
export function parseConfidence(text: string | undefined): number {
  if (text === undefined) return DEFAULT_CONFIDENCE;
  const c = decimalValue(text);
  try {
    return checkConfidence(c);
  } catch (e) {
    throw asFlagError(e);
  }
}

/** `--guarantee renyi | mi` (default renyi). */
export function parseGuarantee(text: string | undefined): 'renyi' | 'mi' {
  const g = text ?? 'renyi';
  if (g !== 'renyi' && g !== 'mi') throw new InputError(`must be renyi or mi, got '${text}'`, '--guarantee');
  return g;
}

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
