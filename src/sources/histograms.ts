import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { InputError } from '../errors.js';
import { canonical, Tally } from './csvText.js';
import { duckRelation, ident, type TableSource } from './table.js';

export { canonical };

/** What to histogram: the numeric query column, and the secrets (a column's values or predicates). */
export interface SecretQuery {
  query: string;
  /** Each value of this column is a secret (optionally only `values`). */
  secretColumn?: string;
  values?: string[];
  /** Or named SQL predicates, e.g. { older: 'age >= 50' }; a row may satisfy several. */
  predicates?: Record<string, string>;
  /** Public column: every pair is split by its value (structured secrets of Nuradha–Goldfeld). */
  given?: string;
}

export type Histogram = { values: number[]; counts: number[] };

export interface TableHistograms {
  /** Per public value ('' without --given): per secret, the histogram of the query column. */
  groups: Map<string, Map<string, Histogram>>;
  rows: number;
  /** Rows dropped for a missing/non-numeric query value or a missing secret or public value. */
  dropped: number;
  secrets: string[];
}

const short = (msg: string) => msg.split('\n')[0].replace(/^[A-Za-z ]*Error: /, '').slice(0, 200);

interface Engine {
  columns(): Promise<{ name: string; numeric: boolean; type: string }[]>;
  check(predicate: string): Promise<void>;
  rows(sql: string): Promise<Record<string, unknown>[]>;
  relation: string;
  tryCast: (expr: string) => string;
  close(): Promise<void>;
}

async function duckEngine(s: TableSource): Promise<Engine> {
  const relation = duckRelation(s);
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const run = async (sql: string) => (await con.runAndReadAll(sql)).getRowObjects() as Record<string, unknown>[];
  return {
    relation,
    tryCast: (e) => `TRY_CAST(${e} AS DOUBLE)`,
    async columns() {
      let rows;
      try {
        rows = await run(`DESCRIBE SELECT * FROM ${relation}`);
      } catch (e) {
        throw new InputError(`cannot read '${s.location}': ${short((e as Error).message)}`, '--data');
      }
      return rows.map((r) => ({ name: String(r.column_name), type: String(r.column_type), numeric: /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL.*|REAL)$/i.test(String(r.column_type)) }));
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

const PG_NUMERIC = new Set([20, 21, 23, 700, 701, 1700]); // int8, int2, int4, float4, float8, numeric

async function postgresEngine(s: TableSource): Promise<Engine> {
  if (!s.table && !s.sql) throw new InputError('a PostgreSQL source needs --table T or --sql "SELECT …"', '--table');
  const relation = s.table ? ident(s.table) : `(${s.sql}) AS src`;
  const client = new pg.Client({ connectionString: s.location, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (e) {
    throw new InputError(`cannot reach the database: ${short((e as Error).message)}`, '--data');
  }
  const run = async (sql: string) => (await client.query(sql)).rows as Record<string, unknown>[];
  return {
    relation,
    tryCast: (e) => `CAST(${e} AS double precision)`,
    async columns() {
      try {
        const r = await client.query(`SELECT * FROM ${relation} LIMIT 0`);
        return r.fields.map((f) => ({ name: f.name, type: `oid ${f.dataTypeID}`, numeric: PG_NUMERIC.has(f.dataTypeID) }));
      } catch (e) {
        throw new InputError(`cannot read ${s.table ? `table '${s.table}'` : 'the --sql query'}: ${short((e as Error).message)}`, s.table ? '--table' : '--sql');
      }
    },
    async check(predicate) {
      await run(`EXPLAIN SELECT 1 FROM ${relation} WHERE (${predicate})`);
    },
    rows: run,
    async close() {
      await client.end();
    },
  };
}

/**
 * The conditional histograms of `query` under each secret, by one aggregating query pushed to
 * the engine (DuckDB for files, PostgreSQL for databases): rows never pass through JavaScript
 * one by one. Rows with a missing or non-numeric query value, a missing secret or a missing
 * public value are dropped and counted.
 */
export async function tableHistograms(source: TableSource, q: SecretQuery): Promise<TableHistograms> {
  const engine = source.kind === 'postgres' ? await postgresEngine(source) : await duckEngine(source);
  try {
    const cols = await engine.columns();
    const names = cols.map((c) => c.name);
    const need = (name: string, flag: string) => {
      const c = cols.find((x) => x.name === name);
      if (!c) throw new InputError(`unknown column '${name}' (columns: ${names.join(', ')})`, flag);
      return c;
    };
    const qc = need(q.query, '--query');
    if (!qc.numeric) throw new InputError(`column '${q.query}' is not numeric (type ${qc.type})`, '--query');
    if (!q.secretColumn === !q.predicates) throw new InputError('give --secret-column COL or --secret NAME=PREDICATE (not both)', '--secret-column');
    if (q.secretColumn) need(q.secretColumn, '--secret-column');
    if (q.given) need(q.given, '--given');
    const x = engine.tryCast(ident(q.query));
    const g = q.given ? `${ident(q.given)}` : 'NULL';
    let sql: string;
    let predicateNames: string[] = [];
    if (q.secretColumn) {
      sql = `SELECT ${g} AS g, ${ident(q.secretColumn)} AS s, ${x} AS x, count(*) AS n FROM ${engine.relation} GROUP BY 1, 2, 3`;
    } else {
      predicateNames = Object.keys(q.predicates!);
      for (const [name, pred] of Object.entries(q.predicates!)) {
        try {
          await engine.check(pred);
        } catch (e) {
          throw new InputError(`the predicate of '${name}' was rejected: ${short((e as Error).message)}`, '--secret');
        }
      }
      const filters = predicateNames.map((n, i) => `count(*) FILTER (WHERE (${q.predicates![n]})) AS p${i}`).join(', ');
      sql = `SELECT ${g} AS g, ${x} AS x, count(*) AS n, ${filters} FROM ${engine.relation} GROUP BY 1, 2`;
    }
    let rows;
    try {
      rows = await engine.rows(sql);
    } catch (e) {
      throw new InputError(`the aggregation failed: ${short((e as Error).message)}`, '--data');
    }
    const tally = new Tally();
    let total = 0, dropped = 0;
    for (const r of rows) {
      const n = Number(r.n);
      total += n;
      const gv = q.given ? canonical(r.g) : '';
      const xv = r.x === null || r.x === undefined ? null : Number(r.x);
      const s = q.secretColumn ? canonical(r.s) : '';
      if (gv === null || xv === null || !Number.isFinite(xv) || s === null) {
        dropped += n;
        continue;
      }
      if (q.secretColumn) tally.add(gv, s, xv, n);
      else predicateNames.forEach((name, i) => Number(r[`p${i}`]) > 0 && tally.add(gv, name, xv, Number(r[`p${i}`])));
    }
    const secrets = q.secretColumn ? tally.secrets(q.values, { column: q.secretColumn }) : tally.secrets(predicateNames, {});
    return { groups: tally.histograms(secrets), rows: total, dropped, secrets };
  } finally {
    await engine.close();
  }
}
