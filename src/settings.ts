import { InputError } from './errors.js';

/**
 * The ranges settings take, each with the one message a value outside it gets: the library, the
 * spec schema and the CLI's flags all check through these, so a setting is refused in the same
 * words wherever it comes from (the field names where: a setting, a spec path or a flag).
 */
export const RANGES = {
  /** ε, scales, targets. */
  positive: { ok: (v: number) => v > 0 && Number.isFinite(v), message: 'must be a finite number > 0' },
  /** A scale that may be 0 (the data's own divergence). */
  nonNegative: { ok: (v: number) => v >= 0 && Number.isFinite(v), message: "must be a finite number ≥ 0 (0: the data's own divergence)" },
  /** δ, false-alarm levels, confidences. */
  unitOpen: { ok: (v: number) => v > 0 && v < 1, message: 'must be in (0, 1)' },
  /** The contamination share λ. */
  unitClosed: { ok: (v: number) => v >= 0 && v <= 1, message: 'must be a number in [0, 1]' },
  /** Releases, counts, rows. */
  count: { ok: (v: number) => Number.isSafeInteger(v) && v >= 1, message: 'must be a whole number ≥ 1' },
} as const;

export type RangeName = keyof typeof RANGES;

/** One setting, declared once: how the CLI names it, the range its numbers lie in, whether a spec file carries it. */
export interface SettingDecl {
  /** The CLI flag. */
  readonly flag: string;
  /** The flag's argument as the help shows it; absent for a switch. */
  readonly arg?: string;
  /** The argument where a command takes one value of a setting that is otherwise a list or grid. */
  readonly one?: string;
  /** The range of `RANGES` a number must lie in (the library, the spec schema and the flags check it). */
  readonly range?: RangeName;
  /** A spec file may carry it (as the field of the same name). */
  readonly spec?: boolean;
  /** What the setting is, for the help; a command may say more about what it means there. */
  readonly help: string;
}

/**
 * The settings, each declared once. The CLI's flags are made from these (`settingOption`), its
 * map from setting names to flags and the spec fields a flag may override are read off them, and
 * the library and the spec schema (shared by the web worker) check the ranges declared here.
 */
export const SETTINGS = {
  alpha: { flag: '--alpha', arg: '<grid>', one: '<a>', spec: true, help: 'Rényi order(s): A | A,B,… | FROM:TO:STEP, or inf' },
  epsilon: { flag: '--epsilon', arg: '<grid>', one: '<e>', range: 'positive', spec: true, help: 'budget(s): E | E,F,… | FROM:TO:STEP' },
  delta: { flag: '--delta', arg: '<d>', range: 'unitOpen', spec: true, help: 'δ of an (ε, δ) guarantee, in (0, 1)' },
  mechanism: { flag: '--mechanism', arg: '<m>', spec: true, help: 'the noise family' },
  method: { flag: '--method', arg: '<list>', one: '<m>', spec: true, help: 'calibration method(s), comma-separated' },
  releases: { flag: '--releases', arg: '<n>', range: 'count', spec: true, help: 'releases of the same value covered together' },
  contamination: { flag: '--contamination', arg: '<λ>', range: 'unitClosed', spec: true, help: 'the share λ of each conditional an adversary may move' },
  domain: { flag: '--domain', arg: '<lo,hi>', spec: true, help: 'the interval contaminated mass may go to' },
  coordinateScales: { flag: '--coordinate-scales', arg: '<w1,w2,…>', spec: true, help: 'vector queries: coordinate i gets wᵢ × the scale' },
  threads: { flag: '--threads', arg: '<n>', help: 'threads: this one plus workers started when the work repays them' },
  confidence: { flag: '--confidence', arg: '<c>', range: 'unitOpen', help: 'error bars: the share of the noise the ± covers, in (0, 1) (default 0.95)' },
  level: { flag: '--level', arg: '<a>', range: 'unitOpen', help: 'false-alarm level of a statistical test, in (0, 1)' },
  scale: { flag: '--scale', arg: '<s>', range: 'positive', help: 'a noise scale' },
  count: { flag: '--count', arg: '<n>', range: 'count', help: 'draws' },
  rows: { flag: '--rows', arg: '<n>', range: 'count', help: 'rows of a table' },
  'target-mse': { flag: '--target-mse', arg: '<m>', range: 'positive', help: 'a target expected squared error' },
  json: { flag: '--json', help: 'print JSON' },
} as const satisfies Record<string, SettingDecl>;

export type SettingName = keyof typeof SETTINGS;

/** Each ranged setting's range (read off `SETTINGS`). */
export const SETTING_RANGES = Object.fromEntries(Object.entries(SETTINGS).flatMap(([k, d]) => ('range' in d ? [[k, d.range]] : []))) as {
  readonly [K in SettingName as (typeof SETTINGS)[K] extends { range: RangeName } ? K : never]: RangeName;
};

/**
 * `value` when it lies in `range`, else an InputError naming `field` with the range's message
 * (`shown`: the value as the user gave it, default the number itself).
 * @example inRange('unitOpen', 1e-6, 'delta') // 1e-6
 */
export function inRange(range: RangeName, value: unknown, field: string, shown: string = String(value)): number {
  const r = RANGES[range];
  if (typeof value !== 'number' || !r.ok(value)) throw new InputError(`${r.message}, got ${shown}`, field);
  return value;
}

/**
 * A setting checked against its declared range, named by its field.
 * @example checkSetting('epsilon', 1) // 1
 */
export function checkSetting(name: keyof typeof SETTING_RANGES, value: unknown, field: string = name, shown?: string): number {
  return inRange(SETTING_RANGES[name], value, field, shown);
}

/** Joint accounting and the robustness report bound D_α for α > 1 (and ∞) only. */
export function checkJointOrder(alpha: number, what = 'joint accounting'): void {
  if (!(alpha > 1)) throw new InputError(`${what} covers α > 1 (and ∞), got ${alpha}`, 'alpha');
}

/** The scale of a robustness report: a finite number > 0, at an order α > 1. */
export function checkRobustnessSettings(s: { scale: number; alpha: number }): void {
  if (!(s.scale > 0) || !Number.isFinite(s.scale)) throw new InputError(`must be a finite number > 0 for a robustness report, got ${s.scale}`, 'scale');
  checkJointOrder(s.alpha, 'the robustness report');
}

/** A recorded or planned release's scale: finite and > 0 (a release without noise has no level to account). */
export function checkReleaseScale(r: { mechanism: string; scale: number }): void {
  if (!(r.scale > 0) || !Number.isFinite(r.scale)) throw new InputError(`a ${r.mechanism} release needs a finite scale > 0, got ${r.scale}`, 'release');
}

/** Several releases audited together need noise: the data's own divergence does not grow with N. */
export function checkSeveralReleases(n: number, scale: number): void {
  if (n > 1 && !(scale > 0)) throw new InputError('auditing several releases needs a scale > 0', 'scale');
}

/** A family whose D∞ is infinite (Gaussian) has no ε-Pufferfish level to report. */
export const noDInfLevel = (title: string, hint = ''): InputError => new InputError(`${title} noise has no finite α = ∞ level${hint}`, 'alpha');
