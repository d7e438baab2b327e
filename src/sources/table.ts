import { mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { InputError } from '../errors.js';
import { ident, literal } from './sqlText.js';

export { ident, literal };

/** Where the rows live: a file DuckDB reads (CSV/TSV, Parquet, JSON lines) or a PostgreSQL database. */
export interface TableSource {
  kind: 'csv' | 'parquet' | 'json' | 'postgres';
  /** File path, or `postgres://…` connection string. */
  location: string;
  /** CSV: first line is a header (default: DuckDB's sniffer decides). */
  header?: boolean;
  /** CSV separator, e.g. `;` or `, ` (default: sniffed). */
  separator?: string;
  /** Column names when the file has no header. */
  columns?: string[];
  /** CSV: lines to skip before the data (adult.test starts with a comment line). */
  skip?: number;
  /** Strings read as missing (default `?` and the empty string, as UCI writes them). */
  nullStrings?: string[];
  /** PostgreSQL: a table, or a SELECT. */
  table?: string;
  sql?: string;
}

/** The kind of a data location, from its scheme or extension. */
export function sourceKind(location: string): TableSource['kind'] {
  if (/^postgres(ql)?:\/\//i.test(location)) return 'postgres';
  const ext = extname(location).toLowerCase();
  if (ext === '.parquet') return 'parquet';
  if (ext === '.jsonl' || ext === '.ndjson' || ext === '.json') return 'json';
  return 'csv';
}

/**
 * A data location fit to print: a `postgres://` URL without its user, password or parameters
 * (`postgres://host:5432/db`), a file as given. Credentials never reach output or specs.
 */
export function sourceLabel(location: string): string {
  if (!/^postgres(ql)?:\/\//i.test(location)) return location;
  try {
    const u = new URL(location);
    return `postgres://${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

const GLOB = /[*?[\]{}]/;
let linkDir: string | null = null;
let links = 0;
/** The link made for each globbing name (one per name and process). */
const linked = new Map<string, string>();

/**
 * A path DuckDB reads as exactly that file: DuckDB expands glob characters (`q[1].csv` would
 * read `q1.csv`) and unions every file below a directory, so a name with glob characters is
 * read through a symbolic link with a plain name, and directories are refused.
 */
export function literalPath(location: string): string {
  const seen = linked.get(location);
  if (seen) return seen;
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(location);
  } catch {
    throw new InputError(`file '${location}' does not exist`, 'data');
  }
  if (!st.isFile()) throw new InputError(`'${location}' is not a regular file (directories and globs are not read; name one file)`, 'data');
  if (!GLOB.test(location)) return location;
  if (!linkDir) {
    const dir = mkdtempSync(join(tmpdir(), 'pufferfish-'));
    linkDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const link = join(linkDir, `f${links++}${extname(location).replace(GLOB, '')}`);
  symlinkSync(resolve(location), link);
  linked.set(location, link);
  return link;
}

/**
 * DuckDB table function reading the file. `textColumns` are read as text, never type-inferred
 * (the sniffer samples the first rows: a column of integers followed by 0.4 would be rounded);
 * with `typedColumnsMatter` (SQL predicates) the other columns' types come from the whole file.
 */
export function duckRelation(s: TableSource, textColumns: string[] = [], typedColumnsMatter = false): string {
  const path = literal(literalPath(s.location));
  if (s.kind === 'parquet') return `read_parquet(${path})`;
  if (s.kind === 'json') return `read_json_auto(${path}, format = 'newline_delimited', sample_size = -1)`;
  const opts = [`nullstr = [${(s.nullStrings ?? ['?', '']).map(literal).join(', ')}]`];
  // Other columns matter only to predicates; then their types come from the whole file (a
  // sniffing pass, about 4× the read) so a late decimal is never cast to an integer.
  if (typedColumnsMatter) opts.push('sample_size = -1');
  if (textColumns.length) opts.push(`types = {${[...new Set(textColumns)].map((c) => `${literal(c)}: 'VARCHAR'`).join(', ')}}`);
  if (s.header !== undefined) opts.push(`header = ${s.header}`);
  if (s.separator !== undefined) opts.push(`delim = ${literal(s.separator)}`);
  if (s.columns) opts.push(`names = [${s.columns.map(literal).join(', ')}]`);
  if (s.skip) opts.push(`skip = ${s.skip}`);
  return `read_csv(${path}, ${opts.join(', ')})`;
}
