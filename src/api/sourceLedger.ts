// One ledger per data source (docs/math.md §20): every statistic released from a table — a mean,
// then a count, then per-group means — is recorded with its statistic, and the ledger's joint level
// is the divergence of the vector of all recorded statistics' contributions of one unit.
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { PointScenario } from '../distribution/points.js';
import { MECHANISMS, mechanismDef } from '../mechanisms/registry.js';
import { isNotApplicable } from '../mechanisms/mechanism.js';
import { InputError, NumericalError } from '../errors.js';
import { short } from '../sources/engines/engine.js';
import { openEngine } from '../sources/histograms.js';
import { sourceLabel } from '../sources/table.js';
import { budgetLevel, counted, fitsRatio, smallestFittingScale, type BudgetLevel } from '../account/budget.js';
import type { Mechanism } from '../calibrate/rules.js';
import { parseStatistic, perUnit } from '../sources/statistic.js';
import { statisticValues } from '../sources/statisticValues.js';
import { divideUp } from '../numerics/float.js';
import { smallestFittingByRatio } from '../numerics/smallestScale.js';
import { refuseCountOfUnits, statisticsScenario, type RecordedStatistic, type StatisticsSource } from './jointStatistics.js';
import { isSourceBound, ledgerFor, recordReleases, type LedgerRelease, type Recorded } from '../ledger/ledger.js';
import type { LedgerRow, LedgerStore } from '../ledger/store.js';

export type { RecordedStatistic, StatisticsSource } from './jointStatistics.js';

/** A release recorded between a plan's two reads of the ledger would misplace its coordinates. */
const plannedMeanwhile = () => new InputError('a release was recorded while the plan was made; run it again', 'ledger');

/** The prefix of a source ledger's identity (a laws ledger's is `sha256:`). */
const SOURCE = 'source:sha256:';

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
  let columns: { name: string; type: string }[];
  try {
    // The columns' names and types too: a row hash does not see a renamed or retyped column.
    columns = (await engine.columns()).map(({ name, type }) => ({ name, type }));
    [fp] = await engine.rows(engine.fingerprint);
    // A bootstrap class keys rows without a unit by their position: then the rows' order is bound too.
    if (s.prior && s.unit === undefined && engine.orderFingerprint) [{ h: fp.order }] = await engine.rows(engine.orderFingerprint);
  } catch (e) {
    throw new InputError(`cannot read the table's rows: ${short((e as Error).message)}`, 'data');
  } finally {
    await engine.close();
  }
  const { location, ...reading } = s.source;
  const text = JSON.stringify({
    // A file by its absolute path (the same table from another folder), a database without credentials.
    source: s.source.kind === 'postgres' ? sourceLabel(location) : resolve(location),
    columns,
    reading,
    secretColumn: s.secretColumn ?? null,
    values: s.values ?? null,
    predicates: s.predicates ? Object.entries(s.predicates) : null,
    pairs: s.pairs ?? null,
    unit: s.unit ?? null,
    // (Only when given: the identities of ledgers opened before classes stay what they were.)
    ...(s.prior ? { prior: `bootstrap:${s.prior.draws}`, seed: s.prior.seed, ...(fp.order !== undefined ? { order: String(fp.order) } : {}) } : {}),
    rows: String(fp.n),
    hash: String(fp.h),
  });
  const secret = s.secretColumn ?? Object.keys(s.predicates ?? {}).join(', ');
  return {
    identity: `${SOURCE}${createHash('sha256').update(text).digest('hex')}`,
    name: `${sourceLabel(location).split(/[\\/]/).pop()}: statistics hiding ${secret}${s.unit ? ` (units: ${s.unit})` : ''}${s.prior ? `, prior class bootstrap:${s.prior.draws} (seed ${s.prior.seed})` : ''}`,
    rows: Number(fp.n),
  };
}

/**
 * The ledger read for source `s`: refused unless it is bound to it (the same table, secret, unit,
 * columns and rows); its identity and the statistics recorded so far, in order.
 */
