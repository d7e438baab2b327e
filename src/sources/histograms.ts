import { InputError, unknownColumn, columnTwice } from '../errors.js';
import { secretText, Tally, PointAtoms } from './csvText.js';
import { ident, literal, type TableSource } from './table.js';
import { short } from './engines/engine.js';
import type { SecretQuery, TableHistograms, UnitBootstrap } from './histogramTypes.js';
import { checkPredicate, predicateColumns } from './predicate.js';
import { rowContribution, unitTotal, withUnitTotals } from './statistic.js';
import { checkDrawnSize, md5Hex, unitWeightSql } from './unitWeights.js';
import type { Engine } from './engines/engine.js';

export type { SecretQuery, TableHistograms } from './histogramTypes.js';

/**
 * The engine of a source: DuckDB for files (`textColumns` read as text, `typed` when SQL
 * predicates need the other columns' types; `numericColumns`, text columns a predicate compares
 * as numbers, seen as their text's number), PostgreSQL for databases. Each driver is loaded
 * when a source needs it.
 */
export async function openEngine(source: TableSource, textColumns: string[], typed: boolean, numericColumns: string[] = []): Promise<Engine> {
  return source.kind === 'postgres'
    ? (await import('./engines/postgres.js')).postgresEngine(source)
    : (await import('./engines/duckdb.js')).duckEngine(source, textColumns, typed, numericColumns);
}

/**
 * A unit's public groups (their texts, null where missing) as one key, unambiguous whatever the
 * texts (each a JSON literal): a missing group is a group of its own, so its units stay in the joint laws.
 * @example jointKey(['sex', 'dept'], ['1', null]) // 'sex="1", dept=null'
 */
export function jointKey(givens: readonly string[], texts: readonly (string | null)[]): string {
  return givens.map((g, i) => `${g}=${JSON.stringify(texts[i])}`).join(', ');
}

/**
 * The conditional histograms of `query` under each secret, by one aggregating query pushed to
 * the engine (DuckDB for files, PostgreSQL for databases): rows never pass through JavaScript
 * one by one. Rows with a missing or non-numeric query value, a missing secret or a missing
 * public value are dropped and counted.
 * @example (await tableHistograms({ kind: 'csv', location: 'examples/heart.csv' }, { query: 'oldpeak', secretColumn: 'fbs' })).rows // 303
 */
