/**
 * Delimited text in plain JavaScript, for the browser (the CLI reads tables with DuckDB):
 * quotes, a sniffed separator, `?` and empty cells as missing, and the UCI quirks by file name.
 */
import { dsvFormat } from 'd3-dsv';
import { InputError, unknownColumn, columnTwice } from '../errors.js';
import type { Histogram, TableHistograms } from './histogramTypes.js';
import { checkDrawnSize } from './unitWeights.js';

/**
 * A secret or public value as its text: strings exactly as in the table (`01` and `1` stay two
 * secrets), typed numbers as their shortest round-trip decimal (distinct numbers stay distinct).
 */
export function secretText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint' || typeof v === 'number') return String(v);
  const s = String(v);
  return s === '' ? null : s;
}

/** Canonical text of a value: numbers written as floats (`1.0`) become `1`. */
export function canonical(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint' || typeof v === 'number') return String(Number(v));
  const s = String(v).trim();
  const n = Number(s);
  return s !== '' && Number.isFinite(n) ? String(n) : s;
}

/** A table held as text (the web page's, read without an engine): its column names and each row's cells, '' or '?' missing. */
export interface TextTable {
  columns: string[];
  rows: string[][];
}

export interface TextOptions {
  separator?: string;
  header?: boolean;
  columns?: string[];
  skip?: number;
}

/**
 * Text that is not a table: NUL bytes, or many replacement characters (bytes that were not
 * UTF-8) — a Parquet or image file read as text would otherwise load as a one-column table.
 */
function binaryReason(text: string): string | null {
  const sample = text.slice(0, 65536);
  if (sample.includes('\u0000')) return 'it contains NUL bytes';
  const bad = sample.split('\uFFFD').length - 1;
  return bad > 8 && bad > sample.length / 100 ? `${bad} of its first ${sample.length} characters are not UTF-8 text` : null;
}

/**
 * Parse delimited text with d3-dsv (RFC 4180 quoting: a quoted field may hold the separator, quotes
 * and newlines); the separator is sniffed from the first line when not given, header names trimmed
 * and blank lines skipped (in a one-column table, cells). Empty and binary files, and rows of another width than the header, are refused by name.
 */
export function parseDelimited(text: string, o: TextOptions = {}): TextTable {
  if (text.trim() === '') throw new InputError('the file is empty', 'file');
  const binary = binaryReason(text);
  if (binary) throw new InputError(`is not a delimited text table (${binary}); load CSV or TSV text, or a Parquet file`, 'file');
  const first = text.slice(0, text.search(/\r?\n|$/));
  // A multi-character separator (adult's ", ") is its first character, the rest taken off the next cell.
  const given = o.separator ?? [';', '\t', ','].map((s) => [s, first.split(s).length] as const).sort((a, b) => b[1] - a[1])[0][0];
  const [sep, tail] = [given[0], given.slice(1)];
  // Cells as the engines read them: not trimmed (' a' and 'a' are two values; a number's spaces are
  // `cellNumber`'s); a line of separators a row of missing cells.
  const parsed = dsvFormat(sep)
    .parseRows(text)
    .map((r) => (tail ? r.map((c, k) => (k > 0 && c.startsWith(tail) ? c.slice(tail.length) : c)) : r));
  const blank = (r: string[]) => r.length === 1 && r[0].trim() === '';
  // `skip` counts lines that are not blank; what follows starts at its first line that is not.
  let start = parsed.findIndex((r) => !blank(r));
  for (let k = 0; k < (o.skip ?? 0) && start >= 0; k++) start = parsed.findIndex((r, i) => i > start && !blank(r));
  // A blank line is no row, but in a one-column table it is a cell after the first line, as DuckDB
  // reads it: empty is missing, spaces a value.
  const oneColumn = start >= 0 && (o.columns?.length ?? parsed[start].length) === 1;
  const rows = start < 0 ? [] : parsed.slice(start).filter((r) => oneColumn || !blank(r));
  if (rows.length === 0) throw new InputError('the file has no rows', 'file');
  const head = o.header ?? !rows[0].every((c) => /^[-+.\d\s?]*$/.test(c)); // a header has a non-numeric cell
  // Header names are trimmed, as the engines trim them.
  const columns = o.columns ?? (head ? rows.shift()!.map((c) => c.trim()) : rows[0].map((_, i) => `column${i}`));
  if (rows.length === 0) throw new InputError('the file has a header but no rows', 'file');
  // A row of another width has cells that belong to no column, or columns without a cell: which
  // is which cannot be told (the engines refuse such files too).
  const odd = rows.findIndex((r) => r.length !== columns.length);
  if (odd >= 0)
    throw new InputError(
      `data row ${odd + 1} has ${rows[odd].length} cells where the ${o.columns || head ? 'header names' : 'first row has'} ${columns.length}: every row needs one cell per column (a missing value is an empty cell)`,
      'file',
    );
  return { columns, rows };
}

