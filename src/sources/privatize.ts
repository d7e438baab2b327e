import { randomUUID } from 'node:crypto';
import { checkKeys, checkScenarioShape, checkShape, OBJECT } from '../shapes.js';
import { extname } from 'node:path';
import type { CalibrationSettings } from '../calibrate/rules.js';
import type { AnyScenario } from '../distribution/lawKind.js';
import { InputError, unknownColumn, columnTwice } from '../errors.js';
import { predicateColumns } from './predicate.js';
import { checkOutput, writeAtomically } from '../io/atomicWrite.js';
import { duckdb } from './engines/drivers.js';
import { duckRelation, ident, literal, type TableSource } from './table.js';
import { releaseColumn, type ReleaseOptions } from '../release/release.js';

/** Output formats by extension; anything else is refused. */
const FORMATS: Record<string, string> = {
  '.csv': '(FORMAT csv, HEADER, USE_TMP_FILE false)',
  '.tsv': "(FORMAT csv, HEADER, DELIMITER '\t', USE_TMP_FILE false)",
  '.parquet': '(FORMAT parquet, USE_TMP_FILE false)',
  '.jsonl': '(FORMAT json, USE_TMP_FILE false)',
  '.ndjson': '(FORMAT json, USE_TMP_FILE false)',
};

/** How a table is privatized: the release options, the public columns kept, and what may never be written. */
export interface PrivatizeOptions extends Omit<ReleaseOptions, 'count'> {
  /** Public columns copied unchanged (read as text, so their values are never re-typed). */
  keep?: string[];
  /** Secret predicates by name: every column they read is as secret as a secret column. */
  predicates?: Readonly<Record<string, string>>;
  /** The secret column: never written, nor privatized as a query. A kept column needs the secret named (this or `predicates`). */
  secretColumn?: string;
  /** Runs after the draws and before the file appears (a ledger records the release here, or refuses it). */
  beforeWrite?: (r: { scale: number }) => Promise<void>;
}

/** Every option `privatizeTable` reads. */
const PRIVATIZE_KEYS = [
  'truncate',
  'random',
  'perRelease',
  'allowNoNoise',
  'onProgress',
  'delta',
  'alphas',
  'confidence',
  'scale',
  'keep',
  'predicates',
  'secretColumn',
  'beforeWrite',
] as const satisfies readonly (keyof PrivatizeOptions)[];

/**
 * Writes the privatized `query` column(s) of a table, row by row (`releaseColumn`: one calibration
 * on the scenario — the columns' joint law for several — and independent noise per row; missing
 * values stay missing), plus only the
 * columns named in `keep`: every other column may be correlated with the secret, so none is
 * published unless asked for, and the secret column (`opts.secretColumn`, which a kept column needs named) never is. The file is written to a unique
 * temporary name beside `out` and renamed into place; `out` must not be the input.
 * @example (await privatizeTable({ kind: 'csv', location: 'examples/heart.csv' }, 'oldpeak', builtinScenario('heart'), { mechanism: 'laplace', method: 'theorem', alpha: 2, epsilon: 1 }, `${scratch}/heart-private.csv`)).rows // 303 (scratch: a folder of yours)
 */
