import { InputError } from '../errors.js';
import type { MarkovQuery } from '../markov/chain.js';
import { countsFromRecords, sequenceColumns, type SequenceQuery, type TransitionCounts, type WindowCounts } from './chainCounts.js';
import { short, type Engine } from './engines/engine.js';
import { ident, type TableSource } from './table.js';

/**
 * The transition counts of a sequence table by one statement pushed to the engine (DuckDB for
 * files, PostgreSQL for databases): a window over the order within each group pairs each state
 * with the one before it. Sequences are the groups (`--group-by`; one sequence without it).
 * Duplicate order values within a group, sequences of one row and tables with fewer than two
 * states are refused, naming the flag; rows without a state or order value are dropped and
 * counted, and no transition is counted across them.
 */
export async function transitionCounts(source: TableSource, q: SequenceQuery): Promise<TransitionCounts> {
  const engine =
    source.kind === 'postgres'
      ? await (await import('./engines/postgres.js')).postgresEngine(source)
      : await (await import('./engines/duckdb.js')).duckEngine(source, [q.sequence, ...(q.groupBy ? [q.groupBy] : [])], false);
  try {
    const cols = await engine.columns();
    sequenceColumns(
      cols.map((c) => c.name),
      q,
    );
    const g = q.groupBy ? `CAST(${ident(q.groupBy)} AS VARCHAR)` : `'all'`;
    const base = `SELECT ${g} AS g, ${ident(q.orderBy)} AS o, CAST(${ident(q.sequence)} AS VARCHAR) AS x FROM ${engine.relation}`;
    // Steps are the rows with an order and a group value, in order; a step without a state breaks
    // the sequence there (no transition is counted across it); the states' rows are what is kept.
    const sql = `WITH base AS (${base}), placed AS (SELECT * FROM base WHERE o IS NOT NULL AND g IS NOT NULL),
      kept AS (SELECT * FROM placed WHERE x IS NOT NULL),
      steps AS (SELECT g, x, lag(x) OVER (PARTITION BY g ORDER BY o) AS prev, row_number() OVER (PARTITION BY g ORDER BY o) AS pn FROM placed),
      w AS (SELECT g, x, row_number() OVER (PARTITION BY g ORDER BY o) AS rn FROM kept)
      SELECT 'T' AS k, prev AS a, x AS b, count(*) AS n, NULL AS h FROM steps WHERE pn > 1 AND x IS NOT NULL AND prev IS NOT NULL GROUP BY prev, x
      UNION ALL SELECT 'G', prev, x, count(*), g FROM steps WHERE pn > 1 AND x IS NOT NULL AND prev IS NOT NULL GROUP BY g, prev, x
      UNION ALL SELECT 'F', NULL, x, count(*), NULL FROM w WHERE rn = 1 GROUP BY x
      UNION ALL SELECT 'L', g, NULL, count(*), NULL FROM w GROUP BY g
      UNION ALL SELECT 'D', g, CAST(o AS VARCHAR), count(*), NULL FROM placed GROUP BY g, o HAVING count(*) > 1
      UNION ALL SELECT 'R', NULL, NULL, count(*), NULL FROM base
      UNION ALL SELECT 'K', NULL, NULL, count(*), NULL FROM kept`;
    let rows: Record<string, unknown>[];
    try {
      rows = await engine.rows(sql);
    } catch (e) {
      throw new InputError(`the transition count failed: ${short((e as Error).message)}`, 'data');
    }
    return countsFromRecords(rows, q);
  } finally {
    await engine.close();
  }
}

/** One sequence's own query value (a number, or the state histogram in the order of the states) and its length. */
export interface SequenceValue {
  group: string;
  length: number;
  value: number | number[];
}

/**
 * The query's value on each sequence of the table (its group), by one aggregating statement: what
 * `release --out` privatizes. Rows without a state or order value are left out, as for the counts.
 */
