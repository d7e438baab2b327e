// One ledger per data source (docs/math.md §20): every statistic released from a table — a mean,
// then a count, then per-group means — is recorded with its statistic, and the ledger's joint level
// is the divergence of the vector of all recorded statistics' contributions of one unit.
import { createHash } from 'node:crypto';
import type { PointScenario } from '../distribution/points.js';
import { pointScenarioOf } from '../distribution/points.js';
import { InputError } from '../errors.js';
import { PointAtoms } from '../sources/csvText.js';
import { short } from '../sources/engines/engine.js';
import { openEngine, tableHistograms } from '../sources/histograms.js';
import { tableScenario } from '../sources/priors.js';
import { parseStatistic, type Statistic } from '../sources/statistic.js';
import { sourceLabel, type TableSource } from '../sources/table.js';
import type { LedgerRelease, Recorded } from '../ledger/ledger.js';
import type { LedgerStore } from '../ledger/store.js';

/** What every statistic of one source shares: the table, the secret, the unit. */
export interface StatisticsSource {
  source: TableSource;
  secretColumn?: string;
  values?: string[];
  predicates?: Record<string, string>;
  pairs?: [string, string][];
  /** Rows with one value of this column are one unit (a household); its contribution is their total. */
  unit?: string;
}

/** One recorded release's statistic: the query (`mean:chol`), and for a per-group figure its public group column and group. */
export interface RecordedStatistic {
  query: string;
  groupBy?: string;
  group?: string;
}

/** The prefix of a source ledger's identity (a laws ledger's is `sha256:`). */
const SOURCE = 'source:sha256:';

/** Whether a ledger identity names a data source (its releases are statistics of it) rather than laws. */
const isSourceIdentity = (identity: string): boolean => identity.startsWith(SOURCE);

/**
 * The identity of a data source: its location (never credentials), its reading options, the
 * secret, the unit, and its rows' fingerprint (their number and an order-free sum of row hashes,
 * computed in the engine). A ledger bound to it refuses the same table once its rows changed: the
 * statistics recorded were of the rows as they were.
 * @example (await sourceIdentity({ source: { kind: 'csv', location: 'examples/heart.csv' }, secretColumn: 'fbs' })).rows // 303
 */
export async function sourceIdentity(s: StatisticsSource): Promise<{ identity: string; name: string; rows: number }> {
  const engine = await openEngine(s.source, [], false);
  let fp: Record<string, unknown>;
  try {
    [fp] = await engine.rows(engine.fingerprint);
  } catch (e) {
    throw new InputError(`cannot read the table's rows: ${short((e as Error).message)}`, 'data');
  } finally {
    await engine.close();
  }
  const { location, ...reading } = s.source;
  const text = JSON.stringify({
    source: sourceLabel(location),
    reading,
    secretColumn: s.secretColumn ?? null,
    values: s.values ?? null,
    predicates: s.predicates ? Object.entries(s.predicates) : null,
    pairs: s.pairs ?? null,
    unit: s.unit ?? null,
    rows: String(fp.n),
    hash: String(fp.h),
  });
  const secret = s.secretColumn ?? Object.keys(s.predicates ?? {}).join(', ');
  return {
    identity: `${SOURCE}${createHash('sha256').update(text).digest('hex')}`,
    name: `${sourceLabel(location).split(/[\\/]/).pop()}: statistics hiding ${secret}${s.unit ? ` (units: ${s.unit})` : ''}`,
    rows: Number(fp.n),
  };
}

/** A recorded statistic as the ledger stores it (JSON text: a predicate may hold any character). */
const recordedText = (r: RecordedStatistic): string =>
  JSON.stringify({ statistic: r.query, ...(r.groupBy !== undefined ? { groupBy: r.groupBy, group: r.group } : {}) });

/**
 * A source ledger's recorded query read back; null when the text is not one (a laws ledger's query).
 * @example recordedStatistic('{"statistic":"mean:chol"}') // { query: 'mean:chol' }
 */
