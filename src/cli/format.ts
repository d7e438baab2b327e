import type { AuditRow } from '../audit/audit.js';
import type { CalibrationResult } from '../calibrate/calibrate.js';
import type { MiCalibrationResult } from '../mi/calibrateMI.js';
import { decimalUp } from '../numerics/decimal.js';

/** α for JSON: a number, or "inf" (JSON has no Infinity). */
export const jsonAlpha = (a: number): number | 'inf' => (a === Infinity ? 'inf' : a);

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

/** Aligned plain-text table: one row per result. */
export function resultsTable(results: CalibrationResult[] | MiCalibrationResult[], bars?: { confidence: number; halfWidths: readonly number[] }): string {
  const mi = results.some((r) => 'guarantee' in r);
  const head = [
    'method',
    'rule',
    ...(mi ? [] : ['α']),
    'ε',
    'param',
    'scale',
    ...(bars ? [`± (${bars.confidence})`] : []),
    'variance',
    mi ? 'binding (prior: secrets)' : 'binding (prior: pair)',
  ];
  const rows = results.map((r, k) => [
    r.winner ? `best→${r.winner}` : r.method,
    r.rule,
    ...('alpha' in r ? [alphaText(r.alpha)] : []),
    String(r.epsilon),
    r.parameter,
    numUp(r.scale),
    ...(bars ? [numUp(bars.halfWidths[k])] : []),
    numUp(r.variance),
    !r.binding
      ? r.scale === 0
        ? '— (no noise needed)'
        : '— (the whole chain)'
      : 'pair' in r.binding
        ? `${r.binding.prior}: ${r.binding.pair[0]} vs ${r.binding.pair[1]}`
        : `${r.binding.prior}: ${r.binding.secrets.join(', ')}`,
  ]);
  const numeric = mi ? [2, 4, 5] : [2, 3, 5, 6];
  return table(head, rows, bars ? [...numeric, numeric[numeric.length - 1] + 1] : numeric);
}