export async function sequenceValues(source: TableSource, q: SequenceQuery, query: MarkovQuery): Promise<{ states: string[]; values: SequenceValue[] }> {
  const engine =
    source.kind === 'postgres'
      ? await (await import('./engines/postgres.js')).postgresEngine(source)
      : await (await import('./engines/duckdb.js')).duckEngine(source, [q.sequence, ...(q.groupBy ? [q.groupBy] : [])], false);
  try {
    const g = q.groupBy ? `CAST(${ident(q.groupBy)} AS VARCHAR)` : `'all'`;
    const kept = `SELECT ${g} AS g, CAST(${ident(q.sequence)} AS VARCHAR) AS x FROM ${engine.relation} WHERE ${ident(q.orderBy)} IS NOT NULL AND ${ident(q.sequence)} IS NOT NULL`;
    // The states as the chain has them (sorted, as `transitionCounts` sorts them), so histogram coordinates line up.
    const states = (await engine.rows(`SELECT DISTINCT x FROM (${kept}) AS k WHERE g IS NOT NULL`)).map((r) => String(r.x)).sort();
    const per = 'histogram' in query ? states.map((s, i) => `count(*) FILTER (WHERE x = ${literal(s)}) AS h${i}`) : [];
    const value =
      'count' in query
        ? `count(*) FILTER (WHERE x = ${literal(query.count)})`
        : 'sum' in query
          ? `sum(CASE ${Object.entries(query.sum)
              .map(([s, v]) => `WHEN x = ${literal(s)} THEN ${v}`)
              .join(' ')} ELSE 0 END)`
          : '0';
    const sql = `WITH kept AS (${kept})
      SELECT g, count(*) AS n, ${value} AS v${per.length ? `, ${per.join(', ')}` : ''} FROM kept WHERE g IS NOT NULL GROUP BY g ORDER BY g`;
    const rows = await engine.rows(sql);
    return {
      states,
      values: rows.map((r) => ({
        group: String(r.g),
        length: Number(r.n),
        value: 'histogram' in query ? states.map((_, i) => Number(r[`h${i}`])) : Number(r.v),
      })),
    };
  } finally {
    await engine.close();
  }
}

/**
 * The first `length` values of the order column (sorted, as the chain's steps are), as text, from
 * the row whose order value is `start` on (the whole column without): the dates calendar windows
 * are checked against. One sequence only (no groups).
 */
export async function orderValues(source: TableSource, q: SequenceQuery, length: number, start?: string): Promise<string[]> {
  return onSeries(source, q, start, async (engine, o) => {
    const rows = await engine.rows(`SELECT CAST(${o} AS VARCHAR) AS d FROM ${engine.relation} WHERE ${fromStart(o, start)} ORDER BY ${o} LIMIT ${length + 1}`);
    return rows.map((r) => String(r.d));
  });
}

/**
 * Runs `read` on one series' table (its columns checked first, as the transition count checks
 * them): an engine's error is the flag's — `--start` where its value is not one of the order
 * column's type, the table otherwise — never an internal error.
 */
async function onSeries<T>(source: TableSource, q: SequenceQuery, start: string | undefined, read: (engine: Engine, o: string) => Promise<T>): Promise<T> {
  const engine =
    source.kind === 'postgres'
      ? await (await import('./engines/postgres.js')).postgresEngine(source)
      : await (await import('./engines/duckdb.js')).duckEngine(source, [q.sequence], false);
  try {
    sequenceColumns(
      (await engine.columns()).map((c) => c.name),
      q,
    );
    try {
      return await read(engine, ident(q.orderBy));
    } catch (e) {
      if (e instanceof InputError) throw e;
      const why = short((e as Error).message);
      if (start !== undefined && /conver|invalid|pars|out of range|format/i.test(why))
        throw new InputError(`'${start}' is not a value of the order column '${q.orderBy}': ${why}`, '--start');
      throw new InputError(`reading the series failed: ${why}`, 'data');
    }
  } finally {
    await engine.close();
  }
}

