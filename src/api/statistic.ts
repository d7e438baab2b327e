import type { Scenario } from '../distribution/scenario.js';
import { InputError, unknownName } from '../errors.js';
import { checkShape, OBJECT } from '../shapes.js';
import { tableHistograms } from '../sources/histograms.js';
import { parsePriorClass, tableScenario } from '../sources/priors.js';
import { checkStatistic, perUnit, statisticLabel, statisticText, type Statistic } from '../sources/statistic.js';
import type { PointScenario } from '../distribution/points.js';
import { statisticsScenario } from './jointStatistics.js';
import { statisticValues } from '../sources/statisticValues.js';
import { sourceKind, sourceLabel, type TableSource } from '../sources/table.js';
import { divideDown, divideUp, nextUp } from '../numerics/float.js';
import type { Discrete } from '../distribution/discrete.js';

/** One group's statistic: its contribution laws, its true total and its public number of units. */
export interface StatisticGroup {
  /** The group's value ('' without `groupBy`). */
  group: string;
  /** The laws of one unit's contribution per secret (docs/math.md §18), in the sum's units. */
  scenario: Scenario;
  /** The statistic's total over the group's units (a mean's before dividing by `units`). */
  total: number;
  /** n: the group's number of units, taken as public. */
  units: number;
  /** What a scale, value or interval of the contribution laws is divided by: n for a mean or share, else 1. */
  divisor: number;
}

/** A statistic of a table as a law source, per group. */
export interface TableStatistic {
  statistic: Statistic;
  label: string;
  groups: StatisticGroup[];
  /** Rows read; rows left out of the laws (no value or no secret) and of the statistic (no value). */
  rows: number;
  droppedFromLaws: number;
  droppedFromValue: number;
  /** Groups left out, with the reason (rows of fewer than two secrets: no pair to protect there). */
  skipped: { group: string; why: string }[];
  /** Whether every group's contribution laws are equal under every secret (no noise is needed). */
  uninformative: boolean;
  notes: string[];
  /** The spec file the laws were read from, where no table was (`rows` is then 0). */
  spec?: string;
}

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
  // The laws first: their query names the column or predicate at fault before the value's runs.
  const h = await tableHistograms(source, {
    query: s.column ?? '',
    contribution: s,
    secretColumn: o.secretColumn,
    values: o.values,
    predicates: o.predicates,
    ...(o.groupBy ? { given: o.groupBy, givenFlag: '--group-by' } : {}),
  });
  if (o.pairs) parsePairsOf(o.pairs, h.secrets);
  const v = await statisticValues(source, s, o.groupBy);
  if (v.groups.size === 0) throw noUnits(s);
  const label = statisticLabel(s);
  const base = o.name ?? `${sourceLabel(source.location).split(/[\\/]/).pop()}: ${label}`;
  const prior = o.prior ? parsePriorClass(o.prior, o.seed ?? 0) : undefined;
  const groups: StatisticGroup[] = [];
  const skipped: TableStatistic['skipped'] = [];
  for (const [group, { total, units }] of [...v.groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const hist = h.groups.get(group);
    const present = hist ? h.secrets.filter((x) => hist.has(x)) : [];
    if (present.length < 2) {
      // Which secret value the group holds is not said: that would disclose its members' secret.
      skipped.push({ group, why: 'rows of fewer than two secret values: no noise can be calibrated for it' });
      continue;
    }
    const name = o.groupBy ? `${base} | ${o.groupBy}=${group}` : base;
    const { scenario } = tableScenario(
      { ...h, groups: new Map([[group, hist!]]) },
      { name, ...(prior ? { prior } : {}), ...(o.pairs ? { pairs: o.pairs } : {}) },
    );
    groups.push({ group, scenario, total, units, divisor: perUnit(s) ? units : 1 });
  }
  if (groups.length === 0)
    throw new InputError(
      o.groupBy
        ? `no group of '${o.groupBy}' has rows of two secrets: ${skipped.map((x) => `${x.group}: ${x.why}`).join('; ')}`
        : 'needs rows of at least two secrets',
      o.groupBy ? '--group-by' : 'secretColumn',
    );
  return {
    statistic: s,
    label,
    groups,
    rows: h.rows,
    droppedFromLaws: h.dropped,
    droppedFromValue: v.dropped,
    skipped,
    uninformative: groups.every((g) => equalLaws(g.scenario)),
    notes: h.notes ?? [],
  };
}

