import { InputError } from '../../errors.js';
import { ident, type TableSource } from '../table.js';
import { pg } from './drivers.js';
import { short, type Engine } from './engine.js';

const PG_NUMERIC = new Set([20, 21, 23, 700, 701, 1700]); // int8, int2, int4, float4, float8, numeric

/** A PostgreSQL table or query, in a read-only session. */
export async function postgresEngine(s: TableSource): Promise<Engine> {
  if (!s.table && !s.sql) throw new InputError('a PostgreSQL source needs --table T or --sql "SELECT …"', 'table');
  const relation = s.table ? ident(s.table) : `(${s.sql}) AS src`;
  const { Client } = pg();
  let client: InstanceType<typeof Client>;
  try {
    client = new Client({ connectionString: s.location, connectionTimeoutMillis: 5000 });
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
