import { DuckDBInstance } from '@duckdb/node-api';
import { InputError } from '../../errors.js';
import { duckRelation, type TableSource } from '../table.js';
import { short, type Engine } from './engine.js';

/** Files (CSV, TSV, Parquet, JSON lines) through an in-memory DuckDB. */
export async function duckEngine(s: TableSource, textColumns: string[], typedColumnsMatter: boolean): Promise<Engine> {
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const run = async (sql: string) => (await con.runAndReadAll(sql)).getRowObjects() as Record<string, unknown>[];
  const describe = async (relation: string) => {
    try {
      return await run(`DESCRIBE SELECT * FROM ${relation}`);
    } catch (e) {
      throw new InputError(`cannot read '${s.location}': ${short((e as Error).message)}`, 'data');
    }
  };
  // Names first (types from the whole file), then the text columns that exist read as text.
  const names = new Set((await describe(duckRelation(s))).map((r) => String(r.column_name)));
  const relation = duckRelation(
    s,
    textColumns.filter((c) => names.has(c)),
    typedColumnsMatter,
  );
  return {
    relation,
    tryCast: (e) => `TRY_CAST(${e} AS DOUBLE)`,
    async columns() {
      const rows = await describe(relation);
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
    async close() {
      con.closeSync();
      inst.closeSync();
    },
  };
}
