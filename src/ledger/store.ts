import { randomInt, randomUUID } from 'node:crypto';
import { existsSync, linkSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../errors.js';
import { duckdb, pg } from '../sources/engines/drivers.js';
import { sourceLabel } from '../sources/table.js';

/** What a ledger fixes when it is opened: the budget and the laws it protects. */
export interface LedgerMeta {
  /**
   * Format of the ledger (the layout below): 2 keeps the accountant's version in the meta digest,
   * so a build that reads format 1 only refuses it by its format rather than reading a changed digest.
   */
  format: 1 | 2;
  created: string;
  /** The budget as JSON text (`Budget`, ∞ written "inf"). */
  budget: string;
  /** `lawsDigest` of the scenario. */
  laws: string;
  /** The scenario's name, for people. */
  scenario: string;
  /**
   * A series' ledger opened on a table: its chain spec, windows and where the series lies in the
   * table (JSON text), read instead of the table's later estimate. Absent otherwise.
   */
  series?: string;
  /**
   * The version of the joint accountant that opened the ledger (`ACCOUNTANT` in ledger.ts): a
   * recomputed level below a recorded one is a tighter accountant's only where the ledger is older
   * than it. Absent: opened before the version was kept (before exact accounting on ℝ², version 1).
   */
  accountant?: string;
  /** SHA-256 of the fields above: the first link of the rows' chain. */
  digest: string;
}

/** One recorded release (never its values, never the data). */
export interface LedgerRow {
  seq: number;
  at: string;
  mechanism: string;
  scale: number;
  cost: string | null;
  count: number;
  /** JSON text of the coordinate weights of a vector release, else null. */
  coordinateScales: string | null;
  /** The released query, for people (columns, or the command's --query). */
  query: string;
  /** The joint level of every release up to and including this one, read against the budget, and its order. */
  level: number;
  alpha: number;
  /** 'pending' from the check until the values are out; 'shown' once they were printed or written. */
  status: 'pending' | 'shown';
  /** SHA-256 of the previous link and this row's fields (not its status). */
  digest: string;
}

/** A ledger's fixed entry and its recorded releases, in order. */
export interface LedgerState {
  meta: LedgerMeta;
  rows: LedgerRow[];
  /**
   * `N:DIGEST` of the last release, rewritten with every append: removing releases from the end
   * leaves it pointing past them, so `check` sees the removal.
   */
  head: string | null;
}

/** The head entry of a ledger whose last release is `seq` with chain link `digest` (0 and the meta digest when empty). */
export const headOf = (seq: number, digest: string) => `${seq}:${digest}`;

/**
 * Where a ledger lives. The budget check and the append run in one exclusive transaction
 * (`exclusive`): whatever the decision reads stays true until its rows are committed, so two
 * processes can never both pass a budget only one fits.
 */
export interface LedgerStore {
  /** The location fit to print (no credentials). */
  readonly label: string;
  /** Creates the ledger with its fixed entry; refused where one exists. */
  create(meta: LedgerMeta): Promise<void>;
  /** Reads the whole ledger (no lock: a reader never blocks a release). */
  read(): Promise<LedgerState>;
  /** Reads the ledger, lets `decide` return rows to append (or throw), and commits them, all under one lock. */
  exclusive<T>(decide: (s: LedgerState) => { append: LedgerRow[]; result: T }): Promise<T>;
  /** Marks releases whose values are out. */
  markShown(seqs: readonly number[]): Promise<void>;
}

const META_FIELDS = ['format', 'created', 'budget', 'laws', 'scenario', 'digest'] as const;

/** The meta table's entries: every field, and the series and accountant where there are. */
const metaEntries = (meta: LedgerMeta): [string, string][] => [
  ...META_FIELDS.map((k): [string, string] => [k, String(meta[k])]),
  ...(meta.series !== undefined ? [['series', meta.series] as [string, string]] : []),
  ...(meta.accountant !== undefined ? [['accountant', meta.accountant] as [string, string]] : []),
];

const CREATE = (t: { meta: string; rows: string }, real: string) => [
  `CREATE TABLE ${t.meta} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE ${t.rows} (seq INTEGER PRIMARY KEY, recorded_at TEXT NOT NULL, mechanism TEXT NOT NULL, scale ${real} NOT NULL, cost TEXT, count INTEGER NOT NULL, coordinate_scales TEXT, query TEXT NOT NULL, level ${real} NOT NULL, alpha TEXT NOT NULL, status TEXT NOT NULL, digest TEXT NOT NULL)`,
];

/** The rows of a ledger table as typed fields; anything malformed is the ledger's corruption, reported. */
function rowOf(r: Record<string, unknown>, where: string): LedgerRow {
  const num = (k: string) => {
    const v = Number(r[k]);
    if (!Number.isFinite(v)) throw corrupted(where, `release field '${k}' is ${String(r[k])}`);
    return v;
  };
  const status = String(r.status);
  if (status !== 'pending' && status !== 'shown') throw corrupted(where, `release status '${status}'`);
  return {
    seq: num('seq'),
    at: String(r.recorded_at),
    mechanism: String(r.mechanism),
    scale: num('scale'),
    cost: r.cost === null || r.cost === undefined ? null : String(r.cost),
    count: num('count'),
    coordinateScales: r.coordinate_scales === null || r.coordinate_scales === undefined ? null : String(r.coordinate_scales),
    query: String(r.query),
    level: num('level'),
    alpha: r.alpha === 'inf' ? Infinity : num('alpha'),
    status,
    digest: String(r.digest),
  };
}

function metaOf(pairs: { key: unknown; value: unknown }[], where: string): LedgerMeta {
  const m = new Map(pairs.map((p) => [String(p.key), String(p.value)]));
  for (const k of META_FIELDS) if (!m.has(k)) throw corrupted(where, `its '${k}' entry is missing`);
  const format = m.get('format');
  if (format !== '1' && format !== '2') throw corrupted(where, `format ${format} (this version reads formats 1 and 2)`);
  // Format 2 names the accountant that opened it; format 1 predates the entry.
  if ((format === '2') !== m.has('accountant')) throw corrupted(where, `format ${format} ${format === '2' ? 'without' : 'with'} an 'accountant' entry`);
  return {
    format: format === '2' ? 2 : 1,
    created: m.get('created')!,
    budget: m.get('budget')!,
    laws: m.get('laws')!,
    scenario: m.get('scenario')!,
    ...(m.has('series') ? { series: m.get('series')! } : {}),
    ...(m.has('accountant') ? { accountant: m.get('accountant')! } : {}),
    digest: m.get('digest')!,
  };
}

const headIn = (pairs: { key: unknown; value: unknown }[]) => {
  const h = pairs.find((p) => String(p.key) === 'head');
  return h ? String(h.value) : null;
};

/** A ledger file is never created over an existing file. */
const ledgerExists = (path: string) => new InputError(`'${path}' already exists; a ledger is never opened over another file`, 'ledger');

/** A location without a ledger: how to make one. */
const noLedger = (label: string) => new InputError(`no ledger in ${label}: create it with 'pufferfish ledger init --ledger …'`, 'ledger');

/** A ledger that cannot be read as one: reported, never reset. */
export const corrupted = (where: string, why: string) =>
  new InputError(`'${where}' is not a readable ledger (${why}); it was left as it is — restore it from a copy, or start a new ledger elsewhere`, 'ledger');

// Doubles travel as their shortest decimal text and are cast by the database: a driver binds an
// integer-valued double (a scale of 1e19) as a 64-bit integer, which overflows.
const rowValues = (r: LedgerRow) => [
  r.seq,
  r.at,
  r.mechanism,
  String(r.scale),
  r.cost,
  r.count,
  r.coordinateScales,
  r.query,
  String(r.level),
  r.alpha === Infinity ? 'inf' : String(r.alpha),
  r.status,
  r.digest,
];

/** The INSERT of one release, its doubles cast from text (`real`: the database's double type). */
const insertRow = (table: string, real: string) =>
  `INSERT INTO ${table} VALUES ($1, $2, $3, CAST($4 AS ${real}), $5, $6, $7, $8, CAST($9 AS ${real}), $10, $11, $12)`;

/** Appends rows and moves the head, inside the caller's transaction. */
async function appendRows(
  run: (sql: string, values: unknown[]) => Promise<unknown>,
  tables: { meta: string; rows: string },
  real: string,
  rows: readonly LedgerRow[],
) {
  for (const r of rows) await run(insertRow(tables.rows, real), rowValues(r));
  const last = rows[rows.length - 1];
  if (last) await run(`UPDATE ${tables.meta} SET value = $1 WHERE key = 'head'`, [headOf(last.seq, last.digest)]);
}

/** How long a release waits for another process's ledger transaction before giving up. */
const LOCK_WAIT_MS = 120_000;

/**
 * A ledger in a DuckDB file. DuckDB lets one process at a time open a file (an operating-system
 * lock, released when the process ends, however it ends), so the transaction is exclusive
 * across processes; a process killed mid-transaction leaves the last commit (DuckDB's
 * write-ahead log). Chosen over SQLite because DuckDB is already the table engine: no second
 * native dependency.
 */
function duckdbStore(path: string): LedgerStore {
  const tables = { meta: 'ledger_meta', rows: 'ledger_releases' };
  const where = path;
  const open = async <T>(fn: (con: import('@duckdb/node-api').DuckDBConnection) => Promise<T>, file = path): Promise<T> => {
    const { DuckDBInstance } = duckdb();
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
      let inst: import('@duckdb/node-api').DuckDBInstance;
      try {
        // One thread: a ledger transaction is a few rows, and releases racing for the lock would
        // otherwise each start a pool of threads per attempt.
        inst = await DuckDBInstance.create(file, { threads: '1' });
      } catch (e) {
        const msg = (e as Error).message;
        const locked = /Could not set lock|Conflicting lock/i.test(msg);
        if (locked && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, wait / 2 + randomInt(wait + 1)));
          continue;
        }
        if (locked) throw new InputError(`'${where}' stayed locked by another process for ${LOCK_WAIT_MS / 1000} s`, 'ledger');
        throw corrupted(where, msg.split('\n')[0]);
      }
      const con = await inst.connect();
      try {
        return await fn(con);
      } finally {
        con.closeSync();
        inst.closeSync();
      }
    }
  };
  const readAll = async (con: import('@duckdb/node-api').DuckDBConnection): Promise<LedgerState> => {
    let meta: { key: unknown; value: unknown }[];
    let rows: Record<string, unknown>[];
    try {
      meta = (await con.runAndReadAll(`SELECT key, value FROM ${tables.meta}`)).getRowObjects() as { key: unknown; value: unknown }[];
      rows = (await con.runAndReadAll(`SELECT * FROM ${tables.rows} ORDER BY seq`)).getRowObjects();
    } catch (e) {
      throw corrupted(where, (e as Error).message.split('\n')[0]);
    }
    return { meta: metaOf(meta, where), rows: rows.map((r) => rowOf(r, where)), head: headIn(meta) };
  };
  // The new file alone must hold the ledger: a write-ahead log left beside it (a checkpoint that
  // failed, a full disk) would go with the temporary name, and an unreadable file is no ledger.
  const readBack = async (tmp: string) => {
    if (existsSync(`${tmp}.wal`)) throw new Error('the database was not written through (is the disk full?)');
    await open(readAll, tmp).catch(() => {
      throw new Error('the new file does not read back as a ledger (is the disk full?)');
    });
  };
  const mustExist = () => {
    if (!existsSync(path)) throw new InputError(`no ledger at '${path}': create it with 'pufferfish ledger init --ledger ${path} …'`, 'ledger');
    if (!statSync(path).isFile()) throw new InputError(`'${path}' is not a regular file`, 'ledger');
  };
  return {
    label: path,
    async create(meta) {
      if (existsSync(path)) throw ledgerExists(path);
      const dir = dirname(resolve(path));
      if (!existsSync(dir)) throw new InputError(`folder '${dirname(path)}' does not exist`, 'ledger');
      // Built beside it and linked into place: the name appears complete, and never over a file.
      const tmp = join(dir, `.${basename(path)}.${randomUUID()}.tmp`);
      try {
        await open(async (con) => {
          for (const sql of CREATE(tables, 'DOUBLE')) await con.run(sql);
          for (const [k, v] of metaEntries(meta)) await con.run(`INSERT INTO ${tables.meta} VALUES ($1, $2)`, [k, v]);
          await con.run(`INSERT INTO ${tables.meta} VALUES ('head', $1)`, [headOf(0, meta.digest)]);
        }, tmp);
        await readBack(tmp);
        linkSync(tmp, path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw ledgerExists(path);
        if (e instanceof InputError) throw e;
        throw new InputError(`could not write '${path}': ${(e as Error).message.split('\n')[0]}; nothing was created`, 'ledger');
      } finally {
        rmSync(tmp, { force: true });
        rmSync(`${tmp}.wal`, { force: true });
      }
    },
    async read() {
      mustExist();
      return open(readAll);
    },
    async exclusive(decide) {
      mustExist();
      return open(async (con) => {
        await con.run('BEGIN TRANSACTION');
        let decided: ReturnType<typeof decide>;
        try {
          decided = decide(await readAll(con));
        } catch (e) {
          await con.run('ROLLBACK');
          throw e;
        }
        try {
          await appendRows((sql, v) => con.run(sql, v as never), tables, 'DOUBLE', decided.append);
          await con.run('COMMIT');
        } catch (e) {
          // A failed COMMIT (a full disk) has already ended the transaction: its own error is the one to report.
          await con.run('ROLLBACK').catch(() => {});
          const msg = (e as Error).message.split('\n')[0];
          throw new InputError(`could not record the release in '${where}': ${msg}; nothing was recorded or shown`, 'ledger');
        }
        return decided.result;
      });
    },
    async markShown(seqs) {
      if (seqs.length === 0) return;
      await open(async (con) => {
        await con.run(`UPDATE ${tables.rows} SET status = 'shown' WHERE seq IN (${seqs.map(Number).join(', ')})`);
      });
    },
  };
}

