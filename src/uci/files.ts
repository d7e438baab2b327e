import { userRecord } from '../records.js';
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import type { Scenario } from '../distribution/scenario.js';
import { InputError, unknownName } from '../errors.js';
import { canonical, parseDelimited } from '../sources/csvText.js';
import { BUILTIN_IDS, builtinScenario, histogramScenario } from '../scenarios/builtin.js';
import { UCI_SCENARIOS, type UciScenarioDef } from './scenarios.js';

// Node-only: reading the UCI files from disk (the browser build uses the embedded counts).

export interface Histograms {
  conditionals: Record<string, { values: number[]; counts: number[] }>;
  /** Rows dropped for a missing (`?`, empty) or non-numeric query or secret. */
  dropped: number;
  rows: number;
}

/** Histogram of the query column under each secret value of one UCI scenario. */
export function uciHistograms(def: UciScenarioDef, dataDir: string): Histograms {
  const path = join(dataDir, def.file);
  let text: string;
  try {
    // The file as UCI ships it, or gzipped (the repository's vendored copies: the same bytes unpacked).
    text = existsSync(path) || !existsSync(`${path}.gz`) ? readFileSync(path, 'utf8') : gunzipSync(readFileSync(`${path}.gz`)).toString('utf8');
  } catch {
    throw new InputError(`cannot read ${path} (nor ${path}.gz)`, '--data-dir');
  }
  const table = parseDelimited(text, { separator: def.separator, header: def.columns === undefined, ...(def.columns ? { columns: def.columns } : {}) });
  const columns = table.columns;
  const lines = table.rows;
  const qi = columns.indexOf(def.query);
  const si = columns.indexOf(def.secretColumn);
  const tallies = new Map<string, Map<number, number>>(def.secrets.map((s) => [s, new Map()]));
  let dropped = 0;
  for (const cells of lines) {
    const q = Number(cells[qi]);
    const s = canonical(cells[si] ?? '') ?? '';
    if (cells[qi] === '?' || cells[qi] === '' || !Number.isFinite(q) || s === '?' || s === '') {
      dropped++;
      continue;
    }
    const t = tallies.get(s);
    if (t) t.set(q, (t.get(q) ?? 0) + 1);
  }
  const conditionals: Histograms['conditionals'] = userRecord([]);
  for (const [s, t] of tallies) {
    const values = [...t.keys()].sort((a, b) => a - b);
    conditionals[s] = { values, counts: values.map((v) => t.get(v)!) };
  }
  return { conditionals, dropped, rows: lines.length };
}

/**
 * A built-in scenario recomputed from the UCI files in `dataDir` (as UCI ships them), or from
 * the embedded counts when `dataDir` is undefined.
 * @example uciScenario('heart').priors[0].name // 'empirical'
 */
export function uciScenario(id: string, dataDir?: string): Scenario {
  if (!dataDir) return builtinScenario(id);
  const def = UCI_SCENARIOS.find((d) => d.id === id);
  if (!def) throw unknownName('scenario', id, BUILTIN_IDS, 'scenario', 'built-in: ');
  return histogramScenario(def, uciHistograms(def, dataDir).conditionals);
}
