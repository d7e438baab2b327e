import { InputError, unknownName } from '../errors.js';
import * as v from 'valibot';
import { checkShape, OBJECT } from '../shapes.js';
import { tableHistograms } from '../sources/histograms.js';
import { unitBootstrap } from '../sources/priors.js';
import { checkSqlPredicate, checkStatistic, perUnit, statisticLabel, statisticText, type Statistic } from '../sources/statistic.js';
import type { PointScenario } from '../distribution/points.js';
import { statisticsScenario } from './jointStatistics.js';
import { statisticValues } from '../sources/statisticValues.js';
import { sourceKind, sourceLabel, type TableSource } from '../sources/table.js';
import { checkGroupBy, noUnits, statisticOf, type StatisticGroup, type TableStatistic } from './statisticLaws.js';

export {
  leftOutCount,
  refuseLeftOutGroups,
  resultInUnits,
  statisticAssumptions,
  toStatistic,
  type StatisticGroup,
  type StatisticUnits,
  type TableStatistic,
} from './statisticLaws.js';

/**
 * A statistic of a table (sum, mean, count or share, optionally per `unit` and per public
 * `groupBy` group) as a law source: per group, the laws of one unit's contribution given each
 * secret (docs/math.md §18), so every guarantee and method applies unchanged; a mean's or a
 * share's scale is the sum's divided by n (`toStatistic`). Two aggregates pushed to the engine.
 * @example (await statisticFromTable('test/fixtures/weather/seattle-weather.csv.gz', { statistic: { kind: 'mean', column: 'temp_max' }, secretColumn: 'weather', values: ['rain', 'sun'] })).groups[0].units // 1461
 */
export async function statisticFromTable(
  location: string | TableSource,
  o: {
    statistic: Statistic;
    secretColumn?: string;
    values?: string[];
    predicates?: Record<string, string>;
    groupBy?: string;
    pairs?: [string, string][];
    prior?: string;
    seed?: number;
    name?: string;
  },
): Promise<TableStatistic> {
  const { s, source } = statisticInput(location, o);
  // A mean's or a unit's value first: it refuses missing values and rows without a unit (the laws,
  // which leave those out, would say something vaguer: "one secret").
  const early = s.kind === 'mean' || s.unit !== undefined ? await statisticValues(source, s, o.groupBy, o.secretColumn) : null;
  // Otherwise the laws first: their query names the column or predicate at fault before the value's runs.
  const bootstrap = unitBootstrap(o.prior, o.seed);
  const h = await tableHistograms(source, {
    query: s.column ?? '',
    contribution: s,
    secretColumn: o.secretColumn,
    values: o.values,
    predicates: o.predicates,
    ...(o.groupBy ? { given: o.groupBy, givenFlag: '--group-by' } : {}),
    ...(bootstrap ? { bootstrap } : {}),
  });
  if (o.pairs) parsePairsOf(o.pairs, h.secrets);
  const v = early ?? (await statisticValues(source, s, o.groupBy, o.secretColumn));
  const base = o.name ?? `${sourceLabel(source.location).split(/[\\/]/).pop()}: ${statisticLabel(s)}`;
  return statisticOf(h, v, s, { ...o, name: base });
}

/** Each pair names two secrets the table has. */
function parsePairsOf(pairs: [string, string][], secrets: string[]): void {
  for (const pair of pairs) for (const x of pair) if (!secrets.includes(x)) throw unknownName('secret', x, secrets, '--pairs');
}

const text = (what: string) =>
  v.string((i) => `must be ${what}, got ${i.input === undefined ? 'nothing' : `${typeof i.input} ${String(i.input).slice(0, 40)}`}`);
/** A statistic's options as the library takes them: each field's shape, and no other field. */
const STATISTIC_OPTIONS = v.strictObject(
  {
    statistic: v.optional(v.unknown()), // its own check (checkStatistic) names what it lacks
    secretColumn: v.optional(text('a column name')),
    values: v.optional(v.array(text('a secret value as the table writes it'), 'must be a list of secret values (texts)')),
    predicates: v.optional(v.record(v.string(), text('an SQL predicate'), 'must be an object of named predicates')),
    groupBy: v.optional(text('a column name')),
    pairs: v.optional(v.array(v.tuple([text('a secret value'), text('a secret value')]), 'must be a list of [secret, secret] pairs')),
    prior: v.optional(text('empirical, bootstrap:N or dirichlet:N')),
    seed: v.optional(v.number('must be a number')),
    name: v.optional(text('a name')),
  },
  (i) =>
    i.expected === 'never'
      ? 'is not a field it takes (statistic, secretColumn, values, predicates, groupBy, pairs, prior, seed, name)'
      : `must be an object of options, got ${typeof i.input}`,
);