/** A missing cell: absent, empty or `?` (the UCI files' mark). A blank text cell is a value, as the engines read it. */
export const isMissing = (c: string | undefined) => c === undefined || c === '' || c === '?';

/** A cell without a number where a number is read: missing, or blank (the engines' DOUBLE cast reads `'  '` as NULL). */
export const missingNumber = (c: string | undefined) => isMissing(c) || c!.trim() === '';

const DIGITS = String.raw`\d(?:_?\d)*`;
const NUMBER_CELL = new RegExp(`^[+-]?(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?$`);

/**
 * A cell's number as the engines' DOUBLE cast reads it, so the page and the CLI compute the same
 * statistic: spaces and tabs around it ignored, `_` between digits (`1_000`), decimal notation only
 * (never `0x10` or `0b11`, which JavaScript's Number would read); NaN for anything else.
 * @example cellNumber(' 1_000.5 ') // 1000.5
 */
export function cellNumber(c: string): number {
  const t = c.replace(/^[ \t]+|[ \t]+$/g, '');
  return NUMBER_CELL.test(t) ? Number(t.replace(/_/g, '')) : Number.NaN;
}

/** A cell the query may use: a finite number (`cellNumber`). */
const isNumberCell = (c: string) => Number.isFinite(cellNumber(c));

/** A query column of a text table that holds text. */
export const notNumeric = (c: string) => new InputError(`column '${c}' is not numeric`, 'query');

/** Numeric columns: every non-missing cell parses as a finite number. */
export function numericColumns(t: TextTable): string[] {
  return t.columns.filter((_, j) => t.rows.every((r) => missingNumber(r[j]) || isNumberCell(r[j])));
}

/** What a data preview shows of one column. */
export interface ColumnSummary {
  name: string;
  /** Every non-missing cell is a number: the column can be a query. */
  numeric: boolean;
  /** Non-missing cells, and missing ones (empty or `?`). */
  present: number;
  missing: number;
  /** Distinct non-missing texts (secret values are texts: `01` and `1` are two). */
  distinct: number;
  /** Cells that are not numbers, and up to three of them (why the column cannot be a query). */
  nonNumeric: number;
  examples: string[];
  /** Smallest and largest number, for numeric columns with a value. */
  min?: number;
  max?: number;
}

/**
 * One summary per column: type, missing cells, distinct values and, for a column that is not
 * numeric, how many cells are not numbers with examples.
 * @example columnSummaries({ columns: ['x'], rows: [['1'], ['a'], ['?']] })[0] // { numeric: false, nonNumeric: 1, examples: ['a'], missing: 1, … }
 */
