import { InputError, unknownColumn } from '../errors.js';
import { decimalValue, isDecimal } from '../numerics/float.js';
import type { MarkovQuery } from '../markov/chain.js';
import { isMissing, type TextTable } from './csvText.js';
import { validateSpec, type MarkovModel } from '../markov/chain.js';
import { gamma, seededUniform, type PriorClass } from './priors.js';

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
 * The transition counts from the records of the counting statement (`transitionCounts`): kind `k`
 * T (a transition a → b, n times), G (the same per sequence h), F (a first state), L (a sequence's
 * length), D (a duplicate order value), R (all rows), K (rows kept). One reading and one set of
 * refusals for every engine and for the page's own count (`textTransitionCounts`).
 */
export function countsFromRecords(rows: Record<string, unknown>[], q: SequenceQuery): TransitionCounts {
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
function transitionMatrix(t: TransitionCounts): number[][] {
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
    const v = decimalValue(part.slice(i + 1));
    if (i <= 0 || Number.isNaN(v)) throw new InputError(`'${part}' is not STATE=VALUE with a decimal value`, 'query');
    const state = part.slice(0, i);
    if (Object.hasOwn(sum, state)) throw new InputError(`state '${state}' is given twice (sum:STATE=V names each state once)`, 'query');
    Object.defineProperty(sum, state, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return { sum };
}

/**
 * The state, order and group columns of a sequence query, each checked to be a column of the
 * table and the three distinct (the group absent: undefined), refused by flag.
 */
export function sequenceColumns(columns: readonly string[], q: SequenceQuery): [string, string, string | undefined] {
  const named: [string, string][] = [[q.sequence, 'sequence'], [q.orderBy, 'orderBy'], ...(q.groupBy ? [[q.groupBy, 'groupBy'] as [string, string]] : [])];
  for (const [name, flag] of named) if (!columns.includes(name)) throw unknownColumn(name, columns, flag);
  // Each later flag is blamed for repeating an earlier one, which it names.
  for (let k = 1; k < named.length; k++) {
    const earlier = named.slice(0, k).find(([n]) => n === named[k][0]);
    if (earlier) throw new InputError(`names the same column as --${earlier[1] === 'orderBy' ? 'order-by' : 'sequence'} ('${named[k][0]}')`, named[k][1]);
  }
  return [q.sequence, q.orderBy, q.groupBy];
}

/** ISO dates and times without a zone offset (2024-05-03, 2024-05-03T09:00:00.5): their text order is their time order. */
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/;

/**
 * An ISO date or time in one spelling, so that text order is time order and one instant is one
 * text: `T` between date and time, seconds always, no trailing zeros in a fraction, a date alone
 * at midnight (as an engine reading a column of dates and times takes it).
 * @example isoInstant('2024-05-03 09:00') // '2024-05-03T09:00:00'
 */
function isoInstant(v: string): string {
  const [date, time = '00:00:00'] = v.trim().split(/[T ]/);
  const [hms, frac = ''] = time.split('.');
  const full = hms.length === 5 ? `${hms}:00` : hms;
  const f = frac.replace(/0+$/, '');
  return `${date}T${full}${f ? `.${f}` : ''}`;
}

/**
 * How the page orders a sequence's steps without an engine's types: numbers as numbers (each
 * below 2^53, so told apart exactly), ISO dates and times as text; anything else is refused
 * rather than sorted in a way a database would not.
 */
function orderKey(values: readonly string[]): (v: string) => number | string {
  const t = values.map((v) => v.trim());
  if (t.every((v) => isDecimal(v))) {
    const big = t.find((v) => !(Math.abs(Number(v)) < 2 ** 53) || v.replace(/[^0-9]/g, '').replace(/^0+/, '').length > 15);
    if (big !== undefined)
      throw new InputError(
        `order value '${big}' has more digits than doubles tell apart; order by it with the CLI (its engine compares it exactly)`,
        'orderBy',
      );
    return (v) => Number(v);
  }
  const odd = t.find((v) => !ISO.test(v));
  if (odd !== undefined)
    throw new InputError(
      `'${odd}' is neither a number nor an ISO date or time (2024-05-03, 2024-05-03T09:00); the page orders only those — use the CLI, whose engine reads the column's type`,
      'orderBy',
    );
  return isoInstant;
}

/**
 * The transition counts of a table already in memory (the web page's), read as `transitionCounts`
 * reads a file: rows without a state, order or group value dropped and counted (a step without a
 * state breaks its sequence), each group's rows in the order of the order column — numbers, or
 * ISO dates and times (`orderKey`) — and the same records, so the same refusals.
 * @example textTransitionCounts({ columns: ['t', 's'], rows: [['1', 'a'], ['2', 'b']] }, { sequence: 's', orderBy: 't' }).counts // [[0, 1], [0, 0]]
 */
export function textTransitionCounts(t: TextTable, q: SequenceQuery): TransitionCounts {
  const [xs, os, gs] = sequenceColumns(t.columns, q).map((name) => (name === undefined ? -1 : t.columns.indexOf(name)));
  // Steps: rows with an order and a group value, in order; one without a state breaks the sequence
  // there (no transition across it, as the engines' statement counts).
  const placed = t.rows.filter((r) => !isMissing(r[os]) && (gs < 0 || !isMissing(r[gs])));
  const kept = placed.filter((r) => !isMissing(r[xs]));
  const key = orderKey(placed.map((r) => r[os]));
  const groups = new Map<string, string[][]>();
  for (const r of placed) {
    const g = gs < 0 ? 'all' : r[gs];
    const rows = groups.get(g) ?? [];
    rows.push(r);
    groups.set(g, rows);
  }
  const records: Record<string, unknown>[] = [];
  const tally = new Map<string, { k: string; a: string | null; b: string | null; h: string | null; n: number }>();
  const count = (k: string, a: string | null, b: string | null, h: string | null = null) => {
    const id = JSON.stringify([k, a, b, h]);
    const e = tally.get(id) ?? { k, a, b, h, n: 0 };
    e.n++;
    tally.set(id, e);
  };
  for (const [g, rows] of groups) {
    rows.sort((x, y) => (key(x[os]) < key(y[os]) ? -1 : key(x[os]) > key(y[os]) ? 1 : 0));
    const states = rows.filter((r) => !isMissing(r[xs]));
    if (states.length) {
      records.push({ k: 'L', a: g, b: null, n: states.length, h: null });
      count('F', null, states[0][xs]);
    }
    // A run of equal order values (one instant or number, however spelt) is one duplicate, named by its first spelling.
    for (let i = 0; i < rows.length; ) {
      let j = i + 1;
      while (j < rows.length && key(rows[j][os]) === key(rows[i][os])) j++;
      if (j - i > 1) records.push({ k: 'D', a: g, b: rows[i][os], n: j - i, h: null });
      i = j;
    }
    rows.forEach((r, i) => {
      if (i > 0 && !isMissing(r[xs]) && !isMissing(rows[i - 1][xs])) {
        count('T', rows[i - 1][xs], r[xs]);
        count('G', rows[i - 1][xs], r[xs], g);
      }
    });
  }
  records.push(...tally.values());
  records.push({ k: 'R', a: null, b: null, n: t.rows.length, h: null }, { k: 'K', a: null, b: null, n: kept.length, h: null });
  return countsFromRecords(records, q);
}

/**
 * The order column's first `length + 1` values of a table in memory, in order (the engines'
 * `orderValues`, for the web page): month windows read their dates from them.
 * @example textOrderValues({ columns: ['t', 's'], rows: [['2015-01-02', 'a'], ['2015-01-01', 'b']] }, { sequence: 's', orderBy: 't' }, 1) // ['2015-01-01', '2015-01-02']
 */
export function textOrderValues(t: TextTable, q: SequenceQuery, length: number): string[] {
  const os = t.columns.indexOf(q.orderBy);
  if (os < 0) throw unknownColumn(q.orderBy, t.columns, '--order-by');
  const values = t.rows.map((r) => r[os]).filter((v) => !isMissing(v));
  const key = orderKey(values);
  return values.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).slice(0, length + 1);
}

/** Each window's count of one state, and the steps of the series it holds (fewer than its length: not closed). */
export interface WindowCounts {
  counts: number[];
  steps: number[];
  /** Steps without a state: the window's count is not known. */
  unknown: number[];
  /** Steps in a state the chain does not have (a recorded chain's states given), each window's first such state. */
  foreign?: { steps: number[]; first: (string | null)[] };
}

/**
 * Each window's value in a table in memory (the engines' `windowCounts`, for the web page): the
 * sum of each step's state's value (`values`, in the order of `states`; a count: 1 for its state)
 * over the rows with an order value, in order, the first Σ lengths of them cut into windows of the
 * given lengths; a row without a state takes its step and is counted as unknown, one in a state not
 * among `states` as foreign.
 * @example textWindowCounts({ columns: ['t', 's'], rows: [['2', 'a'], ['1', 'a'], ['3', 'b'], ['4', 'a']] }, { sequence: 's', orderBy: 't' }, ['a', 'b'], [1, 0], [2, 2]).counts // [2, 1]
 */
export function textWindowCounts(
  t: TextTable,
  q: SequenceQuery,
  states: readonly string[],
  values: readonly number[],
  lengths: readonly number[],
): WindowCounts {
  const stepValue = new Map(states.map((x, i) => [x, values[i]]));
  const [xs, os] = [q.sequence, q.orderBy].map((name, k) => {
    const j = t.columns.indexOf(name);
    if (j < 0) throw unknownColumn(name, t.columns, k === 0 ? '--sequence' : '--order-by');
    return j;
  });
  const placed = t.rows.filter((r) => !isMissing(r[os]));
  const key = orderKey(placed.map((r) => r[os]));
  placed.sort((x, y) => (key(x[os]) < key(y[os]) ? -1 : key(x[os]) > key(y[os]) ? 1 : 0));
  const counts = new Array<number>(lengths.length).fill(0);
  const steps = new Array<number>(lengths.length).fill(0);
  const unknown = new Array<number>(lengths.length).fill(0);
  const foreign = { steps: new Array<number>(lengths.length).fill(0), first: new Array<string | null>(lengths.length).fill(null) };
  let at = 0;
  lengths.forEach((L, w) => {
    for (let k = 0; k < L && at < placed.length; k++, at++) {
      steps[w]++;
      const x = placed[at][xs];
      if (isMissing(x)) unknown[w]++;
      else if (stepValue.has(x!)) counts[w] += stepValue.get(x!)!;
      else {
        foreign.steps[w]++;
        foreign.first[w] ??= x!;
      }
    }
  });
  return { counts, steps, unknown, foreign };
}

/**
 * The window counts of closed windows only: a window the series does not yet cover whole (fewer
 * steps than its length) has no count to release — its total so far would be published as the
 * window's (exit 2 naming `flag`, with how many windows are closed).
 * @example closedWindows({ counts: [3, 1], steps: [5, 5], unknown: [0, 0] }, [5, 5], ['1–5', '6–10']) // [3, 1]
 */
export function closedWindows(w: WindowCounts, lengths: readonly number[], labels: readonly string[], flag = '--windows-released'): number[] {
  const open = w.steps.findIndex((n, k) => n < lengths[k]);
  // A ledger releases the next window only: it waits for that window's rows.
  const instead =
    flag === '--ledger'
      ? 'release it once all its rows are in the table'
      : `release the ${open} closed window(s) (--windows-released ${open}) or a shorter series`;
  if (open >= 0)
    throw new InputError(
      `window ${open + 1} (${labels[open]}) has ${w.steps[open]} of its ${lengths[open]} steps in the table: it is not closed; ${instead}`,
      flag,
    );
  // A step without a state leaves its window's count unknown: what it would publish is not the window's count.
  const blind = w.unknown.findIndex((n) => n > 0);
  if (blind >= 0)
    throw new InputError(
      `window ${blind + 1} (${labels[blind]}) has ${w.unknown[blind]} step(s) without a state in the table: its count is not known; fill them in${flag === '--ledger' ? '' : `, or release the ${blind} window(s) before it (--windows-released ${blind})`}`,
      flag,
    );
  // A state the chain does not have is outside the model the guarantee is for (a recorded chain's).
  const odd = w.foreign?.steps.findIndex((n) => n > 0) ?? -1;
  if (odd >= 0)
    throw new InputError(
      `window ${odd + 1} (${labels[odd]}) has ${w.foreign!.steps[odd]} step(s) in a state the chain does not have or gives probability 0 at every time ('${w.foreign!.first[odd]}'): the guarantee is for the chain's possible states`,
      '--data',
    );
  return w.counts;
}

/** A chain class from a sequence table's counts: the `"markov"` spec it makes, and its model. */
export interface SequenceChain {
  markov: { states: string[]; chains: { name: string; transition: number[][]; initial: 'stationary' }[]; length: number; query: MarkovQuery };
  model: MarkovModel;
}

/**
 * The chains a sequence table gives (the estimated one, plus a prior class's draws), each with
 * the stationary start, for a query over `length` steps (default: the longest sequence).
 * @example sequenceChain(counts, { query: { count: 'rain' } }).model.length
 */
export function sequenceChain(t: TransitionCounts, o: { query: MarkovQuery; length?: number; prior?: PriorClass }): SequenceChain {
  const chains = chainClass(t, o.prior).map((c) => ({ name: c.name, transition: c.transition, initial: 'stationary' as const }));
  const markov = { states: t.states, chains, length: o.length ?? t.longest, query: o.query };
  return { markov, model: validateSpec(markov, 'markov') };
}
