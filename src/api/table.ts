import type { Scenario } from '../distribution/scenario.js';
import { checkKeys, checkShape, OBJECT } from '../shapes.js';
import { InputError } from '../errors.js';
import { tableHistograms } from '../sources/histograms.js';
import type { SecretQuery } from '../sources/histogramTypes.js';
import { parsePriorClass, tableLaws } from '../sources/priors.js';
import { sourceKind, sourceLabel, type TableSource } from '../sources/table.js';
import type { PointScenario } from '../distribution/points.js';

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
): Promise<{ scenario: Scenario; states: string[]; length: number }> {
  if (typeof location !== 'string') checkShape(OBJECT, location, 'location');
  checkShape(OBJECT, o, 'options');
  checkKeys(o, ['sequence', 'orderBy', 'groupBy', 'query', 'length', 'prior', 'seed', 'name'], 'options');
  for (const k of ['sequence', 'orderBy', 'query'] as const)
    if (typeof o[k] !== 'string') throw new InputError('must be a column name (a string)', `options.${k}`);
  const source: TableSource = typeof location === 'string' ? { kind: sourceKind(location), location } : location;
  const [{ transitionCounts }, { sequenceChain, parseSequenceQuery }, { markovScenario }] = await Promise.all([
    import('../sources/sequence.js'),
    import('../sources/chainCounts.js'),
    import('../markov/source.js'),
  ]);
  const t = await transitionCounts(source, { sequence: o.sequence, orderBy: o.orderBy, ...(o.groupBy ? { groupBy: o.groupBy } : {}) });
  const length = o.length ?? t.longest;
  const prior = o.prior ? parsePriorClass(o.prior, o.seed ?? 0) : undefined;
  const { model } = sequenceChain(t, { query: parseSequenceQuery(o.query), length, ...(prior ? { prior } : {}) });
  const name =
    o.name ?? `${sourceLabel(source.location).split(/[\\/]/).pop()}: ${o.query} over ${o.sequence}${o.groupBy ? ` by ${o.groupBy}` : ''} (T = ${length})`;
  return { scenario: markovScenario(model, name, 'length').scenario as Scenario, states: t.states, length };
}