export async function tableHistograms(source: TableSource, q: SecretQuery): Promise<TableHistograms> {
  // Query, secret and public columns are read as text and cast exactly (DuckDB files). A
  // statistic's contribution (docs/math.md §18) replaces the query column: a count has none.
  // Several statistics (a source ledger's, docs/math.md §20): one unit's vector of contributions.
  const cs = q.contributions ?? (q.contribution ? [q.contribution] : undefined);
  const c = cs?.[0];
  const joint = q.contributions !== undefined;
  const queries = cs ? [...new Set(cs.flatMap((x) => (x.column === undefined ? [] : [x.column])))] : (q.queries ?? [q.query]);
  if (!cs && new Set(queries).size !== queries.length) throw columnTwice('query');
  const givens = q.givens ?? (q.given ? [q.given] : []);
  const numericColumns = readByPredicates(queries, [
    ...(cs ?? []).flatMap((x) => (x.predicate === undefined ? [] : [x.predicate])),
    ...Object.values(q.predicates ?? {}),
  ]);
  const textColumns = [...queries, q.secretColumn, ...givens, c?.unit].filter((x): x is string => !!x);
  const predicates = cs?.some((x) => x.predicate !== undefined) ?? false;
  if (q.bootstrap && c?.unit === undefined && source.kind === 'postgres')
    throw new InputError(
      "a bootstrap class weighs each unit by its identity, and a database table's rows have no fixed order to identify them by: name a column that identifies each row (a key) with --unit",
      '--unit',
    );
  const engine = await openEngine(source, textColumns, !!q.predicates || predicates, numericColumns);
  try {
    checkSecretGiven(q);
    // Where the engine reads the columns as text (DuckDB), they are described alongside the
    // aggregation rather than before it; every name is checked, exactly, before a row is used
    // (DuckDB matches identifiers without regard to case: `"AGE"` would read a column `age`).
    const checkColumns = async () => {
      const cols = await engine.columns();
      const names = cols.map((c) => c.name);
      const need = (name: string, flag: string) => {
        const c = cols.find((x) => x.name === name);
        if (!c) throw unknownColumn(name, names, flag);
        return c;
      };
      // Text columns (DuckDB files) are cast value by value; typed non-numeric columns are refused.
      const text = queries.map((name) => {
        const qc = need(name, 'query');
        const asText = source.kind !== 'postgres' && /^VARCHAR$/i.test(qc.type);
        if (!qc.numeric && !asText) throw new InputError(`column '${name}' is not numeric (type ${qc.type})`, 'query');
        return asText;
      });
      if (q.secretColumn) need(q.secretColumn, 'secretColumn');
      for (const g of givens) need(g, q.givenFlag ?? 'given');
      if (c?.unit) need(c.unit, 'unit');
      return text;
    };
    const asText = engine.readsAsText ? queries.map(() => true) : await checkColumns();
    const xs = cs
      ? cs.map((x, i) => `${c!.unit ? unitTotal(i) : rowContribution(x, engine.tryCast)} AS x${i}`).join(', ')
      : queries.map((name, i) => `${engine.tryCast(ident(name))} AS x${i}`).join(', ');
    const dims = cs ? cs.map((_, i) => i) : queries.map((_, i) => i);
    const ng = Math.max(givens.length, 1);
    const groupX = dims.map((i) => i + ng + 2).join(', ');
    const units = c?.unit ? withUnitTotals(engine.relation, cs!, engine.tryCast, givens) : engine.relation;
    const drawn = q.bootstrap ? weighted(engine, units, c?.unit, q.bootstrap) : null;
    // A statistic's predicate is checked before the aggregation where the engine types its columns.
    const checkContribution = async () => {
      for (const x of cs ?? [])
        if (x.predicate !== undefined)
          await engine.check(x.predicate).catch((e) => {
            throw predicateRejected(e as Error, x.predicate!, q.secretColumn);
          });
    };
    if (!engine.readsAsText) await checkContribution();
    const g = givens.length ? givens.map((x, i) => `${ident(x)} AS g${i}`).join(', ') : 'NULL AS g0';
    const gs = Array.from({ length: ng }, (_, i) => i + 1).join(', ');
    const predicateNames = q.secretColumn ? [] : Object.keys(q.predicates!);
    const checkPredicates = () =>
      checkSecretPredicates(engine, q.predicates!, {
        text: textColumns.filter((x) => !numericColumns.includes(x)),
        numeric: numericColumns,
      });
    if (!q.secretColumn) {
      for (const [name, pred] of Object.entries(q.predicates!)) checkPredicate(name, pred);
      if (!engine.readsAsText) await checkPredicates();
    }
    const shape = { g, gs, ng, xs, groupX, dims, secretColumn: q.secretColumn, predicates: q.predicates };
    const aggregate = (d: Drawn | null) => aggregateSql(d, units, shape);
    const described = engine.readsAsText ? checkColumns() : null;
    // The draws' rows are bounded by the kept rows of draw 0 (as the text path counts them): a missing
    // secret, group or value is left out; each secret predicate tallies a row once more.
    const keptColumns = [...(q.secretColumn ? ['s'] : []), ...givens.map((_, i) => `g${i}`), ...(joint ? [] : dims.map((i) => `x${i}`))];
    const bound = { where: keptColumns.map((c) => `pufferfish_distinct.${c} IS NOT NULL`).join(' AND ') || 'true', perRow: Math.max(1, predicateNames.length) };
    const plan = { q, dims, givens, joint, predicateNames };
    const [names, result] = await Promise.allSettled([described, tallyRows(aggregateRows(engine, aggregate, drawn, q.bootstrap, bound), plan)]);
    if (names.status === 'rejected') throw names.reason;
    if (result.status === 'rejected') {
      if (!(result.reason instanceof EngineFailure)) throw result.reason;
      if (described && q.predicates) await checkPredicates(); // names the predicate at fault
      await checkContribution();
      throw new InputError(`the aggregation failed: ${short(result.reason.cause.message)}`, 'data');
    }
    const { tally, draws, total, dropped, numeric, atoms, givenValues } = result.value;
    // A statistic's column is checked with its value (`statisticValues`: a unit's total may be missing where its rows are not).
    if (!cs)
      queries.forEach((name, i) => {
        if (numeric[i] === 0 && total > 0 && asText[i]) throw new InputError(`column '${name}' is not numeric (no value parses as a number)`, 'query');
      });
    const secrets = q.secretColumn ? tally.secrets(q.values, { column: q.secretColumn }) : tally.secrets(predicateNames, {});
    return {
      groups: tally.histograms(secrets),
      rows: total,
      dropped,
      secrets,
      notes: tally.notes,
      ...(queries.length > 1 || joint ? { vectors: atoms.vectors } : {}),
      ...(joint ? { givenValues } : {}),
      ...(q.bootstrap ? { draws: draws.map((d) => d.histograms(secrets, tally)) } : {}),
    };
  } finally {
    await engine.close();
  }
}

