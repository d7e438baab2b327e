import { InputError } from '../errors.js';
import { isDecimal } from '../numerics/float.js';
import type { MarkovQuery } from '../markov/chain.js';
import { short } from './engines/engine.js';
import { gamma, seededUniform, type PriorClass } from './priors.js';
import { ident, type TableSource } from './table.js';

/** What a sequence table is read as: the state column, its order, and independent sequences. */
export interface SequenceQuery {
  sequence: string;
  orderBy: string;
  groupBy?: string;
}

/** The transition counts of a sequence table, rows and columns in the order of `states`. */
export interface TransitionCounts {
  states: string[];
  counts: number[][];
  /** How many sequences start in each state. */
  first: number[];
  sequences: number;
  longest: number;
  rows: number;
  /** Rows without a state or an order value: never a transition into or out of them. */
  dropped: number;
  /** Each sequence's own transition counts (same order), for resampling whole sequences. */
  bySequence: number[][][];
}

const num = (v: unknown) => Number(v);
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));

/**
 * The transition counts of a sequence table by one statement pushed to the engine (DuckDB for
 * files, PostgreSQL for databases): a window over the order within each group pairs each state
 * with the one before it. Sequences are the groups (`--group-by`; one sequence without it).
 * Duplicate order values within a group, sequences of one row and tables with fewer than two
 * states are refused, naming the flag; rows without a state or order value are dropped and
 * counted, and no transition is counted across them.
 */
export async function transitionCounts(source: TableSource, q: SequenceQuery): Promise<TransitionCounts> {
  const columns = [q.sequence, q.orderBy, ...(q.groupBy ? [q.groupBy] : [])];
  const engine =
    source.kind === 'postgres'
      ? await (await import('./engines/postgres.js')).postgresEngine(source)
      : await (await import('./engines/duckdb.js')).duckEngine(source, [q.sequence, ...(q.groupBy ? [q.groupBy] : [])], false);
  try {
    const cols = await engine.columns();
    for (const [name, flag] of [[q.sequence, 'sequence'], [q.orderBy, 'orderBy'], ...(q.groupBy ? [[q.groupBy, 'groupBy']] : [])] as const)
      if (!cols.some((c) => c.name === name)) throw new InputError(`unknown column '${name}' (columns: ${cols.map((c) => c.name).join(', ')})`, flag);
    if (new Set(columns).size !== columns.length) throw new InputError('names the same column as --sequence or --order-by', q.groupBy ? 'groupBy' : 'orderBy');
    const g = q.groupBy ? `CAST(${ident(q.groupBy)} AS VARCHAR)` : `'all'`;
    const base = `SELECT ${g} AS g, ${ident(q.orderBy)} AS o, CAST(${ident(q.sequence)} AS VARCHAR) AS x FROM ${engine.relation}`;
    const sql = `WITH base AS (${base}), kept AS (SELECT * FROM base WHERE o IS NOT NULL AND x IS NOT NULL AND g IS NOT NULL),
      w AS (SELECT g, o, x, lag(x) OVER (PARTITION BY g ORDER BY o) AS prev, lag(o) OVER (PARTITION BY g ORDER BY o) AS po,
                   row_number() OVER (PARTITION BY g ORDER BY o) AS rn FROM kept)
      SELECT 'T' AS k, prev AS a, x AS b, count(*) AS n, NULL AS h FROM w WHERE rn > 1 GROUP BY prev, x
      UNION ALL SELECT 'G', prev, x, count(*), g FROM w WHERE rn > 1 GROUP BY g, prev, x
      UNION ALL SELECT 'F', NULL, x, count(*), NULL FROM w WHERE rn = 1 GROUP BY x
      UNION ALL SELECT 'L', g, NULL, count(*), NULL FROM w GROUP BY g
      UNION ALL SELECT 'D', g, CAST(o AS VARCHAR), count(*), NULL FROM kept GROUP BY g, o HAVING count(*) > 1
      UNION ALL SELECT 'R', NULL, NULL, count(*), NULL FROM base
      UNION ALL SELECT 'K', NULL, NULL, count(*), NULL FROM kept`;
    let rows: Record<string, unknown>[];
    try {
      rows = await engine.rows(sql);
    } catch (e) {
      throw new InputError(`the transition count failed: ${short((e as Error).message)}`, 'data');
    }
    return countsFrom(rows, q);
  } finally {
    await engine.close();
  }
}

function countsFrom(rows: Record<string, unknown>[], q: SequenceQuery): TransitionCounts {
  const of = (k: string) => rows.filter((r) => r.k === k);
  const dup = of('D')[0];
  if (dup)
    throw new InputError(
      `order value ${text(dup.b)} appears ${num(dup.n)} times${q.groupBy ? ` in group '${text(dup.a)}'` : ''}: each step of a sequence needs its own order value`,
      'orderBy',
    );
  const lengths = of('L').map((r) => num(r.n));
  if (!lengths.length) throw new InputError('has no row with a state and an order value', 'sequence');
  const short1 = of('L').find((r) => num(r.n) < 2);
  if (short1)
    throw new InputError(
      `sequence${q.groupBy ? ` '${text(short1.a)}'` : ''} has one row: a chain needs at least one transition`,
      q.groupBy ? 'groupBy' : 'sequence',
    );
  const states = [...new Set([...of('T').flatMap((r) => [text(r.a)!, text(r.b)!]), ...of('F').map((r) => text(r.b)!)])].sort();
  if (states.length < 2) throw new InputError(`has ${states.length} state(s); a secret pair needs two`, 'sequence');
  const at = new Map(states.map((s, i) => [s, i]));
  const counts = states.map(() => states.map(() => 0));
  for (const r of of('T')) counts[at.get(text(r.a)!)!][at.get(text(r.b)!)!] += num(r.n);
  const first = states.map(() => 0);
  for (const r of of('F')) first[at.get(text(r.b)!)!] += num(r.n);
  const total = num(of('R')[0]?.n ?? 0);
  // Sequences in a fixed order (by name), so a seeded resample is reproducible whatever order the engine returns.
  const groups = [...new Set(of('L').map((r) => text(r.a)!))].sort();
  const gi = new Map(groups.map((g, i) => [g, i]));
  const bySequence = groups.map(() => states.map(() => states.map(() => 0)));
  for (const r of of('G')) bySequence[gi.get(text(r.h)!)!][at.get(text(r.a)!)!][at.get(text(r.b)!)!] += num(r.n);
  return { states, counts, first, sequences: lengths.length, longest: Math.max(...lengths), rows: total, dropped: total - num(of('K')[0]?.n ?? 0), bySequence };
}

