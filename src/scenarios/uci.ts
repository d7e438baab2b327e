import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { canonical, splitLine } from '../sources/csvText.js';

/**
 * The paper's three UCI experiments (arXiv 2605.05723 §3.3) and plain readers for the files
 * as UCI ships them. (Issue 4 moves table reading to DuckDB; these readers stay the
 * reference for the embedded counts.)
 */
export interface UciScenarioDef {
  id: 'adult' | 'heart' | 'student-mat' | 'student-por';
  title: string;
  file: string;
  separator: string;
  /** Column names when the file has no header row. */
  columns?: string[];
  query: string;
  secretColumn: string;
  secrets: string[];
}

export const UCI_SCENARIOS: readonly UciScenarioDef[] = [
  {
    id: 'adult',
    title: 'adult: education-num by relationship (Husband vs Not-in-family)',
    file: 'adult/adult.data',
    separator: ',',
    columns: ['age', 'workclass', 'fnlwgt', 'education', 'education-num', 'marital-status', 'occupation', 'relationship', 'race', 'sex', 'capital-gain', 'capital-loss', 'hours-per-week', 'native-country', 'income'],
    query: 'education-num',
    secretColumn: 'relationship',
    secrets: ['Husband', 'Not-in-family'],
  },
  {
    id: 'heart',
    title: 'heart (Cleveland): oldpeak by fasting blood sugar fbs (0 vs 1)',
    file: 'heart-disease/processed.cleveland.data',
    separator: ',',
    columns: ['age', 'sex', 'cp', 'trestbps', 'chol', 'fbs', 'restecg', 'thalach', 'exang', 'oldpeak', 'slope', 'ca', 'thal', 'num'],
    query: 'oldpeak',
    secretColumn: 'fbs',
    secrets: ['0', '1'],
  },
  ...(['mat', 'por'] as const).map((course) => ({
    id: `student-${course}` as const,
    title: `student-${course}: final grade G3 by guardian (mother vs father)`,
    file: `student/student-${course}.csv`,
    separator: ';',
    query: 'G3',
    secretColumn: 'guardian',
    secrets: ['mother', 'father'],
  })),
];

export interface Histograms {
  conditionals: Record<string, { values: number[]; counts: number[] }>;
  /** Rows dropped for a missing (`?`, empty) or non-numeric query or secret. */
  dropped: number;
  rows: number;
}

/** Histogram of the query column under each secret value of one UCI scenario. */
export function uciHistograms(def: UciScenarioDef, dataDir: string): Histograms {
  let text: string;
  try {
    text = readFileSync(join(dataDir, def.file), 'utf8');
  } catch {
    throw new InputError(`cannot read ${join(dataDir, def.file)}`, 'data-dir');
  }
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const columns = def.columns ?? splitLine(lines.shift() ?? '', def.separator);
  const qi = columns.indexOf(def.query);
  const si = columns.indexOf(def.secretColumn);
  const tallies = new Map<string, Map<number, number>>(def.secrets.map((s) => [s, new Map()]));
  let dropped = 0;
  for (const line of lines) {
    const cells = splitLine(line, def.separator);
    const q = Number(cells[qi]);
    const s = canonical(cells[si] ?? '') ?? '';
    if (cells[qi] === '?' || cells[qi] === '' || !Number.isFinite(q) || s === '?' || s === '') { dropped++; continue; }
    const t = tallies.get(s);
    if (t) t.set(q, (t.get(q) ?? 0) + 1);
  }
  const conditionals: Histograms['conditionals'] = {};
  for (const [s, t] of tallies) {
    const values = [...t.keys()].sort((a, b) => a - b);
    conditionals[s] = { values, counts: values.map((v) => t.get(v)!) };
  }
  return { conditionals, dropped, rows: lines.length };
}