async function boundTo(store: LedgerStore, s: StatisticsSource): Promise<{ identity: string; past: RecordedStatistic[] }> {
  const [{ identity }, state] = await Promise.all([sourceIdentity(s), store.read()]);
  if (state.meta.laws !== identity)
    throw new InputError(
      isSourceBound(state.meta.laws)
        ? `was opened for another source ('${state.meta.scenario}'): it binds the table's file (or database and table), its reading options, the secret (column, --values, --pairs or --secret predicates), --unit, the prior class (--prior, --seed), and the table's columns and rows; one of them differs, or the rows have changed since it was opened (the recorded statistics were of the rows as they were)`
        : `was opened for the laws of '${state.meta.scenario}' (a laws ledger); a statistic computed from a table is recorded in a source ledger (ledger init --data … without --query)`,
      'ledger',
    );
  return { identity, past: state.rows.map(statisticOf) };
}

/** A source ledger's recorded release's statistic; a row without one means the ledger is not a source ledger's. */
function statisticOf(r: LedgerRow): RecordedStatistic {
  const st = recordedStatistic(r.query);
  if (!st) throw new InputError(`release ${r.seq} records no statistic: the ledger is not a source ledger's`, 'ledger');
  return st;
}

/** A recorded statistic as the ledger stores it (JSON text: a predicate may hold any character). */
const recordedText = (r: RecordedStatistic): string =>
  JSON.stringify({ statistic: r.query, ...(r.groupBy !== undefined ? { groupBy: r.groupBy, group: r.group, ...(r.private ? { private: true } : {}) } : {}) });

/**
 * A source ledger's recorded query read back; null when the text is not one (a laws ledger's query).
 * @example recordedStatistic('{"statistic":"mean:chol"}') // { query: 'mean:chol' }
 */
