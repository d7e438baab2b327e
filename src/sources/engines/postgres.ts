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
  // Everything this tool runs only reads: make the session refuse writes too. Strings read '\' as
  // a plain character, as the predicate check assumes (a server set otherwise would end a string
  // at \' and let a predicate run on), and every query goes by the extended protocol, which takes
  // one statement only.
  await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
  await client.query('SET standard_conforming_strings = on');
  // (queryMode is pg's own option; its type declarations do not list it yet.)
  const one = (sql: string) => client.query({ text: sql, queryMode: 'extended' } as { text: string });
  const run = async (sql: string) => (await one(sql)).rows as Record<string, unknown>[];
  return {
    relation,
    tryCast: (e) => `CAST(${e} AS double precision)`,
    fingerprint: `SELECT count(*) AS n, CAST(sum(('x' || substr(md5(CAST(pufferfish_rows AS text)), 1, 15))::bit(60)::bigint) AS text) AS h FROM (SELECT * FROM ${relation}) AS pufferfish_rows`,
    md5Bits: (text) => `('x' || lpad(substr(md5(${text}), 1, 13), 16, '0'))::bit(64)::bigint`,
    integers: (n) => `generate_series(0, ${n}) AS pufferfish_integers(i)`,
    async columns() {
      try {
        const r = await one(`SELECT * FROM ${relation} LIMIT 0`);
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