type Drawn = ReturnType<typeof weighted>;

/**
 * The aggregate over the units, or over their bootstrap draws (a row per draw, group, secret and
 * value): each group's count under its secret, or under each secret predicate.
 */
function aggregateSql(
  d: Drawn | null,
  units: string,
  o: {
    g: string;
    gs: string;
    ng: number;
    xs: string;
    groupX: string;
    dims: number[];
    secretColumn?: string | undefined;
    predicates?: Readonly<Record<string, string>> | undefined;
  },
): string {
  const n = d ? `sum(${d.weight})` : 'count(*)';
  const relation = d ? d.relation : units;
  const byDraw = d ? `, ${d.draw} AS draw` : '';
  const groupDraw = d ? `, ${d.draw} HAVING ${n} > 0` : '';
  if (o.secretColumn)
    return `SELECT ${o.g}, ${ident(o.secretColumn)} AS s, ${o.xs}, ${n} AS n${byDraw} FROM ${relation} GROUP BY ${o.gs}, ${o.ng + 1}, ${o.groupX}${groupDraw}`;
  const filters = Object.values(o.predicates!)
    .map((pred, i) => `${n} FILTER (WHERE (${pred})) AS p${i}`)
    .join(', ');
  return `SELECT ${o.g}, ${o.xs}, ${n} AS n, ${filters}${byDraw} FROM ${relation} GROUP BY ${o.gs}, ${o.dims.map((i) => i + o.ng + 1).join(', ')}${groupDraw}`;
}

/** The engine's own failure (a query it refused or could not run), told apart from the tally's errors. */
class EngineFailure extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

/**
 * The aggregate's rows, a chunk at a time where the engine streams; with a bootstrap class, the
 * table's and every draw's. A draw's rows are at most the table's (the same units reweighted), so
 * the draws' rows are bounded before they are read.
 */
async function* aggregateRows<D>(
  engine: Engine,
  aggregate: (d: D | null) => string,
  drawn: D | null,
  b: UnitBootstrap | undefined,
  bound: { where: string; perRow: number },
): AsyncGenerator<Record<string, unknown>[]> {
  let sql = aggregate(null);
  let rows: AsyncIterable<Record<string, unknown>[]>;
  try {
    if (drawn && b) {
      const [{ n }] = await engine.rows(`SELECT count(*) AS n FROM (${sql}) AS pufferfish_distinct WHERE ${bound.where}`);
      checkDrawnSize(Number(n) * bound.perRow, b.draws);
      sql = aggregate(drawn);
    }
    rows = engine.batches
      ? engine.batches(sql)
      : (async function* () {
          yield await engine.rows(sql);
        })();
  } catch (e) {
    throw e instanceof InputError ? e : new EngineFailure(e as Error);
  }
  // Only the engine's errors are caught here: an error of the tally, which consumes these, ends it as itself.
  const it = rows[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Record<string, unknown>[]>;
    try {
      next = await it.next();
    } catch (e) {
      throw new EngineFailure(e as Error);
    }
    if (next.done) return;
    yield next.value;
  }
}

/**
 * The relation once per draw 0…N of a bootstrap class: each row with its draw and the md5 bits its
 * unit's weight is read from (`unitWeights.ts`), the unit being the `unit` column's text or the
 * row's position in the file; and the row's weight in its draw (1 in draw 0, the table itself). The
 * added columns' names carry a tag of the relation's text, so a table's own column of the same
 * name is never read in their place.
 */
