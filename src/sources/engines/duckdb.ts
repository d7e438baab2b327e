import { InputError } from '../../errors.js';
import { resolve } from 'node:path';
import { duckRelation, ident, literal, literalPath, type TableSource } from '../table.js';
import { duckdb } from './drivers.js';
import { short, type Engine } from './engine.js';

/**
 * Files (CSV, TSV, Parquet, JSON lines) through an in-memory DuckDB. The needed columns are read
 * as text. Every statement on a CSV runs DuckDB's sniffer again (a pass over up to 20 480 rows,
 * the whole file for predicates), so `columns()` runs on a connection of its own, at the same
 * time as the aggregation, not before it.
 */
export async function duckEngine(s: TableSource, textColumns: string[], typedColumnsMatter: boolean, numericColumns: string[] = []): Promise<Engine> {
  const inst = await duckdb().DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  await lockToFile(con, s);
  const side = await inst.connect();
  const run = async (sql: string, c = con) => (await c.runAndReadAll(sql)).getRowObjects() as Record<string, unknown>[];
  const relation = asNumbers(duckRelation(s, textColumns, typedColumnsMatter), numericColumns);
  const describe = async (rel: string) => {
    try {
      return await run(`DESCRIBE SELECT * FROM ${rel}`, side);
    } catch (e) {
      throw new InputError(`cannot read '${s.location}': ${short((e as Error).message)}`, 'data');
    }
  };
  return {
    relation,
    readsAsText: true,
    tryCast: (e) => `TRY_CAST(${e} AS DOUBLE)`,
    fingerprint: `SELECT count(*) AS n, CAST(sum(hash(pufferfish_rows)) AS VARCHAR) AS h FROM (SELECT * FROM ${relation}) AS pufferfish_rows`,
    md5Bits: (text) => `CAST('0x' || substr(md5(${text}), 1, 13) AS BIGINT)`,
    integers: (n) => `range(0, ${n + 1}) AS pufferfish_integers(i)`,
    // DuckDB scans a file in its order (insertion order is preserved), so a row's number is its line's.
    rowPosition: 'CAST(row_number() OVER () AS VARCHAR)',
    // (The position and the row struct under names of the middle query's own: no column of the table stands in for them.)
    orderFingerprint: `SELECT CAST(sum(hash(p, r)) AS VARCHAR) AS h FROM (SELECT row_number() OVER () AS p, pufferfish_rows AS r FROM (SELECT * FROM ${relation}) AS pufferfish_rows) AS pufferfish_positions`,
    async columns() {
      // The names of the very relation aggregated; when a text column is missing it cannot be
      // described, and the file read without types lists the names there are.
      const rows = await describe(relation).catch(() => describe(duckRelation(s, [], typedColumnsMatter)));
      return rows.map((r) => ({
        name: String(r.column_name),
        type: String(r.column_type),
        numeric: /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL.*|REAL)$/i.test(String(r.column_type)),
      }));
    },
    async check(predicate) {
      await run(`EXPLAIN SELECT 1 FROM ${relation} WHERE (${predicate})`);
    },
    rows: run,
    // A large aggregate (a bootstrap class's draws) read a chunk at a time: its rows are tallied as
    // they come, never all held as objects at once.
    async *batches(sql) {
      const result = await con.stream(sql);
      for await (const rows of result.yieldRowObjects()) yield rows as Record<string, unknown>[];
    },
    async close() {
      side.closeSync();
      con.closeSync();
      inst.closeSync();
    },
  };
}

/**
 * Confines the instance to the one file it reads: a secret's SQL predicate could otherwise read any
 * file the process can (`read_text`, `read_csv`, `glob`) and bring its contents into the counts or
 * an error message. Once external access is off it cannot be turned back on from SQL.
 */
export async function lockToFile(con: import('@duckdb/node-api').DuckDBConnection, s: TableSource): Promise<void> {
  const paths = [...new Set([literalPath(s.location), resolve(s.location)])];
  await con.run(`SET allowed_paths = [${paths.map(literal).join(', ')}]`);
  await con.run('SET enable_external_access = false');
}

/**
 * The relation with `columns` (read as text) seen as their text's number, as the text path casts
 * each value (TRY_CAST: a text that is no number is missing), so a predicate compares them as
 * numbers and reads the very values the laws and the released statistic read.
 */
function asNumbers(relation: string, columns: readonly string[]): string {
  if (!columns.length) return relation;
  const cast = [...new Set(columns)].map((c) => `TRY_CAST(${ident(c)} AS DOUBLE) AS ${ident(c)}`).join(', ');
  // Named as the table function it wraps (read_csv, …): a predicate naming the row reads this one.
  const name = /^(\w+)\(/.exec(relation)?.[1] ?? 'pufferfish_numbers';
  return `(SELECT * REPLACE (${cast}) FROM ${relation}) AS ${name}`;
}
