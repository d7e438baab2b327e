import { existsSync } from 'node:fs';
import { extname } from 'node:path';
import { InputError } from '../errors.js';

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

/** Double-quoted SQL identifier (both DuckDB and PostgreSQL). */
export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
/** Single-quoted SQL string literal. */
export const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** DuckDB table function reading the file. */
export function duckRelation(s: TableSource): string {
  if (!existsSync(s.location)) throw new InputError(`file '${s.location}' does not exist`, '--data');
  const path = literal(s.location);
  if (s.kind === 'parquet') return `read_parquet(${path})`;
  if (s.kind === 'json') return `read_json_auto(${path}, format = 'newline_delimited')`;
  const opts = [`nullstr = [${(s.nullStrings ?? ['?', '']).map(literal).join(', ')}]`];
  if (s.header !== undefined) opts.push(`header = ${s.header}`);
  if (s.separator !== undefined) opts.push(`delim = ${literal(s.separator)}`);
  if (s.columns) opts.push(`names = [${s.columns.map(literal).join(', ')}]`);
  if (s.skip) opts.push(`skip = ${s.skip}`);
  return `read_csv(${path}, ${opts.join(', ')})`;
}