/** Each pair names two secrets the table has. */
function parsePairsOf(pairs: [string, string][], secrets: string[]): void {
  for (const pair of pairs) for (const x of pair) if (!secrets.includes(x)) throw unknownName('secret', x, secrets, '--pairs');
}

/** Whether each prior's conditionals are one and the same law, exactly (the statistic tells nothing of the secret). */
function equalLaws(s: Scenario): boolean {
  const same = (a: Discrete, b: Discrete) =>
    a.values.length === b.values.length && a.values.every((x, i) => x === b.values[i] && a.numerators[i] * b.denominator === b.numerators[i] * a.denominator);
  return s.priors.every((p) => {
    const laws = Object.values(p.conditionals) as Discrete[];
    return laws.every((l) => same(l, laws[0]));
  });
}

/** Conversions from a group's contribution laws to the statistic's own units (see `toStatistic`). */
export interface StatisticUnits {
  /** A noise scale or error bar, divided by n and rounded up (no noise is lost). */
  scale: (x: number) => number;
  /** A released value, divided by n. */
  value: (x: number) => number;
  /** An interval, divided by n and rounded outward. */
  interval: (iv: readonly [number, number]) => [number, number];
  /** A scale given in the statistic's units as one of the contribution laws: times n, rounded down (a check at it is then conservative). */
  fromScale: (x: number) => number;
}

/**
 * A scale, value or interval of a group's contribution laws in the statistic's own units:
 * divided by n for a mean or share, rounded so that no noise is lost (a scale up, an interval
 * outward).
 * @example toStatistic({ divisor: 3 }).scale(1) > 1 / 3 // true
 */
export function toStatistic(g: Pick<StatisticGroup, 'divisor'>): StatisticUnits {
  const n = g.divisor;
  return {
    scale: (x) => (n === 1 ? x : divideUp(x, n)),
    value: (x) => (n === 1 ? x : x / n),
    interval: ([lo, hi]) => (n === 1 ? [lo, hi] : [divideDown(lo, n), divideUp(hi, n)]),
    fromScale: (x) => (n === 1 ? x : -nextUp(-(x * n))),
  };
}

/** A statistic's law source's input checked at the library's edge: its shapes, its columns, its table. */
function statisticInput(location: string | TableSource, o: { statistic: Statistic; secretColumn?: string; groupBy?: string }) {
  if (typeof location !== 'string') checkShape(OBJECT, location, 'location');
  checkShape(OBJECT, o, 'options');
  const s = o.statistic;
  checkStatistic(s, o.secretColumn);
  checkGroupBy(s, o);
  const source: TableSource = typeof location === 'string' ? { kind: sourceKind(location), location } : location;
  return { s, source };
}

/** A group column is none of the statistic's own columns nor the secret. */
function checkGroupBy(s: Statistic, o: { secretColumn?: string; groupBy?: string }): void {
  if (o.groupBy !== undefined && (o.groupBy === o.secretColumn || o.groupBy === s.column || o.groupBy === s.unit))
    throw new InputError(
      `names the ${o.groupBy === o.secretColumn ? 'secret' : o.groupBy === s.unit ? 'unit' : 'query'} column '${o.groupBy}'; give the column whose groups are released apart`,
      '--group-by',
    );
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
    name?: string;
  },
): Promise<PrivateGroups> {
  const { s, source } = statisticInput(location, o);
  if (perUnit(s))
    throw new InputError(
      `a ${s.kind} per private group divides by the group's number of units, which would tell an adversary who knows the other units which group this one is in: release sum:/count per group (their ratio is post-processing), or make the group public (no --group-private)`,
      '--group-private',
    );
  const v = await statisticValues(source, s, o.groupBy);
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
  };
}

/** n = 0: no unit has a value of the statistic. */
const noUnits = (s: Statistic) => new InputError(`no unit has a value of the statistic (${statisticLabel(s)}): n = 0`, 'query');
