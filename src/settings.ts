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

/**
 * Each setting's range, declared once: what the library checks, the spec schema validates and
 * the CLI's flag parsing refuses.
 */
export const SETTING_RANGES = {
  epsilon: 'positive',
  delta: 'unitOpen',
  level: 'unitOpen',
  confidence: 'unitOpen',
  contamination: 'unitClosed',
  releases: 'count',
  count: 'count',
  rows: 'count',
  scale: 'positive',
  'target-mse': 'positive',
} as const satisfies Record<string, RangeName>;

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
