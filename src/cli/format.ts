import type { CalibrationResult } from '../calibrate/calibrate.js';

/** α for JSON: a number, or "inf" (JSON has no Infinity). */
export const jsonAlpha = (a: number): number | 'inf' => (a === Infinity ? 'inf' : a);

/** A calibration result as plain JSON (α = ∞ written "inf"). */
export function resultJson(r: CalibrationResult) {
  return { ...r, alpha: jsonAlpha(r.alpha) };
}

const num = (x: number) => (x === 0 ? '0' : Math.abs(x) >= 1e-4 && Math.abs(x) < 1e7 ? String(Number(x.toPrecision(10))) : x.toExponential(9));

/** Aligned plain-text table: one row per result. */
export function resultsTable(results: CalibrationResult[]): string {
  const head = ['method', 'rule', 'α', 'ε', 'param', 'scale', 'variance', 'binding (prior: pair)'];
  const rows = results.map((r) => [
    r.winner ? `best→${r.winner}` : r.method,
    r.rule,
    r.alpha === Infinity ? '∞' : String(r.alpha),
    String(r.epsilon),
    r.parameter,
    num(r.scale),
    num(r.variance),
    r.binding ? `${r.binding.prior}: ${r.binding.pair[0]} vs ${r.binding.pair[1]}` : '— (no noise needed)',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i >= 2 && i <= 6 && i !== 4 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