export async function privatizeTable(
  source: TableSource,
  query: string | readonly string[],
  scenario: AnyScenario,
  settings: CalibrationSettings & { coordinateScales?: readonly number[] },
  out: string,
  opts: PrivatizeOptions = {},
) {
  checkShape(OBJECT, source, 'source');
  checkScenarioShape(scenario);
  checkShape(OBJECT, settings, 'settings');
  checkShape(OBJECT, opts, 'options');
  // A field it does not read (an older `forbidden`) would leave a column unguarded: refused by name.
  checkKeys(opts, PRIVATIZE_KEYS, 'options');
  const queries = typeof query === 'string' ? [query] : [...query];
  if (source.kind === 'postgres') throw new InputError('--out writes a privatized copy of a file source; export the table to a file first', 'out');
  const format = FORMATS[extname(out).toLowerCase()];
  if (!format) throw new InputError(`unknown output format '${extname(out) || '(no extension)'}': use ${Object.keys(FORMATS).join(', ')}`, 'out');
  checkOutput(out, 'out', [{ path: source.location, flag: '--data' }]);
  const keep = opts.keep ?? [];
  const secret = opts.secretColumn;
  // Without the secret's name a kept column could be the secret itself, published as it is.
  if (keep.length && secret === undefined && Object.keys(opts.predicates ?? {}).length === 0)
    throw new InputError(
      'keeps columns but names no secret (--secret-column or --secret; in the library secretColumn or predicates): a kept column could be the secret itself',
      'keep',
    );
  for (const k of keep) {
    if (queries.includes(k)) throw new InputError(`'${k}' is a privatized column; --keep names other, public columns`, 'keep');
    if (k === secret) throw new InputError(`'${k}' is the secret column and is never written`, 'keep');
    for (const [name, text] of Object.entries(opts.predicates ?? {})) {
      const read = predicateColumns(text);
      if (read === 'any') throw new InputError(`the predicate of secret '${name}' may read any column, so no column is kept`, 'keep');
      if (read.has(k.toLowerCase()))
        throw new InputError(`'${k}' is read by the predicate of secret '${name}', so it reveals the secret and is never written`, 'keep');
    }
  }
  if (new Set(keep).size !== keep.length) throw columnTwice('keep');
  const inst = await duckdb().DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  try {
    // Names are checked against the file's own columns before any is used in a query.
    const cols = (await con.runAndReadAll(`DESCRIBE SELECT * FROM ${duckRelation(source)}`)).getRowObjects().map((r) => String(r.column_name));
    for (const k of [...queries, ...keep]) if (!cols.includes(k)) throw unknownColumn(k, cols, queries.includes(k) ? 'query' : 'keep');
    // The secret is one of the table's columns, named exactly: another name would guard nothing.
    if (secret !== undefined && !cols.includes(secret)) throw unknownColumn(secret, cols, 'secretColumn');
    if (keep.length) await refuseKeptReads(con, source, cols, keep, opts.predicates ?? {});
    const rel = duckRelation(source, [...queries, ...keep]);
    const kept = keep.map(ident).join(', ');
    const xs = queries.map((q, i) => `TRY_CAST(${ident(q)} AS DOUBLE) AS __x${i}`).join(', ');
    await con.run(`CREATE TABLE src AS SELECT row_number() OVER () AS __rid, ${xs}${keep.length ? `, ${kept}` : ''} FROM ${rel}`);
    const read = (await con.runAndReadAll(`SELECT ${queries.map((_, i) => `__x${i}`).join(', ')} FROM src ORDER BY __rid`)).getRows();
    const num = (v: unknown) => (v === null ? null : Number(v));
    // One column: the scalar release; several: one vector release per row (calibrated jointly).
    const r = releaseColumn(scenario, settings, queries.length > 1 ? read.map((row) => row.map(num)) : read.map((row) => num(row[0])), opts);
    // A truncated release's interval is not symmetric and depends on the row's released value: written beside it.
    const interval = 'interval' in r && r.halfWidth === null ? r.interval : null;
    const bounds = interval ? intervalColumns(queries[0], [...queries, ...keep]) : null;
    const extra = bounds ? ', lo DOUBLE, hi DOUBLE' : '';
    await con.run(`CREATE TABLE noisy (__rid BIGINT, ${queries.map((_, i) => `v${i} DOUBLE`).join(', ')}${extra})`);
    const app = await con.createAppender('noisy');
    r.values.forEach((v, i) => {
      app.appendBigInt(BigInt(i + 1));
      const cells: (number | null)[] = v === null ? queries.map(() => null) : Array.isArray(v) ? [...v] : [v];
      if (interval) cells.push(...(v === null ? [null, null] : interval(v as number)));
      for (const x of cells) {
        if (x === null) app.appendNull();
        else app.appendDouble(x);
      }
      app.endRow();
    });
    app.closeSync();
    await opts.beforeWrite?.(r);
    await writeAtomically(out, 'out', (tmp) =>
      con
        .run(
          `COPY (SELECT ${queries.map((q, i) => `noisy.v${i} AS ${ident(q)}`).join(', ')}${bounds ? `, noisy.lo AS ${ident(bounds[0])}, noisy.hi AS ${ident(bounds[1])}` : ''}${keep.length ? `, ${keep.map((k) => `src.${ident(k)}`).join(', ')}` : ''} FROM src JOIN noisy USING (__rid) ORDER BY __rid) TO ${literal(tmp)} ${format}`,
        )
        .then(() => undefined),
    );
    return { ...r, rows: read.length, kept: keep, values: undefined, ...(bounds ? { intervalColumns: bounds } : {}) };
  } finally {
    con.closeSync();
    inst.closeSync();
  }
}

/** The names of a truncated column's interval ends (`chol_lo`, `chol_hi`), refused where a written column has one. */
function intervalColumns(query: string, written: readonly string[]): [string, string] {
  const names: [string, string] = [`${query}_lo`, `${query}_hi`];
  // The engine's column names are case-insensitive: a kept 'X_lo' would clash with 'x_lo'.
  const taken = names.find((n) => written.some((w) => w.toLowerCase() === n.toLowerCase()));
  if (taken) throw new InputError(`'${taken}' is where the truncated release's interval is written; keep another column, or rename it`, 'keep');
  return names;
}

/**
 * The engine's own word on `--keep`, beside the scan (`predicateColumns`): each predicate must bind
 * on the table without the kept columns (typed as for the histograms), under a name no predicate
 * can know. A predicate that reads a kept column by any spelling fails to bind there, and is refused.
 */
export async function refuseKeptReads(
  con: import('@duckdb/node-api').DuckDBConnection,
  source: TableSource,
  cols: readonly string[],
  keep: readonly string[],
  predicates: Record<string, string>,
): Promise<void> {
  const rest = cols.filter((c) => !keep.includes(c));
  const alias = `__pf_${randomUUID().replace(/-/g, '')}`;
  const without = `(SELECT ${rest.length ? rest.map(ident).join(', ') : '1 AS __none'} FROM ${duckRelation(source, [], true)}) AS ${alias}`;
  for (const [name, text] of Object.entries(predicates)) {
    try {
      await con.run(`EXPLAIN SELECT 1 FROM ${without} WHERE (${text})`);
    } catch {
      throw new InputError(`the predicate of secret '${name}' reads a column of --keep (${keep.join(', ')}), so none of them is kept`, 'keep');
    }
  }
}