/** Transition probabilities from counts; a state never followed by another has no row to estimate. */
export function transitionMatrix(t: TransitionCounts): number[][] {
  return t.counts.map((row, i) => {
    const n = row.reduce((a, b) => a + b, 0);
    if (n === 0)
      throw new InputError(`state '${t.states[i]}' is never followed by another (it only ends sequences): its transition row is unknown`, 'sequence');
    return row.map((c) => c / n);
  });
}

/**
 * The chain class of a prior-class flag: the estimated chain, plus N seeded draws —
 * `dirichlet:N[:C]` draws each row from Dirichlet(counts + C); `bootstrap:N` resamples the
 * sequences (`--group-by`) with replacement and estimates the chain from the resample's pooled
 * counts, a state the resample never leaves keeping its estimated row.
 */
export function chainClass(t: TransitionCounts, cls: PriorClass | undefined): { name: string; transition: number[][] }[] {
  const estimated = transitionMatrix(t);
  const out = [{ name: 'estimated', transition: estimated }];
  if (!cls || cls.kind === 'empirical') return out;
  const u = seededUniform(cls.seed ?? 0);
  if (cls.kind === 'bootstrap') {
    const m = t.bySequence.length;
    if (m < 2) throw new InputError('bootstrap:N resamples whole sequences: give --group-by with at least two sequences (or use dirichlet:N)', 'prior');
    for (let d = 1; d <= (cls.draws ?? 0); d++) {
      const pooled = t.states.map(() => t.states.map(() => 0));
      for (let j = 0; j < m; j++) {
        const seq = t.bySequence[Math.min(m - 1, Math.floor(u() * m))];
        seq.forEach((row, a) => {
          row.forEach((c, b) => {
            pooled[a][b] += c;
          });
        });
      }
      out.push({
        name: `bootstrap#${d}`,
        transition: pooled.map((row, a) => {
          const n = row.reduce((x, y) => x + y, 0);
          return n === 0 ? estimated[a] : row.map((c) => c / n);
        }),
      });
    }
    return out;
  }
  if (cls.kind !== 'dirichlet') throw new InputError(`takes empirical, bootstrap:N or dirichlet:N[:C] for a sequence, got ${cls.kind}`, 'prior');
  for (let d = 1; d <= (cls.draws ?? 0); d++)
    out.push({
      name: `dirichlet#${d}`,
      transition: t.counts.map((row) => {
        const g = row.map((c) => gamma(c + (cls.concentration ?? 1), u));
        const s = g.reduce((a, b) => a + b, 0);
        return g.map((x) => x / s);
      }),
    });
  return out;
}

/**
 * `--query count:STATE | sum:STATE=V,STATE=V,… | histogram` for a sequence.
 * @example parseSequenceQuery('sum:rain=1,snow=2') // { sum: { rain: 1, snow: 2 } }
 */
export function parseSequenceQuery(textQuery: string): MarkovQuery {
  const t = textQuery.trim();
  if (t === 'histogram') return { histogram: true };
  const m = /^(count|sum):(.+)$/.exec(t);
  if (!m) throw new InputError(`must be count:STATE, sum:STATE=V,STATE=V,… or histogram, got '${textQuery}'`, 'query');
  if (m[1] === 'count') return { count: m[2] };
  const sum: Record<string, number> = Object.create(null);
  for (const part of m[2].split(',')) {
    const i = part.lastIndexOf('=');
    const v = Number(part.slice(i + 1));
    if (i <= 0 || !isDecimal(part.slice(i + 1)) || !Number.isFinite(v)) throw new InputError(`'${part}' is not STATE=VALUE with a decimal value`, 'query');
    Object.defineProperty(sum, part.slice(0, i), { value: v, enumerable: true, writable: true, configurable: true });
  }
  return { sum };
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
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
  try {
    const g = q.groupBy ? `CAST(${ident(q.groupBy)} AS VARCHAR)` : `'all'`;
    const kept = `SELECT ${g} AS g, CAST(${ident(q.sequence)} AS VARCHAR) AS x FROM ${engine.relation} WHERE ${ident(q.orderBy)} IS NOT NULL AND ${ident(q.sequence)} IS NOT NULL`;
    // The states as the chain has them (sorted, as `transitionCounts` sorts them), so histogram coordinates line up.
    const states = (await engine.rows(`SELECT DISTINCT x FROM (${kept}) AS k WHERE g IS NOT NULL`)).map((r) => String(r.x)).sort();
    const per = 'histogram' in query ? states.map((s, i) => `count(*) FILTER (WHERE x = ${lit(s)}) AS h${i}`) : [];
    const value =
      'count' in query
        ? `count(*) FILTER (WHERE x = ${lit(query.count)})`
        : 'sum' in query
          ? `sum(CASE ${Object.entries(query.sum)
              .map(([s, v]) => `WHEN x = ${lit(s)} THEN ${v}`)
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