function weighted(engine: Engine, relation: string, unit: string | undefined, b: UnitBootstrap): { relation: string; draw: string; weight: string } {
  const tag = md5Hex(`${relation}|${unit ?? ''}`).slice(0, 12);
  const [id, draw, h] = ['id', 'draw', 'h'].map((x) => `pufferfish_${x}_${tag}`);
  const unitText = unit !== undefined ? `CAST(${ident(unit)} AS VARCHAR)` : engine.rowPosition!;
  // weightKey's text: seed, draw and unit joined by colons.
  const key = `${literal(`${b.seed}:`)} || CAST(pufferfish_integers.i AS VARCHAR) || ':' || pufferfish_ided.${id}`;
  const ided = `(SELECT *, ${unitText} AS ${id} FROM ${relation}) AS pufferfish_ided`;
  return {
    relation: `(SELECT pufferfish_ided.*, pufferfish_integers.i AS ${draw}, CASE WHEN pufferfish_integers.i = 0 THEN 0 ELSE ${engine.md5Bits(key)} END AS ${h} FROM ${ided} CROSS JOIN ${engine.integers(b.draws)}) AS pufferfish_drawn`,
    draw,
    weight: `CASE WHEN ${draw} = 0 THEN 1 ELSE ${unitWeightSql(h)} END`,
  };
}

/** What `tallyRows` reads an aggregate's rows by. */
interface TallyPlan {
  q: SecretQuery;
  /** The value columns x0, x1, … of each row. */
  dims: number[];
  givens: string[];
  /** Several statistics of one unit: a missing value contributes 0 and public groups are joint keys. */
  joint: boolean;
  /** The secrets' names when they are predicates (counts p0, p1, … per row). */
  predicateNames: string[];
}

/**
 * The conditional histograms' tally of the aggregate's rows (value, secret, public group, count):
 * rows with a missing or non-numeric value, a missing secret or public value are dropped and
 * counted; a vector query tallies each distinct row vector by its number.
 */
async function tallyRows(batches: AsyncIterable<Record<string, unknown>[]>, plan: TallyPlan) {
  const { q, dims } = plan;
  const tally = new Tally();
  // A bootstrap's draws 1…N: the same rows reweighted, so rows read and dropped are draw 0's.
  const draws = Array.from({ length: q.bootstrap?.draws ?? 0 }, () => new Tally());
  let total = 0,
    dropped = 0;
  const numeric = dims.map(() => 0);
  const atoms = new PointAtoms();
  const givenValues = new Map<string, (string | null)[]>();
  for await (const rows of batches)
    for (const r of rows) {
      const n = Number(r.n);
      const draw = Number(r.draw ?? 0);
      const row = readRow(r, plan, atoms, draw > 0);
      if (draw > 0) {
        if (kept(row)) addRow(draws[draw - 1], r, row, plan);
        continue;
      }
      total += n;
      row.coords.forEach((c, i) => {
        if (c !== null && Number.isFinite(c)) numeric[i] += n;
      });
      if (plan.joint && !givenValues.has(row.gv!)) givenValues.set(row.gv!, row.texts);
      if (kept(row)) addRow(tally, r, row, plan);
      else dropped += n;
    }
  return { tally, draws, total, dropped, numeric, atoms, givenValues };
}

/**
 * One aggregate row read: its coordinates, public group (key and texts), atom and secret. Jointly, a
 * unit without a value of a statistic contributes 0 to it (as to its total), and every unit with a
 * secret is in the law: so a law over more statistics projects onto one over fewer.
 */
function readRow(r: Record<string, unknown>, { q, dims, givens, joint }: TallyPlan, atoms: PointAtoms, drawn: boolean) {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  let coords = dims.map((i) => num(r[`x${i}`]));
  if (joint) coords = coords.map((x) => x ?? 0);
  const texts = joint ? givens.map((_, i) => secretText(r[`g${i}`])) : [];
  const gv = joint ? jointKey(givens, texts) : q.given ? secretText(r.g0) : '';
  const s = q.secretColumn ? secretText(r.s) : '';
  let xv: number | null = coords.every((c) => c !== null && Number.isFinite(c)) ? coords[0] : null;
  // Atoms are numbered as met; a bootstrap draw's row numbers one only if it is kept (draw 0's rows always).
  if (xv !== null && (dims.length > 1 || joint) && (!drawn || (gv !== null && s !== null))) xv = atoms.id(coords as number[]);
  return { coords, texts, gv, xv, s };
}

type ReadRow = ReturnType<typeof readRow>;