/**
 * A ledger in PostgreSQL, for a team: `postgres://…/db` holds tables `pufferfish_ledger_meta` and
 * `pufferfish_ledger_releases` (a URL fragment `#NAME` keeps several ledgers in one database,
 * `pufferfish_ledger_NAME_…`). The transaction takes `LOCK TABLE … IN EXCLUSIVE MODE` on the
 * releases, so concurrent releases queue behind each other's budget check.
 */
function postgresStore(url: string): LedgerStore {
  const u = new URL(url);
  const name = decodeURIComponent(u.hash.slice(1));
  if (name && !/^[a-z][a-z0-9_]{0,40}$/.test(name)) throw new InputError(`ledger name '#${name}' must be lower-case letters, digits and _`, 'ledger');
  u.hash = '';
  const connectionString = u.toString();
  const prefix = `pufferfish_ledger${name ? `_${name}` : ''}`;
  const tables = { meta: `${prefix}_meta`, rows: `${prefix}_releases` };
  const label = `${sourceLabel(connectionString)}${name ? `#${name}` : ''}`;
  const connect = async () => {
    const { Client } = pg();
    const client = new Client({ connectionString, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
    } catch (e) {
      throw new InputError(`cannot reach the ledger's database ${label}: ${(e as Error).message.split('\n')[0]}`, 'ledger');
    }
    return client;
  };
  // A read without the lock runs in one snapshot (REPEATABLE READ), so the head and the releases it
  // reads belong to the same commit even while another process appends.
  const within = async <T>(fn: (c: import('pg').Client) => Promise<T>, begin = 'BEGIN'): Promise<T> => {
    const client = await connect();
    try {
      await client.query(begin);
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      await client.end();
    }
  };
  const readAll = async (c: import('pg').Client): Promise<LedgerState> => {
    let meta: { key: unknown; value: unknown }[];
    let rows: Record<string, unknown>[];
    try {
      meta = (await c.query(`SELECT key, value FROM ${tables.meta}`)).rows;
      rows = (await c.query(`SELECT * FROM ${tables.rows} ORDER BY seq`)).rows;
    } catch (e) {
      if ((e as { code?: string }).code === '42P01') throw noLedger(label);
      throw corrupted(label, (e as Error).message.split('\n')[0]);
    }
    return { meta: metaOf(meta, label), rows: rows.map((r) => rowOf(r, label)), head: headIn(meta) };
  };
  return {
    label,
    async create(meta) {
      await within(async (c) => {
        try {
          for (const sql of CREATE(tables, 'double precision')) await c.query(sql);
        } catch (e) {
          if ((e as { code?: string }).code === '42P07') throw new InputError(`a ledger already exists in ${label}; name another with #NAME`, 'ledger');
          throw e;
        }
        for (const [k, v] of metaEntries(meta)) await c.query(`INSERT INTO ${tables.meta} VALUES ($1, $2)`, [k, v]);
        await c.query(`INSERT INTO ${tables.meta} VALUES ('head', $1)`, [headOf(0, meta.digest)]);
      });
    },
    read: () => within(readAll, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'),
    exclusive: (decide) =>
      within(async (c) => {
        try {
          await c.query(`LOCK TABLE ${tables.rows} IN EXCLUSIVE MODE`);
        } catch (e) {
          if ((e as { code?: string }).code === '42P01') throw noLedger(label);
          throw e;
        }
        const { append, result } = decide(await readAll(c));
        await appendRows((sql, v) => c.query(sql, v), tables, 'double precision', append);
        return result;
      }),
    async markShown(seqs) {
      if (seqs.length === 0) return;
      await within(async (c) => {
        await c.query(`UPDATE ${tables.rows} SET status = 'shown' WHERE seq = ANY($1::int[])`, [seqs.map(Number)]);
      });
    },
  };
}

/**
 * The store a `--ledger` value names: a PostgreSQL URL, else a DuckDB file.
 * @example ledgerStore('postgres://curator:secret@db.example/stats#year').label // 'postgres://db.example/stats#year' (no credentials)
 */
export function ledgerStore(location: string): LedgerStore {
  if (location.trim() === '') throw new InputError('needs a file path or a postgres:// URL', 'ledger');
  if (/^postgres(ql)?:\/\//i.test(location)) {
    try {
      return postgresStore(location);
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new InputError('is not a valid postgres:// URL', 'ledger');
    }
  }
  return duckdbStore(location);
}
