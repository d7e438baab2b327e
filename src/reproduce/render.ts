import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile } from 'vega-lite';
import type { Row, VegaLiteSpec } from './charts.js';

/** Vega-Lite → SVG, headless (Vega's SVG string renderer; no canvas, no browser). */
export async function toSvg(spec: VegaLiteSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec as never).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return renumberIds(svg);
}

/** Vega numbers clip paths per process (clip1, clip69, …); renumber per document for byte-stable output. */
function renumberIds(svg: string): string {
  const map = new Map<string, string>();
  return svg.replace(/\bclip(\d+)\b/g, (m) => {
    if (!map.has(m)) map.set(m, `clip${map.size + 1}`);
    return map.get(m)!;
  });
}

/** SVG → PNG at 2× with resvg (system fonts: DejaVu Sans on Debian). */
export function toPng(svg: string): Uint8Array {
  return new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' }, fitTo: { mode: 'zoom', value: 2 }, background: 'white' })
    .render()
    .asPng();
}

/** Rows as CSV; numbers in their shortest round-trip form, so values equal `calibrate --json`. */
export function toCsv(rows: Row[]): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) => {
    const s = v === undefined ? '' : typeof v === 'number' ? (v === Infinity ? 'inf' : String(v)) : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [cols.join(','), ...rows.map((r) => cols.map((c) => cell(r[c])).join(','))].join('\n') + '\n';
}
