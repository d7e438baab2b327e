import type { Scenario } from '../distribution/scenario.js';
import { checkKeys, checkShape, OBJECT } from '../shapes.js';
import { InputError } from '../errors.js';
import { releasedWindows, windowSteps } from '../calibrate/windows.js';
import { checkWhole } from '../settings.js';
import { tableHistograms } from '../sources/histograms.js';
import type { SecretQuery } from '../sources/histogramTypes.js';
import { parsePriorClass, tableLaws } from '../sources/priors.js';
import { sourceKind, sourceLabel, type TableSource } from '../sources/table.js';
import type { PointScenario } from '../distribution/points.js';
import type { MarkovModel } from '../markov/chain.js';
import { calendarUnit, seriesWindows, startsAt } from '../markov/calendar.js';
import { windowScenario, type SeriesOrigin, type WindowScenario } from '../markov/windowScenario.js';
import type { SequenceQuery } from '../sources/chainCounts.js';

/**
 * The scenario of a table, as the CLI's `--data` builds it: the query column's histogram per
 * secret (a column's values, or named SQL predicates), split by a public `given` column, under
 * the empirical prior or a robust class (`bootstrap:N`, `dirichlet:N`). The aggregation runs in
 * DuckDB (files) or PostgreSQL; no row leaves the engine. Several `queries` give a vector law.
 * @example (await scenarioFromTable('examples/heart.csv', { query: 'oldpeak', secretColumn: 'fbs' })).priors.length // 1
 */
export async function scenarioFromTable(
  location: string | TableSource,
  query: SecretQuery,
  opts: { prior?: string; seed?: number; pairs?: [string, string][]; name?: string } = {},
): Promise<Scenario | PointScenario> {
  if (typeof location !== 'string') checkShape(OBJECT, location, 'location');
  checkShape(OBJECT, query, 'query');
  checkShape(OBJECT, opts, 'options');
  checkKeys(opts, ['prior', 'seed', 'pairs', 'name'], 'options');
  const source: TableSource = typeof location === 'string' ? { kind: sourceKind(location), location } : location;
  const h = await tableHistograms(source, query);
  if (h.secrets.length < 2) throw new InputError(`needs at least two secrets with rows, got ${h.secrets.length}`, 'secretColumn');
  const name = opts.name ?? `${sourceLabel(source.location)}: ${query.queries?.join(',') ?? query.query}`;
  return tableLaws(h, {
    name,
    ...(opts.prior ? { prior: parsePriorClass(opts.prior, opts.seed ?? 0) } : {}),
    ...(opts.pairs ? { pairs: opts.pairs } : {}),
    ...(query.given ? { given: query.given } : {}),
  }).scenario;
}

/**
 * A time-series table as a Markov-chain law source, as the CLI's `--sequence` builds it: the
 * transition counts of `sequence` (a state column) ordered by `orderBy` (independent sequences by
 * `groupBy`, pooled), one aggregate in the engine, then the chain class (the estimated chain, or a
 * robust `prior` class of chains) and its query over `length` steps (default: the longest sequence).
 * The secrets are X_i = a for every time i and state a.
 * @example (await chainFromTable('test/fixtures/weather/seattle-weather.csv.gz', { sequence: 'weather', orderBy: 'date', query: 'count:rain', length: 30 })).scenario.name // "seattle-weather.csv.gz: count:rain over weather (T = 30)"
 */
export async function chainFromTable(
  location: string | TableSource,
  o: { sequence: string; orderBy: string; groupBy?: string; query: string; length?: number; prior?: string; seed?: number; name?: string },
): Promise<{ scenario: Scenario; states: string[]; length: number; model: MarkovModel }> {
  checkShape(OBJECT, o, 'options');
  checkKeys(o, ['sequence', 'orderBy', 'groupBy', 'query', 'length', 'prior', 'seed', 'name'], 'options');
  const { source, t, model, length } = await tableChain(location, o);
  const name =
    o.name ?? `${sourceLabel(source.location).split(/[\\/]/).pop()}: ${o.query} over ${o.sequence}${o.groupBy ? ` by ${o.groupBy}` : ''} (T = ${length})`;
  const { markovScenario } = await import('../markov/source.js');
  return { scenario: markovScenario(model, name, 'length').scenario as Scenario, states: t.states, length, model };
}

/** The chain estimated from a sequence table: its transition counts, the chain class's spec and model. */
async function tableChain(
  location: string | TableSource,
  o: { sequence: string; orderBy: string; groupBy?: string; query: string; length?: number; prior?: string; seed?: number },
) {
  if (typeof location !== 'string') checkShape(OBJECT, location, 'location');
  for (const k of ['sequence', 'orderBy', 'query'] as const)
    if (typeof o[k] !== 'string') throw new InputError('must be a column name (a string)', `options.${k}`);
  if (o.length !== undefined) checkWhole('length', o.length);
  if (o.seed !== undefined) {
    checkWhole('seed', o.seed);
    // A seed only seeds a drawn class: taken without one, it would be ignored.
    if (o.prior === undefined || o.prior.trim() === 'empirical')
      throw new InputError('seeds a drawn prior class (bootstrap:N, dirichlet:N): give one, or no seed', 'seed');
  }
  const source: TableSource = typeof location === 'string' ? { kind: sourceKind(location), location } : location;
  const [{ transitionCounts }, { sequenceChain, parseSequenceQuery }] = await Promise.all([
    import('../sources/sequence.js'),
    import('../sources/chainCounts.js'),
  ]);
  const q: SequenceQuery = { sequence: o.sequence, orderBy: o.orderBy, ...(o.groupBy ? { groupBy: o.groupBy } : {}) };
  const query = parseSequenceQuery(o.query);
  const t = await transitionCounts(source, q);
  const length = o.length ?? t.longest;
  const prior = o.prior ? parsePriorClass(o.prior, o.seed ?? 0) : undefined;
  const { markov, model } = sequenceChain(t, { query, length, ...(prior ? { prior } : {}) });
  return { source, q, query, t, markov, model, length };
}

