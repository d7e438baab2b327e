import type { AuditRow } from '../audit/audit.js';
import type { CalibrationResult } from '../calibrate/calibrate.js';
import type { MiCalibrationResult } from '../mi/calibrateMI.js';
import { decimalUp } from '../numerics/decimal.js';

/** α for JSON: a number, or "inf" (JSON has no Infinity). */
export const jsonAlpha = (a: number): number | 'inf' => (a === Infinity ? 'inf' : a);

/**
 * Output as JSON, two-space indented, with ±∞ as "inf"/"-inf" and NaN as "nan" in every field:
 * JSON has none of them, and JSON.stringify's null means "not applicable" here.
 * @example jsonText({ scale: Infinity, alpha: null }) // '{\n  "scale": "inf",\n  "alpha": null\n}'
 */
export const jsonText = (value: unknown): string =>
  JSON.stringify(value, (_k, x) => (typeof x === 'number' && !Number.isFinite(x) ? (Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf') : x), 2);

/** ±∞ as "inf"/"-inf" (JSON would write null); other values unchanged. */
export const jsonNumber = (v: unknown): unknown => (v === Infinity ? 'inf' : v === -Infinity ? '-inf' : v);

/** A calibration result as plain JSON (α = ∞ written "inf"). */
export function resultJson(r: CalibrationResult) {
  // A zero scale is marked: releasing it means publishing the raw value.
  return {
    ...r,
    alpha: jsonAlpha(r.alpha),
    scale: jsonNumber(r.scale),
    variance: jsonNumber(r.variance),
    noNoise: r.scale === 0,
    ...(r.scale === 0 ? { noNoiseReason: r.explanation } : {}),
  };
}

const num = (x: number) =>
  x === Infinity
    ? '∞'
    : x === -Infinity
      ? '−∞'
      : x === 0
        ? '0'
        : Math.abs(x) >= 1e-4 && Math.abs(x) < 1e7
          ? String(Number(x.toPrecision(10)))
          : x.toExponential(9);

export { decimalUp };

/** `num`, rounded toward +∞ (scales, variances, divergences, ε levels). */
export const numUp = (x: number) => {
  if (x === 0 || !Number.isFinite(x)) return num(x);
  const t = decimalUp(x, 10);
  return Math.abs(x) >= 1e-4 && Math.abs(x) < 1e7 ? String(Number(t)) : t;
};
/**
 * A released value for people, to the digits its error bar justifies: down to a tenth of the
 * half-width's leading digit (h = 0.82: hundredths), the value rounded to nearest and its
 * interval's ends outward, so the printed interval still holds the exact one. Without a finite
 * positive half-width, `num`'s ten digits. (Rounding a release is post-processing: no privacy cost;
 * JSON keeps every digit.)
 * @example barDigits(0.82).value(1.8296112951) // "1.83"
 * @example barDigits(0.82).interval([1.0096, 2.6496]) // "[1.00, 2.65]"
 */
export function barDigits(h: number) {
  const plain = { value: num, interval: ([lo, hi]: readonly [number, number]) => `[${numDown(lo)}, ${numUp(hi)}]` };
  if (!(h > 0 && Number.isFinite(h))) return plain;
  const k = Math.floor(Math.log10(h)) - 1;
  // Beyond 100 decimals (toFixed's limit) the bar is far below any value's digits: ten digits suffice.
  if (k < -100) return plain;
  const unit = 10 ** k;
  // Integer noise (its bar a whole number) on an integer: the number itself, no decimals.
  const whole = (x: number) => Number.isInteger(h) && Number.isSafeInteger(x);
  const text = (m: number) => (k < 0 ? (m * unit).toFixed(-k) : String(m * unit));
  // Outward exactly: a printed end whose double is not strictly beyond the exact end (an equal double
  // may be a decimal just inside it) moves one unit out; an integer end printed as itself is exact (integer noise).
  const end = (x: number, round: (y: number) => number, out: number) => {
    if (!Number.isFinite(x)) return num(x);
    if (whole(x)) return String(x);
    const m = round(x / unit);
    const printed = Number(text(m));
    return (out < 0 ? printed < x : printed > x) || (printed === x && Number.isInteger(x)) ? text(m) : text(m + out);
  };
  return {
    // A value whose doubles are coarser than the bar keeps its own digits (ten, as elsewhere).
    value: (v: number) => (whole(v) ? String(v) : Number.isFinite(v) && Math.abs(v) * 1e-15 < h ? text(Math.round(v / unit)) : num(v)),
    interval: ([lo, hi]: readonly [number, number]) => `[${end(lo, Math.floor, -1)}, ${end(hi, Math.ceil, 1)}]`,
  };
}

/** A naive sum as printed: '—' where none is computed (window counts: a window's own level is not taken apart from the others'). */
export const naiveText = (v: number) => (Number.isNaN(v) ? '—' : numUp(v));

/** `num`, rounded toward −∞ (slack). */
export const numDown = (x: number) => (x === 0 || !Number.isFinite(x) ? num(x) : numUp(-x).startsWith('-') ? numUp(-x).slice(1) : `-${numUp(-x)}`);

/** A newline, carriage return or tab inside a name (a secret value, a column) would break the layout: shown escaped. */
const shown = (c: string) => c.replace(/[\n\r\t]/g, (m) => (m === '\n' ? '\\n' : m === '\r' ? '\\r' : '\\t'));

/** The run's names that hold a newline, carriage return or tab (`layoutNames`). */
const namesToShow = new Set<string>();

/**
 * Marks every string of a loaded scenario (its name, priors, secrets, columns, states) that holds a
 * newline, carriage return or tab, so `showNames` prints it escaped wherever a sentence or title
 * quotes it, as the tables do. JSON output escapes them already.
 */
export function layoutNames(x: unknown, depth = 0): void {
  if (typeof x === 'string') {
    if (/[\n\r\t]/.test(x)) namesToShow.add(x);
    return;
  }
  if (x === null || typeof x !== 'object' || ArrayBuffer.isView(x) || depth > 8) return;
  // Arrays of numbers (atoms, masses, numerators) hold no names: their first element decides.
  if (Array.isArray(x) && (x.length === 0 || typeof x[0] === 'number' || typeof x[0] === 'bigint')) return;
  // Accessors are left alone: a lazy part (a chain's laws) is computed only by the methods that need
  // it, and its names are those of the parts beside it (the chain's secret variables).
  const entries =
    x instanceof Map
      ? [...x]
      : Array.isArray(x)
        ? x.map((v) => ['', v])
        : Object.entries(Object.getOwnPropertyDescriptors(x)).flatMap(([k, d]) => ('value' in d ? [[k, d.value]] : []));
  for (const [k, v] of entries) {
    layoutNames(k, depth + 1);
    layoutNames(v, depth + 1);
  }
}

/** Text for the terminal with the marked names escaped (`layoutNames`); the layout's own newlines stay. */
export function showNames(text: string): string {
  for (const n of namesToShow) if (text.includes(n)) text = text.replaceAll(n, shown(n));
  return text;
}

/** Aligned columns; `right` lists the right-aligned (numeric) ones. */
export function table(head: string[], rawRows: string[][], right: number[]): string {
  const rows = rawRows.map((row) => row.map(shown));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right.includes(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const alphaText = (a: number) => (a === Infinity ? '∞' : String(a));

/** The audit rows as a table. */
export function auditTable(rows: AuditRow[]): string {
  const head = ['α', 'prior', 'direction', 'D_α', '± error', 'slack', 'ε′ eq.(5)', 'ε′ sharp', 'ε-PP'];
  const opt = (x: number | null) => (x === null ? '—' : numUp(x));
  const body = rows.map((r) => [
    alphaText(r.alpha),
    r.prior,
    `${r.direction[0]} ‖ ${r.direction[1]}`,
    numUp(r.divergence),
    Number.isFinite(r.error) ? decimalUp(r.error, 2) : num(r.error),
    numDown(r.slack),
    opt(r.epsilonEq5),
    opt(r.epsilonSharp),
    opt(r.pufferfishEpsilon),
  ]);
  return table(head, body, [0, 3, 4, 5, 6, 7, 8]);
}

/**
 * Aligned plain-text table: one row per result. An (ε, δ) target shows the target under "ε, δ"
 * and the Rényi budget each method went through under "D_α ≤" (never the budget as if it were ε).
 */
export function resultsTable(results: CalibrationResult[] | MiCalibrationResult[], bars?: { confidence: number; halfWidths: readonly number[] }): string {
  type R = (typeof results)[number];
  const mi = results.some((r) => 'guarantee' in r);
  const target = (r: R) => ('target' in r ? (r.target as { epsilon: number; delta: number } | undefined) : undefined);
  const delta = results.some((r) => target(r) !== undefined);
  const columns: { head: string; cell: (r: R, k: number) => string; right?: boolean }[] = [
    { head: 'method', cell: (r) => (r.winner ? `best→${r.winner}` : r.method) },
    { head: 'rule', cell: (r) => r.rule },
    ...(mi ? [] : [{ head: 'α', cell: (r: R) => ('alpha' in r ? alphaText(r.alpha) : ''), right: true }]),
    delta
      ? { head: 'ε, δ', cell: (r: R) => (target(r) ? `${target(r)!.epsilon}, ${target(r)!.delta}` : String(r.epsilon)), right: true }
      : { head: 'ε', cell: (r: R) => String(r.epsilon), right: true },
    ...(delta ? [{ head: 'D_α ≤', cell: (r: R) => (target(r) ? String(Number(decimalUp(r.epsilon, 6))) : ''), right: true }] : []),
    { head: 'param', cell: (r) => r.parameter },
    { head: 'scale', cell: (r) => numUp(r.scale), right: true },
    ...(bars ? [{ head: `± (${bars.confidence})`, cell: (_r: R, k: number) => numUp(bars.halfWidths[k]), right: true }] : []),
    { head: 'variance', cell: (r) => numUp(r.variance), right: true },
    { head: mi ? 'binding (prior: secrets)' : 'binding (prior: pair)', cell: bindingText },
  ];
  const rows = results.map((r, k) => columns.map((c) => c.cell(r, k)));
  return table(
    columns.map((c) => c.head),
    rows,
    columns.flatMap((c, i) => (c.right ? [i] : [])),
  );
}

/** Who binds a result: its prior and pair (or secrets), or why none does. */
function bindingText(r: CalibrationResult | MiCalibrationResult): string {
  if (!r.binding) return r.scale === 0 ? '— (no noise needed)' : '— (the whole chain)';
  return 'pair' in r.binding ? `${r.binding.prior}: ${r.binding.pair[0]} vs ${r.binding.pair[1]}` : `${r.binding.prior}: ${r.binding.secrets.join(', ')}`;
}