/** A row with a public group, a finite value and a secret (others are dropped and counted). */
const kept = (row: ReadRow): row is ReadRow & { gv: string; xv: number; s: string } =>
  row.gv !== null && row.xv !== null && Number.isFinite(row.xv) && row.s !== null;

/** A kept row into a tally: its count under its secret, or each predicate's count under the predicate's name. */
function addRow(
  tally: Tally,
  r: Record<string, unknown>,
  { gv, xv, s }: ReadRow & { gv: string; xv: number; s: string },
  { q, predicateNames }: TallyPlan,
): void {
  if (q.secretColumn) tally.add(gv, s, xv, Number(r.n));
  else for (const [i, name] of predicateNames.entries()) if (Number(r[`p${i}`]) > 0) tally.add(gv, name, xv, Number(r[`p${i}`]));
}

/**
 * A table's secret is one column or a set of predicates, exactly one of them.
 * @example checkSecretGiven({ secretColumn: 'fbs' }) // undefined
 */
export function checkSecretGiven(q: { secretColumn?: string; predicates?: Record<string, string> }): void {
  if (!q.secretColumn === !q.predicates) throw new InputError('give --secret-column COL or --secret NAME=PREDICATE (not both)', 'secretColumn');
}

/** A statistic's predicate the engine rejected, with why a comparison with the secret column may fail. */
export const predicateRejected = (e: Error, predicate: string, secretColumn: string | undefined) =>
  new InputError(`the predicate was rejected: ${short(e.message)}${secretAsText(predicate, secretColumn)}`, 'query');

/**
 * The value columns a statistic's or a secret's predicate also reads: every query sees them as
 * their text's number (the value read exactly as the text path reads it, TRY_CAST), so the
 * predicate compares numbers and the laws, the released value and a privatized table read the same ones.
 */
function readByPredicates(queries: readonly string[], predicates: readonly string[]): string[] {
  const read = predicates.map(predicateColumns);
  return queries.filter((name) => read.some((r) => r === 'any' || r.has(name.toLowerCase())));
}

/** Each secret predicate checked by the engine; a rejection names the secret, with the text columns' hint. */
async function checkSecretPredicates(
  engine: Engine,
  predicates: Readonly<Record<string, string>>,
  columns: { text: string[]; numeric: string[] },
): Promise<void> {
  for (const [name, pred] of Object.entries(predicates)) {
    try {
      await engine.check(pred);
    } catch (e) {
      const why = (e as Error).message;
      throw new InputError(`the predicate of '${name}' was rejected: ${short(why)}${howRead(pred, columns, why)}`, 'secret');
    }
  }
}

/**
 * Why a secret predicate may fail to compare: the group and unit columns it reads are read as text
 * (their values as written), the queried column as a number (its text's).
 */
function howRead(predicate: string, columns: { text: string[]; numeric: string[] }, why: string): string {
  // Only a comparison of text with a number is helped by the hint.
  if (!/VARCHAR|STRING_LITERAL|DOUBLE/.test(why)) return '';
  const read = predicateColumns(predicate);
  const reads = (c: string) => read === 'any' || read.has(c.toLowerCase());
  const text = columns.text.filter(reads);
  const numeric = columns.numeric.filter(reads);
  const list = (xs: string[]) => `${xs.map((x) => `'${x}'`).join(', ')} ${xs.length > 1 ? 'are' : 'is'}`;
  if (text.length && /VARCHAR|STRING_LITERAL/.test(why))
    return `; ${list(text)} read as text (values as written): compare with a quoted value (${text[0]} = '…') or cast (TRY_CAST(${text[0]} AS DOUBLE) >= …)`;
  if (numeric.length && /DOUBLE/.test(why))
    return `; ${list(numeric)} read as a number (the query's column): text functions need a cast (CAST(${numeric[0]} AS VARCHAR), which reads the number back)`;
  return '';
}

/** Why a predicate on the secret column may fail to compare: the secret is read as text (its values as written). */
function secretAsText(predicate: string, secretColumn: string | undefined): string {
  const read = predicateColumns(predicate);
  if (secretColumn === undefined || (read !== 'any' && !read.has(secretColumn.toLowerCase()))) return '';
  return `; the secret column '${secretColumn}' is read as text (its values as written): compare it with a quoted value, ${secretColumn} = '…'`;
}