export function columnSummaries(t: TextTable): ColumnSummary[] {
  return t.columns.map((name, j) => {
    let missing = 0,
      nonNumeric = 0,
      min = Infinity,
      max = -Infinity;
    const examples: string[] = [];
    const seen = new Set<string>();
    for (const r of t.rows) {
      const c = r[j];
      if (missingNumber(c)) {
        missing++;
        continue;
      }
      seen.add(c);
      if (isNumberCell(c)) {
        const x = cellNumber(c);
        if (x < min) min = x;
        if (x > max) max = x;
      } else {
        nonNumeric++;
        if (examples.length < 3 && !examples.includes(c)) examples.push(c);
      }
    }
    const present = t.rows.length - missing;
    return {
      name,
      numeric: nonNumeric === 0,
      present,
      missing,
      distinct: seen.size,
      nonNumeric,
      examples,
      ...(nonNumeric === 0 && present > 0 ? { min, max } : {}),
    };
  });
}

/** Distinct values of a column as secret texts (exactly as in the table), most frequent first, and how many there are. */
export function distinctValues(t: TextTable, column: string, limit = 100): { values: string[]; total: number } {
  const j = t.columns.indexOf(column);
  const counts = new Map<string, number>();
  for (const r of t.rows) {
    const v = isMissing(r[j]) ? null : secretText(r[j]);
    if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  const values = [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([v]) => v);
  return { values, total: counts.size };
}

/**
 * The distinct rows of a query of several columns (points of ℝ^d), numbered as met: a vector is tallied by its number.
 * Exact: the key is its doubles' shortest texts (−0 folded into 0, as for scalar values).
 */
export class PointAtoms {
  readonly vectors: number[][] = [];
  private readonly ids = new Map<string, number>();

  id(coords: readonly number[]): number {
    const key = coords.map((c) => String(c === 0 ? 0 : c)).join(',');
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.vectors.length;
      this.ids.set(key, id);
      this.vectors.push(coords.map((c) => (c === 0 ? 0 : c)));
    }
    return id;
  }
}

/**
 * The conditional histograms of `query` per secret value (and public value), as the DuckDB path
 * computes them; with `queries` (several numeric columns), of their joint row vectors.
 */
export function textHistograms(
  t: TextTable,
  q: { query: string; queries?: string[]; secretColumn: string; values?: string[]; given?: string },
  /** A statistic's bootstrap draws: row k's weight in draw i is `weights(k)[i − 1]` (the engines' `TableHistograms.draws`). */
  weights?: { draws: number; of: (row: number) => number[] },
): TableHistograms {
  const need = (c: string, flag: string) => {
    const j = t.columns.indexOf(c);
    if (j < 0) throw unknownColumn(c, t.columns, flag);
    return j;
  };
  const queries = q.queries ?? [q.query];
  if (new Set(queries).size !== queries.length) throw columnTwice('query');
  const numeric = numericColumns(t);
  const qis = queries.map((c) => {
    const j = need(c, 'query');
    if (!numeric.includes(c)) throw notNumeric(c);
    return j;
  });
  const si = need(q.secretColumn, 'secretColumn'),
    gi = q.given ? need(q.given, 'given') : -1;
  const tally = new Tally();
  const draws = Array.from({ length: weights?.draws ?? 0 }, () => new Tally());
  const atoms = queries.length > 1 ? new PointAtoms() : null;
  let dropped = 0;
  // Kept rows (index, group, secret, value), reweighted by the draws once their number is bounded.
  const kept: [number, string, string, number][] = [];
  for (const [k, r] of t.rows.entries()) {
    const xs = qis.map((qi) => (missingNumber(r[qi]) ? NaN : cellNumber(r[qi])));
    const s = secretText(r[si] === '?' ? null : r[si]);
    const g = gi < 0 ? '' : secretText(r[gi] === '?' ? null : r[gi]);
    if (!xs.every(Number.isFinite) || s === null || g === null) {
      dropped++;
      continue;
    }
    const x = atoms ? atoms.id(xs) : xs[0];
    tally.add(g, s, x, 1);
    if (weights) kept.push([k, g, s, x]);
  }
  if (weights) {
    checkDrawnSize(tally.size, weights.draws);
    for (const [k, g, s, x] of kept) for (const [i, w] of weights.of(k).entries()) if (w > 0) draws[i].add(g, s, x, w);
  }
  const secrets = tally.secrets(q.values, { column: q.secretColumn });
  return {
    groups: tally.histograms(secrets),
    rows: t.rows.length,
    dropped,
    secrets,
    notes: tally.notes,
    ...(atoms ? { vectors: atoms.vectors } : {}),
    ...(weights ? { draws: draws.map((d) => d.histograms(secrets, tally)) } : {}),
  };
}

