import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { InputError } from '../errors.js';
import { canonical, secretText, Tally } from './csvText.js';
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
  /** How given secret names were matched to the table's texts (shown with the source). */
  notes?: string[];
}

/**
 * A secret predicate must be one SQL expression: it is spliced into `WHERE (…)` and
 * `FILTER (WHERE (…))`, so a `;`, a comment or a parenthesis closing past its own level would
 * let it end our statement and start another (`1=1); COPY … TO '/tmp/x'; SELECT (1`).
 * String literals and quoted identifiers are skipped when scanning.
 */
export function checkPredicate(name: string, text: string): void {
  const bad = (why: string) => new InputError(`the predicate of '${name}' ${why}`, 'secret');
  let depth = 0, semicolon = false, comment = false, closesEarly = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) throw bad(`has an unterminated ${c === "'" ? 'string' : 'quoted name'}`);
      i = end; // a doubled quote ('') simply starts the next literal
    } else if (c === ';') semicolon = true;
    else if ((c === '-' && text[i + 1] === '-') || (c === '/' && text[i + 1] === '*')) comment = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth < 0) closesEarly = true;
  }
  if (semicolon) throw bad("must be one SQL expression (no ';')");
  if (comment) throw bad('must be one SQL expression (no comments)');
  if (closesEarly) throw bad('closes a parenthesis it did not open');
  if (depth !== 0) throw bad('leaves a parenthesis open');
  if (text.trim() === '') throw bad('is empty');
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

async function duckEngine(s: TableSource, textColumns: string[], typedColumnsMatter: boolean): Promise<Engine> {
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
  const relation = duckRelation(s, textColumns.filter((c) => names.has(c)), typedColumnsMatter);
  return {
    relation,
    tryCast: (e) => `TRY_CAST(${e} AS DOUBLE)`,
    async columns() {
      const rows = await describe(relation);
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
  if (!s.table && !s.sql) throw new InputError('a PostgreSQL source needs --table T or --sql "SELECT …"', 'table');
  const relation = s.table ? ident(s.table) : `(${s.sql}) AS src`;
  let client: pg.Client;
  try {
    client = new pg.Client({ connectionString: s.location, connectionTimeoutMillis: 5000 });
    await client.connect();
  } catch (e) {
    throw new InputError(`cannot reach the database: ${short((e as Error).message)}`, 'data');
  }
  // Everything this tool runs only reads: make the session refuse writes too.
  await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
  const run = async (sql: string) => (await client.query(sql)).rows as Record<string, unknown>[];
  return {
    relation,
    tryCast: (e) => `CAST(${e} AS double precision)`,
    async columns() {
      try {
        const r = await client.query(`SELECT * FROM ${relation} LIMIT 0`);
        return r.fields.map((f) => ({ name: f.name, type: `oid ${f.dataTypeID}`, numeric: PG_NUMERIC.has(f.dataTypeID) }));
      } catch (e) {
        throw new InputError(`cannot read ${s.table ? `table '${s.table}'` : 'the --sql query'}: ${short((e as Error).message)}`, s.table ? 'table' : 'sql');
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
  // Query, secret and public columns are read as text and cast exactly (DuckDB files).
  const textColumns = [q.query, q.secretColumn, q.given].filter((c): c is string => !!c);
  const engine = source.kind === 'postgres' ? await postgresEngine(source) : await duckEngine(source, textColumns, !!q.predicates);
  try {
    const cols = await engine.columns();
    const names = cols.map((c) => c.name);
    const need = (name: string, flag: string) => {
      const c = cols.find((x) => x.name === name);
      if (!c) throw new InputError(`unknown column '${name}' (columns: ${names.join(', ')})`, flag);
      return c;
    };
    const qc = need(q.query, 'query');
    // Text columns (DuckDB files) are cast value by value; typed non-numeric columns are refused.
    const asText = source.kind !== 'postgres' && /^VARCHAR$/i.test(qc.type);
    if (!qc.numeric && !asText) throw new InputError(`column '${q.query}' is not numeric (type ${qc.type})`, 'query');
    if (!q.secretColumn === !q.predicates) throw new InputError('give --secret-column COL or --secret NAME=PREDICATE (not both)', 'secretColumn');
    if (q.secretColumn) need(q.secretColumn, 'secretColumn');
    if (q.given) need(q.given, 'given');
    const x = engine.tryCast(ident(q.query));
    const g = q.given ? `${ident(q.given)}` : 'NULL';
    let sql: string;
    let predicateNames: string[] = [];
    if (q.secretColumn) {
      sql = `SELECT ${g} AS g, ${ident(q.secretColumn)} AS s, ${x} AS x, count(*) AS n FROM ${engine.relation} GROUP BY 1, 2, 3`;
    } else {
      predicateNames = Object.keys(q.predicates!);
      for (const [name, pred] of Object.entries(q.predicates!)) {
        checkPredicate(name, pred);
        try {
          await engine.check(pred);
        } catch (e) {
          throw new InputError(`the predicate of '${name}' was rejected: ${short((e as Error).message)}`, 'secret');
        }
      }
      const filters = predicateNames.map((n, i) => `count(*) FILTER (WHERE (${q.predicates![n]})) AS p${i}`).join(', ');
      sql = `SELECT ${g} AS g, ${x} AS x, count(*) AS n, ${filters} FROM ${engine.relation} GROUP BY 1, 2`;
    }
    let rows: Record<string, unknown>[];
    try {
      rows = await engine.rows(sql);
    } catch (e) {
      throw new InputError(`the aggregation failed: ${short((e as Error).message)}`, 'data');
    }
    const tally = new Tally();
    let total = 0, dropped = 0, numeric = 0;
    for (const r of rows) {
      const n = Number(r.n);
      total += n;
      if (r.x !== null && r.x !== undefined && Number.isFinite(Number(r.x))) numeric += n;
      const gv = q.given ? secretText(r.g) : '';
      const xv = r.x === null || r.x === undefined ? null : Number(r.x);
      const s = q.secretColumn ? secretText(r.s) : '';
      if (gv === null || xv === null || !Number.isFinite(xv) || s === null) {
        dropped += n;
        continue;
      }
      if (q.secretColumn) tally.add(gv, s, xv, n);
      else {
        predicateNames.forEach((name, i) => {
          if (Number(r[`p${i}`]) > 0) tally.add(gv, name, xv, Number(r[`p${i}`]));
        });
      }
    }
    if (numeric === 0 && total > 0 && asText) throw new InputError(`column '${q.query}' is not numeric (no value parses as a number)`, 'query');
    const secrets = q.secretColumn ? tally.secrets(q.values, { column: q.secretColumn }) : tally.secrets(predicateNames, {});
    return { groups: tally.histograms(secrets), rows: total, dropped, secrets, notes: tally.notes };
  } finally {
    await engine.close();
  }
}