export function recordedStatistic(text: string): RecordedStatistic | null {
  try {
    const j = JSON.parse(text) as { statistic?: unknown; groupBy?: unknown; group?: unknown };
    if (typeof j.statistic !== 'string') return null;
    if (j.groupBy !== undefined && (typeof j.groupBy !== 'string' || typeof j.group !== 'string')) return null;
    return { query: j.statistic, ...(j.groupBy !== undefined ? { groupBy: j.groupBy as string, group: j.group as string } : {}) };
  } catch {
    return null;
  }
}

/**
 * The statistic in words, as `ledger show` lists it.
 * @example recordedLabel({ query: 'mean:chol', groupBy: 'sex', group: '1' }) // 'mean:chol | sex = 1'
 */
export const recordedLabel = (r: RecordedStatistic): string => (r.groupBy !== undefined ? `${r.query} | ${r.groupBy} = ${r.group}` : r.query);

/**
 * The joint law of one unit's contributions to the recorded statistics (docs/math.md §20), one
 * coordinate per recorded release in order: coordinate k is the unit's contribution to release k's
 * statistic (in the sum's units), or 0 when the unit is not in the group it released. Groups are
 * public: the priors are split by every group column used, so a per-group figure is accounted
 * within each group. A unit without a value of a statistic contributes 0 to it. One aggregate
 * pushed to the engine.
 * @example const src = { source: { kind: 'csv', location: 'examples/heart.csv' }, secretColumn: 'fbs' };
 * (await statisticsScenario(src, [{ query: 'mean:oldpeak' }, { query: 'count:age > 60' }], (await sourceIdentity(src)).identity)).priors.length // 1
 */
export async function statisticsScenario(s: StatisticsSource, recorded: readonly RecordedStatistic[], identity: string): Promise<PointScenario> {
  if (recorded.length === 0) throw new InputError('names no statistic', 'ledger');
  const queries = [...new Set(recorded.map((r) => r.query))];
  const statistics: Statistic[] = queries.map((q) => {
    const st = parseStatistic(q);
    if (!st) throw new InputError(`'${q}' is not a statistic (sum:COL, mean:COL, count[:PREDICATE], share[:PREDICATE])`, 'query');
    return { ...st, ...(s.unit !== undefined ? { unit: s.unit } : {}) };
  });
  const givens = [...new Set(recorded.flatMap((r) => (r.groupBy === undefined ? [] : [r.groupBy])))];
  const h = await tableHistograms(s.source, {
    query: '',
    contributions: statistics,
    givens,
    givenFlag: '--group-by',
    ...(s.secretColumn !== undefined ? { secretColumn: s.secretColumn } : {}),
    ...(s.values ? { values: s.values } : {}),
    ...(s.predicates ? { predicates: s.predicates } : {}),
  });
  // Each group's contribution vectors laid out on the recorded releases' coordinates.
  const atoms = new PointAtoms();
  const groups = new Map(
    [...h.groups].map(([key, bySecret]) => {
      const values = h.givenValues!.get(key)!;
      const inGroup = recorded.map((r) => r.groupBy === undefined || values[givens.indexOf(r.groupBy)] === r.group);
      const embed = (id: number) => {
        const x = h.vectors![id];
        return atoms.id(recorded.map((r, k) => (inGroup[k] ? x[queries.indexOf(r.query)] : 0)));
      };
      return [key, new Map([...bySecret].map(([secret, hist]) => [secret, { values: hist.values.map(embed), counts: hist.counts }]))];
    }),
  );
  const { scenario } = tableScenario({ ...h, groups }, { name: identity, given: '', ...(s.pairs ? { pairs: s.pairs } : {}) });
  return { ...pointScenarioOf(scenario, atoms.vectors), identity };
}