/**
 * Counts per (public value, secret, query value), and the checks and sorted histograms both
 * table paths (DuckDB/PostgreSQL and plain text) share.
 */
export class Tally {
  private readonly groups = new Map<string, Map<string, Map<number, number>>>();
  /** User-given secret name → the table text it matched (when not identical). */
  private readonly resolved = new Map<string, string>();
  /** How given names were matched to the table's texts, said in the output. */
  readonly notes: string[] = [];

  /** The number of distinct (group, secret, value) rows tallied. */
  get size(): number {
    let n = 0;
    for (const gm of this.groups.values()) for (const sm of gm.values()) n += sm.size;
    return n;
  }

  add(g: string, s: string, x: number, n: number): void {
    let gm = this.groups.get(g);
    if (!gm) {
      gm = new Map();
      this.groups.set(g, gm);
    }
    let sm = gm.get(s);
    if (!sm) {
      sm = new Map();
      gm.set(s, sm);
    }
    sm.set(x, (sm.get(x) ?? 0) + n);
  }

  /** The secrets (given, or every value seen), each checked to have rows; at least two. */
  secrets(given: string[] | undefined, o: { column?: string }): string[] {
    const present = new Set([...this.groups.values()].flatMap((m) => [...m.keys()]));
    const secrets = given ?? [...present].sort();
    const flag = o.column ? 'values' : 'secret';
    const seen = new Set<string>();
    for (const s of secrets) {
      if (seen.has(s)) throw new InputError(`secret '${s}' is given twice`, flag);
      seen.add(s);
      if (present.has(s)) continue;
      // Not in the table as typed: accept a unique text with the same number (`1` for `1.0`), saying so.
      const same = Number.isFinite(Number(s)) && s.trim() !== '' ? [...present].filter((t) => t.trim() !== '' && Number(t) === Number(s)) : [];
      if (same.length === 1 && !given!.includes(same[0])) {
        this.resolved.set(s, same[0]);
        this.notes.push(`secret '${s}' is the table's value '${same[0]}'${o.column ? ` of '${o.column}'` : ''}`);
        continue;
      }
      const why =
        same.length > 1
          ? ` (${same
              .sort()
              .map((t) => `'${t}'`)
              .join(', ')} are distinct values with that number; name one)`
          : '';
      throw new InputError(
        `secret '${s}' has no rows${why}${o.column ? ` (values of '${o.column}': ${[...present].sort().slice(0, 20).join(', ')})` : ''}`,
        flag,
      );
    }
    if (secrets.length < 2)
      throw new InputError(
        secrets.length
          ? `needs at least two secrets, found 1 ('${secrets[0]}')`
          : `needs at least two secrets, found none: no row of the table has a secret value (n = 0; an empty table has none to protect)`,
        o.column ? 'secretColumn' : 'secret',
      );
    return secrets;
  }

  /** Per public value (sorted), per secret, the histogram with sorted values (secret names matched as `names` matched them). */
  histograms(secrets: string[], names: Tally = this): Map<string, Map<string, Histogram>> {
    const out = new Map<string, Map<string, Histogram>>();
    for (const [g, gm] of [...this.groups].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const m = new Map<string, Histogram>();
      for (const s of secrets) {
        const h = gm.get(names.resolved.get(s) ?? s);
        if (!h) continue;
        const values = [...h.keys()].sort((a, b) => a - b);
        m.set(s, { values, counts: values.map((v) => h.get(v)!) });
      }
      out.set(g, m);
    }
    return out;
  }
}