/** A statistic's law source's input checked at the library's edge: its shapes, its columns, its table. */
function statisticInput(location: string | TableSource, o: { statistic: Statistic; secretColumn?: string; groupBy?: string }) {
  if (typeof location !== 'string') checkShape(OBJECT, location, 'location');
  checkShape(STATISTIC_OPTIONS, o, 'options');
  const s = o.statistic;
  checkStatistic(s, o.secretColumn);
  if (s.predicate !== undefined) checkSqlPredicate(s.kind, s.predicate, 'statistic.predicate');
  checkGroupBy(s, o);
  const source: TableSource = typeof location === 'string' ? { kind: sourceKind(location), location } : location;
  return { s, source };
}

/** A statistic per private group: one vector law for all groups, and each group's total and n. */
export interface PrivateGroups {
  statistic: Statistic;
  label: string;
  /** The law of one unit's contribution on ℝ^G, coordinate g its contribution to group g (0 elsewhere). */
  scenario: PointScenario;
  /**
   * Per group, in the scenario's coordinate order: its value and total. A group's number of units is
   * not given: it would tell which group a unit is in.
   */
  groups: Pick<StatisticGroup, 'group' | 'total'>[];
  rows: number;
  droppedFromValue: number;
  /** A sum's rows without a number in its column: each counts 0, in the value and in the laws. */
  zeroed: number;
}

/**
 * A statistic per group whose column is **private** (`--group-private`): the adversary need not know
 * each unit's group, which may be correlated with the secret. One unit's contribution then lives on
 * ℝ^G, its contribution in its own group's coordinate and 0 in the others (docs/math.md §20), so one
 * noise scale covers the vector of the G group values (sums or counts) by vector bounds. The groups'
 * sizes are not released (they would place a unit in its group); the list of groups is taken as public.
 * Groups of one secret are kept: the vector law covers them. One aggregate for the laws, one for
 * the totals.
 * @example (await privateGroupsStatistic('examples/heart.csv', { statistic: { kind: 'sum', column: 'oldpeak' }, secretColumn: 'fbs', groupBy: 'sex' })).groups.length // 2
 */
export async function privateGroupsStatistic(
  location: string | TableSource,
  o: {
    statistic: Statistic;
    secretColumn?: string;
    values?: string[];
    predicates?: Record<string, string>;
    pairs?: [string, string][];
    groupBy: string;
    /** `bootstrap:N` (with `seed`): the draws weigh each unit alike in every group's coordinate. */
    prior?: string;
    seed?: number;
    name?: string;
  },
): Promise<PrivateGroups> {
  const { s, source } = statisticInput(location, o);
  if (perUnit(s))
    throw new InputError(
      `a ${s.kind} per private group divides by the group's number of units, which would tell an adversary who knows the other units which group this one is in: release sum:/count per group (their ratio is post-processing), or make the group public (no --group-private)`,
      '--group-private',
    );
  const bootstrap = unitBootstrap(o.prior, o.seed);
  if (o.prior !== undefined && !bootstrap) throw new InputError('private groups take empirical or bootstrap:N (draws shared by every group)', 'prior');
  const v = await statisticValues(source, s, o.groupBy, o.secretColumn);
  if (v.groups.size === 0) throw noUnits(s);
  const names = [...v.groups.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const label = statisticLabel(s);
  const scenario = await statisticsScenario(
    {
      source,
      ...(o.secretColumn !== undefined ? { secretColumn: o.secretColumn } : {}),
      ...(o.values ? { values: o.values } : {}),
      ...(o.predicates ? { predicates: o.predicates } : {}),
      ...(o.pairs ? { pairs: o.pairs } : {}),
      ...(s.unit !== undefined ? { unit: s.unit } : {}),
      ...(bootstrap ? { prior: bootstrap } : {}),
    },
    names.map((group) => ({ query: statisticText(s), groupBy: o.groupBy, group })),
    o.name ?? `${sourceLabel(source.location).split(/[\\/]/).pop()}: ${label} per private group of ${o.groupBy}`,
    [[]],
  );
  return {
    statistic: s,
    label,
    scenario: { ...scenario, identity: undefined },
    groups: names.map((group) => ({ group, total: v.groups.get(group)!.total })),
    rows: v.rows,
    droppedFromValue: v.dropped,
    zeroed: v.zeroed,
  };
}