/** A series' window counts from its table (`windowsFromTable`): the law source, the chain and windows it is built on, and the closed windows' counts. */
export interface TableWindows {
  scenario: WindowScenario;
  model: MarkovModel;
  lengths: number[];
  labels: string[];
  /** The series' first step: `start`, else the first calendar day or order value. */
  start: string | null;
  /** Where the counts are read: the table and its sequence. */
  source: TableSource;
  q: SequenceQuery;
  /** The values (counts or sums) of the first `released` windows (default all), read in the engine; refused where one is not closed yet. */
  counts(released?: number): Promise<number[]>;
}

/**
 * A time series' counts per window as a law source, as the CLI's `--window` builds them: the chain
 * of `chainFromTable`, its windows (`month` or `week` of the order column's dates, a length `N`, or
 * lengths `L1,L2,…`), the chain and lengths that `calibrateWindows`, `releaseWindows` and
 * `auditWindows` take, and `counts()`, the closed windows' counts read in the engine. With `start`
 * (and `length`) the series begins at that order value, whatever rows come before it.
 * @example const w = await windowsFromTable('test/fixtures/weather/seattle-weather.csv.gz', { sequence: 'weather', orderBy: 'date', query: 'count:rain', window: 'month', length: 60 });
 * w.lengths // [31, 29] (2012 is a leap year)
 */
export async function windowsFromTable(
  location: string | TableSource,
  o: {
    sequence: string;
    orderBy: string;
    groupBy?: string;
    query: string;
    window: string;
    length?: number;
    start?: string;
    prior?: string;
    seed?: number;
    name?: string;
  },
): Promise<TableWindows> {
  checkShape(OBJECT, o, 'options');
  checkKeys(o, ['sequence', 'orderBy', 'groupBy', 'query', 'window', 'length', 'start', 'prior', 'seed', 'name'], 'options');
  if (typeof o.window !== 'string') throw new InputError('must be month, week, a window length N or lengths L1,L2,…', 'window');
  if (o.start !== undefined && typeof o.start !== 'string') throw new InputError('must be an order value, as text', 'start');
  if (calendarUnit(o.window) && o.groupBy)
    throw new InputError('calendar windows read the dates of one series; give no group column, or window lengths', 'window');
  // The start is a literal of the engine's SQL: no backslash (an escape where a server reads them).
  if (o.start?.includes('\\')) throw new InputError('must not contain a backslash', 'start');
  if (o.start !== undefined && o.length === undefined)
    throw new InputError("is required with a start (--start): the series' length (its rows may not all be in the table yet)", 'length');
  const { source, q, query, t, markov, model, length } = await tableChain(location, o);
  // A window counts one state or sums whole-number values of its states; a histogram per window is refused.
  if ('histogram' in query)
    throw new InputError('takes count:STATE or sum:STATE=V,… with --window (one value per window); histograms per window are not available', 'query');
  const [{ orderValues, windowCounts }, { closedWindows }] = await Promise.all([import('../sources/sequence.js'), import('../sources/chainCounts.js')]);
  const { lengths, labels, firstDay } = await seriesWindows(o.window, length, () => orderValues(source, q, length, o.start), o.start);
  // A series at its start must begin there: its first row from there on is that value.
  if (o.start !== undefined && firstDay === null) startsAt(await orderValues(source, q, 1, o.start), o.start);
  // Calendar windows start on a day (the start, or the first present); other windows at the start or
  // the table's first row, named by its value (a ledger reads the same rows if earlier ones are added).
  const start = o.start ?? firstDay ?? (await orderValues(source, q, 1))[0] ?? null;
  const origin: SeriesOrigin = {
    sequence: o.sequence,
    orderBy: o.orderBy,
    query: o.query.trim(),
    window: o.window.trim(),
    start,
    prior: o.prior ?? null,
    seed: o.seed === undefined ? null : String(o.seed),
    rows: t.rows,
    markov,
  };
  const name =
    o.name ?? `${sourceLabel(source.location).split(/[\\/]/).pop()}: ${o.query} per window over ${o.sequence} (T = ${model.length}, window ${o.window.trim()})`;
  return {
    scenario: windowScenario(model, lengths, name, labels, origin),
    model,
    lengths,
    labels,
    start,
    source,
    q,
    counts: async (released?: number) => {
      // Windows are of one series: several sequences (a group column) pool their transitions, not their counts.
      if (o.groupBy)
        throw new InputError('window counts are read from one series; a table of several sequences (groupBy) is calibrated, not released', 'groupBy');
      const k = releasedWindows(released, lengths.length, 'released');
      const { states, values } = windowSteps(model);
      return closedWindows(await windowCounts(source, q, states, values, lengths.slice(0, k), start ?? undefined), lengths, labels, 'released');
    },
  };
}