/**
 * The rows of a series that starts at order value `start` (all rows with an order value without
 * one). The text is a literal the engine reads in the order column's own type (a date, a number).
 */
const fromStart = (o: string, start: string | undefined) => `${o} IS NOT NULL${start === undefined ? '' : ` AND ${o} >= ${literal(start)}`}`;
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** A whole number as an SQL literal (the values are checked whole before a query is built). */
function wholeLiteral(v: number): string {
  if (!Number.isSafeInteger(v)) throw new Error(`a window value must be a whole number, got ${v}`);
  return String(v);
}

/**
 * Each window's value — the count of one state, or the sum of each step's state's value (`values`,
 * in the order of `states`) — and its steps seen (rows with an order value, in order), one
 * aggregate in the engine (one sequence: no groups); a window whose steps are fewer than its
 * length is not closed (`closedWindows` refuses its release). Steps in a state not among `states`
 * are counted apart.
 * @example (await windowCounts({ kind: 'csv', location: 'test/fixtures/weather/seattle-weather.csv.gz' }, { sequence: 'weather', orderBy: 'date' }, ['rain', 'sun'], [1, 0], [31])).counts.length // 1
 */
export async function windowCounts(
  source: TableSource,
  q: SequenceQuery,
  states: readonly string[],
  values: readonly number[],
  lengths: readonly number[],
  start?: string,
): Promise<WindowCounts> {
  return onSeries(source, q, start, async (engine, o) => {
    // Window w holds the steps up to the sum of the first w + 1 lengths.
    const ends = lengths.map((_, w) => lengths.slice(0, w + 1).reduce((a, b) => a + b, 0));
    const end = ends[ends.length - 1];
    const cases = ends.map((e, w) => `WHEN rn <= ${e} THEN ${w}`).join(' ');
    const steps = `SELECT CAST(${ident(q.sequence)} AS VARCHAR) AS x, row_number() OVER (ORDER BY ${o}) AS rn FROM ${engine.relation} WHERE ${fromStart(o, start)}`;
    // The steps in any other state than the chain's, and the first of them, per window.
    const other = `x IS NOT NULL AND x NOT IN (${states.map(literal).join(', ')})`;
    // Each state's whole-number value (a count: 1 for its state), summed exactly in the engine's integers.
    const valued = states.map((x, i) => [x, values[i]] as const).filter(([, v]) => v !== 0);
    const value = valued.length
      ? `CAST(sum(CASE ${valued.map(([x, v]) => `WHEN x = ${literal(x)} THEN ${wholeLiteral(v)}`).join(' ')} ELSE 0 END) AS BIGINT)`
      : '0';
    const sql = `SELECT CASE ${cases} END AS w, ${value} AS c, count(*) AS n, count(*) FILTER (WHERE x IS NULL) AS u, count(*) FILTER (WHERE ${other}) AS f, min(x) FILTER (WHERE ${other}) AS fx FROM (${steps}) AS s WHERE rn <= ${end} GROUP BY 1 ORDER BY 1`;
    const counts = new Array<number>(lengths.length).fill(0);
    const seen = new Array<number>(lengths.length).fill(0);
    const unknown = new Array<number>(lengths.length).fill(0);
    const foreign = { steps: new Array<number>(lengths.length).fill(0), first: new Array<string | null>(lengths.length).fill(null) };
    for (const r of await engine.rows(sql)) {
      counts[Number(r.w)] = Number(r.c);
      seen[Number(r.w)] = Number(r.n);
      unknown[Number(r.w)] = Number(r.u);
      foreign.steps[Number(r.w)] = Number(r.f);
      foreign.first[Number(r.w)] = r.fx === null || r.fx === undefined ? null : String(r.fx);
    }
    return { counts, steps: seen, unknown, foreign };
  });
}