export function recordedStatistic(text: string): RecordedStatistic | null {
  try {
    const j = JSON.parse(text) as { statistic?: unknown; groupBy?: unknown; group?: unknown; private?: unknown };
    if (typeof j.statistic !== 'string') return null;
    if (j.groupBy !== undefined && (typeof j.groupBy !== 'string' || typeof j.group !== 'string')) return null;
    if (j.private !== undefined && (j.private !== true || j.groupBy === undefined)) return null;
    return {
      query: j.statistic,
      ...(j.groupBy !== undefined ? { groupBy: j.groupBy as string, group: j.group as string, ...(j.private ? { private: true as const } : {}) } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * The statistic in words, as `ledger show` lists it.
 * @example recordedLabel({ query: 'mean:chol', groupBy: 'sex', group: '1' }) // 'mean:chol | sex = 1'
 */
export const recordedLabel = (r: RecordedStatistic): string =>
  r.groupBy !== undefined ? `${r.query} | ${r.groupBy} = ${r.group}${r.private ? ' (private group)' : ''}` : r.query;

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
  for (const b of batch)
    if (isNotApplicable(mechanismDef(b.release.mechanism).product))
      throw new InputError(
        `a source ledger accounts its statistics together as one vector, with the noises the vector accountant takes (${MECHANISMS.filter((m) => !isNotApplicable(mechanismDef(m).product)).join(', ')})`,
        '--mechanism',
      );
  for (const b of batch) refuseCountOfUnits(b.statistic, s.unit);
  if (batch.some((b) => !(b.release.scale > 0)))
    throw new InputError(
      "this statistic needs no noise alone at this budget (the data itself meets it), but a source ledger records noisy releases only: with the statistics recorded its joint level is not 0. Release it with --scale S (in the statistic's units), the ledger's check its guarantee",
      'ledger',
    );
  const { identity, past } = await boundTo(store, s);
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
 * the first k releases public). One aggregate per distinct set of group columns; undefined while
 * nothing is recorded.
 * @example const src = { source: { kind: 'csv', location: 'examples/heart.csv' }, secretColumn: 'fbs' };
 * const store = ledgerStore(`${scratch}/heart.ledger`); // scratch: a folder of yours
 * await initLedger(store, await sourceIdentity(src).then((x) => ({ identity: x.identity, name: x.name })), { alphas: [2], epsilon: 1 });
 * await recordStatistics(store, src, [{ statistic: { query: 'mean:oldpeak' }, release: { mechanism: 'laplace', scale: 20, count: 1 } }]);
 * (await checkLedger(store, await sourceLedgerLaws(store, src))).problems // []
 */
export async function sourceLedgerLaws(store: LedgerStore, s: StatisticsSource): Promise<((released: number) => PointScenario) | undefined> {
  const { identity, past: recorded } = await boundTo(store, s);
  if (recorded.length === 0) return undefined;
  const columnsAt = (k: number) => [...new Set(recorded.slice(0, k).flatMap((r) => (r.groupBy === undefined ? [] : [r.groupBy])))].join('\n');
  // The group columns only grow with k: each set holds for a run of k, built once at its run's end.
  const built = new Map<string, PointScenario>();
  for (let k = recorded.length; k >= 1; k--) {
    const key = columnsAt(k);
    if (!built.has(key)) built.set(key, await statisticsScenario(s, recorded.slice(0, k), identity));
  }
  return (k) => built.get(columnsAt(Math.max(1, k)))!;
}

/**
 * Checks a source before a ledger is opened on it: the secret (column, values, pairs or predicates)
 * and the unit are read from the table as a statistic's release would read them, so a misspelt
 * column is refused now, not at the first release.
 * @example await checkStatisticsSource({ source: { kind: 'csv', location: 'examples/heart.csv' }, secretColumn: 'fbs' }).then(() => 'usable') // 'usable'
 */
export async function checkStatisticsSource(s: StatisticsSource): Promise<void> {
  if (s.unit !== undefined && s.unit === s.secretColumn)
    throw new InputError(
      `names the secret column '${s.unit}'; --unit names the column whose value groups rows into one unit (a household, a person)`,
      '--unit',
    );
  await statisticsScenario(s, [{ query: 'count' }], 'check');
}

/**
 * The smallest scale one more release of `statistic` needs to keep every recorded statistic and it
 * within the source ledger's budget (`smallestFittingScale` on their joint law), on one unit's
 * contribution and in the statistic's own units (divided by n for a mean or share, rounded up);
 * null when no scale fits.
 * @example const src = { source: { kind: 'csv', location: 'examples/heart.csv' }, secretColumn: 'fbs' };
 * const store = ledgerStore(`${scratch}/heart.ledger`); // scratch: a folder of yours
 * await initLedger(store, await sourceIdentity(src).then((x) => ({ identity: x.identity, name: x.name })), { alphas: [2], epsilon: 1 });
 * (await nextStatisticScale(store, src, { query: 'mean:oldpeak' }, 'laplace'))?.units // 303
 */
export async function nextStatisticScale(
  store: LedgerStore,
  s: StatisticsSource,
  statistic: RecordedStatistic,
  mechanism: Mechanism,
  onTrial?: (trial: number, scale: number) => void,
): Promise<{ scale: number; inUnits: number; units: number; level: BudgetLevel } | null> {
  if (statistic.groupBy !== undefined)
    throw new InputError('plans one statistic of the whole table: a per-group release is planned by releasing it (its refusal names the level)', '--group-by');
  refuseCountOfUnits(statistic, s.unit);
  const { identity, past } = await boundTo(store, s);
  const scenario = await statisticsScenario(s, [...past, statistic], identity);
  const { budget, groups } = await ledgerFor(store, scenario);
  // Read twice (the statistics, then the budget): a release recorded between would misplace coordinates.
  if (groups.length !== past.length) throw plannedMeanwhile();
  const next = { mechanism, count: 1, coordinates: [past.length] };
  const scale = smallestFittingScale(scenario, groups, next, budget, Math.max(1, ...groups.map((g) => g.scale)), onTrial);
  if (scale === null) return null;
  const st = parseStatistic(statistic.query)!;
  const values = await statisticValues(s.source, { ...st, ...(s.unit !== undefined ? { unit: s.unit } : {}) }, undefined, s.secretColumn);
  const units = values.groups.get('')?.units ?? 0;
  const inUnits = perUnit(st) && units > 0 ? divideUp(scale, units) : scale;
  return { scale, inUnits, units, level: budgetLevel(scenario, [...groups, { ...next, scale }], budget) };
}

/**
 * The smallest common scale S, in the statistic's units, at which one release per public group of
 * `query` by `groupBy` — group g at `fromScale(S)` on one unit's contribution, as `release … --scale S
 * --ledger L` draws it — keeps every recorded statistic and these within the source ledger's budget:
 * a geometric bisection whose answer is the feasible end (relative width 10⁻⁶), most of its steps read
 * off a bracket narrowed on the levels (`smallestFittingByRatio`). Null when no scale fits.
 * @example const src = { source: { kind: 'csv', location: 'examples/heart.csv' }, secretColumn: 'fbs' };
 * const store = ledgerStore(`${scratch}/heart.ledger`); // scratch: a folder of yours
 * await initLedger(store, await sourceIdentity(src).then((x) => ({ identity: x.identity, name: x.name })), { alphas: [2], epsilon: 1 });
 * (await groupsFittingScale(store, src, 'sum:oldpeak', 'sex', [{ group: '0.0', fromScale: (s) => s }, { group: '1.0', fromScale: (s) => s }], 'laplace'))!.scale > 0.3 // true (groups named as the table writes them)
 */
export async function groupsFittingScale(
  store: LedgerStore,
  s: StatisticsSource,
  query: string,
  groupBy: string,
  groups: readonly { group: string; fromScale(scale: number): number }[],
  mechanism: Mechanism,
  groupPrivate = false,
  onTrial?: (trial: number, scale: number) => void,
): Promise<{ scale: number; level: BudgetLevel } | null> {
  const batch = groups.map((g) => ({ query, groupBy, group: g.group, ...(groupPrivate ? { private: true as const } : {}) }));
  if (batch.length) refuseCountOfUnits(batch[0], s.unit);
  const { identity, past } = await boundTo(store, s);
  const scenario = await statisticsScenario(s, [...past, ...batch], identity);
  const { budget, groups: recorded } = await ledgerFor(store, scenario);
  if (recorded.length !== past.length) throw plannedMeanwhile();
  const releases = (S: number) => groups.map((g, k) => ({ mechanism, count: 1, coordinates: [past.length + k], scale: g.fromScale(S) }));
  const hi = smallestFittingByRatio(counted((S) => fitsRatio(budgetLevel(scenario, [...recorded, ...releases(S)], budget, true), budget), onTrial));
  if (hi === null) return null;
  const level = budgetLevel(scenario, [...recorded, ...releases(hi)], budget);
  if (!level.fits) throw new NumericalError(`the common scale ${hi} does not keep the ledger's budget on re-check`);
  return { scale: hi, level };
}

/** A hypothetical release of a statistic: `count` draws at `scale` in the statistic's own units (what `release … --scale` takes). */
export interface TypedStatisticRelease {
  mechanism: Mechanism;
  scale: number;
  count: number;
}

/**
 * The joint level a source ledger would reach with typed releases of one more statistic — of the
 * whole table (`groupBy` undefined, one group '') or one per public group — on top of the statistics
 * it records: a what-if, nothing is recorded. Each typed release draws every group's value `count`
 * times at its scale in the statistic's units, group g's noise on one unit's contribution being
 * `fromScale(scale)` (as `release … --scale S --ledger L` draws it; rounded down, so the level is
 * never understated); `groupPrivate`: the groups as `--group-private` records them (the column not
 * known to the adversary). The level is the same joint accountant's as a recorded release's.
 * @example const src = { source: { kind: 'csv', location: 'examples/heart.csv' }, secretColumn: 'fbs' };
 * const store = ledgerStore(`${scratch}/what-if.ledger`); // scratch: a folder of yours
 * await initLedger(store, await sourceIdentity(src).then((x) => ({ identity: x.identity, name: x.name })), { alphas: [2], epsilon: 1 });
 * (await statisticLevelWith(store, src, 'sum:oldpeak', undefined, [{ group: '', fromScale: (s) => s }], [{ mechanism: 'laplace', scale: 10, count: 1 }])).fits // true
 */
export async function statisticLevelWith(
  store: LedgerStore,
  s: StatisticsSource,
  query: string,
  groupBy: string | undefined,
  groups: readonly { group: string; fromScale(scale: number): number }[],
  typed: readonly TypedStatisticRelease[],
  groupPrivate = false,
): Promise<BudgetLevel> {
  if (typed.length === 0) throw new InputError('needs at least one release to account', '--release');
  const batch: RecordedStatistic[] =
    groupBy === undefined ? [{ query }] : groups.map((g) => ({ query, groupBy, group: g.group, ...(groupPrivate ? { private: true as const } : {}) }));
  refuseCountOfUnits(batch[0], s.unit);
  const { identity, past } = await boundTo(store, s);
  const scenario = await statisticsScenario(s, [...past, ...batch], identity);
  const { budget, groups: recorded } = await ledgerFor(store, scenario);
  if (recorded.length !== past.length) throw plannedMeanwhile();
  const releases = typed.flatMap((r) =>
    groups.map((g, k) => ({
      mechanism: r.mechanism,
      count: r.count,
      coordinates: [past.length + k],
      scale: g.fromScale(r.scale),
    })),
  );
  return budgetLevel(scenario, [...recorded, ...releases], budget);
}