/**
 * Records a batch of statistics' releases in a source ledger (one per released group), before their
 * values are shown: the joint law is built over every recorded statistic and these, and the ledger
 * appends them only if the joint level stays within its budget (`recordRelease`). A release
 * recorded meanwhile by someone else makes this one refuse (its coordinates would be misfiled).
 * @example const src = { source: { kind: 'csv', location: 'examples/heart.csv' }, secretColumn: 'fbs' };
 * const store = ledgerStore(`${scratch}/heart.ledger`); // scratch: a folder of yours
 * await initLedger(store, await sourceIdentity(src).then((x) => ({ identity: x.identity, name: x.name })), { alphas: [2], epsilon: 1 });
 * (await recordStatistics(store, src, [{ statistic: { query: 'mean:oldpeak' }, release: { mechanism: 'laplace', scale: 20, count: 1 } }]))[0].seq // 1
 */
export async function recordStatistics(
  store: LedgerStore,
  s: StatisticsSource,
  batch: readonly { statistic: RecordedStatistic; release: Omit<LedgerRelease, 'query'> }[],
): Promise<Recorded[]> {
  const { recordReleases } = await import('../ledger/ledger.js');
  const [{ identity }, state] = await Promise.all([sourceIdentity(s), store.read()]);
  if (state.meta.laws !== identity)
    throw new InputError(
      isSourceIdentity(state.meta.laws)
        ? `was opened for another data source or secret ('${state.meta.scenario}'), or the table's rows have changed since: a source ledger accounts the statistics of one table as it was`
        : `was opened for the laws of '${state.meta.scenario}' (a laws ledger); a statistic computed from a table is recorded in a source ledger (ledger init --data … without --query)`,
      'ledger',
    );
  const past = state.rows.map((r) => {
    const st = recordedStatistic(r.query);
    if (!st) throw new InputError(`release ${r.seq} records no statistic: the ledger is not a source ledger's`, 'ledger');
    return st;
  });
  const scenario = await statisticsScenario(s, [...past, ...batch.map((b) => b.statistic)], identity);
  return recordReleases(
    store,
    scenario,
    batch.map((b) => ({ ...b.release, query: recordedText(b.statistic) })),
  );
}

/**
 * A source ledger's joint laws, to recompute its levels (`checkLedger`): after k releases, the law
 * of the statistics recorded so far under the prior class as it stood then (the group columns of
 * the first k releases public). One aggregate per distinct set of group columns.
 * @example const src = { source: { kind: 'csv', location: 'examples/heart.csv' }, secretColumn: 'fbs' };
 * const store = ledgerStore(`${scratch}/heart.ledger`); // scratch: a folder of yours
 * await initLedger(store, await sourceIdentity(src).then((x) => ({ identity: x.identity, name: x.name })), { alphas: [2], epsilon: 1 });
 * await recordStatistics(store, src, [{ statistic: { query: 'mean:oldpeak' }, release: { mechanism: 'laplace', scale: 20, count: 1 } }]);
 * (await checkLedger(store, await sourceLedgerLaws(store, src))).problems // []
 */
export async function sourceLedgerLaws(store: LedgerStore, s: StatisticsSource): Promise<(released: number) => PointScenario> {
  const [{ identity }, state] = await Promise.all([sourceIdentity(s), store.read()]);
  if (state.meta.laws !== identity)
    throw new InputError(`is not the source of this ledger ('${state.meta.scenario}'), or the table's rows have changed since it was opened`, 'data');
  if (state.rows.length === 0) throw new InputError('has no release recorded yet: there are no levels to recompute', 'ledger');
  const recorded = state.rows.map((r) => {
    const st = recordedStatistic(r.query);
    if (!st) throw new InputError(`release ${r.seq} records no statistic: the ledger is not a source ledger's`, 'ledger');
    return st;
  });
  const columnsAt = (k: number) => [...new Set(recorded.slice(0, k).flatMap((r) => (r.groupBy === undefined ? [] : [r.groupBy])))].join('\n');
  // The group columns only grow with k: each set holds for a run of k, built once at its run's end.
  const built = new Map<string, PointScenario>();
  for (let k = recorded.length; k >= 1; k--) {
    const key = columnsAt(k);
    if (!built.has(key)) built.set(key, await statisticsScenario(s, recorded.slice(0, k), identity));
  }
  return (k) => built.get(columnsAt(Math.max(1, k)))!;
}
