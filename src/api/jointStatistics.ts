// The joint law of one unit's contributions to several statistics of a table (docs/math.md §20):
// what a source ledger accounts, and a statistic's private groups (--group-private). Engine-free
// here (the aggregate runs in the engines of sources/), so the page can build it too.
import { pointScenarioOf, type PointScenario } from '../distribution/points.js';
import * as v from 'valibot';
import { InputError } from '../errors.js';
import { checkShape } from '../shapes.js';
import { PointAtoms } from '../sources/csvText.js';
import { jointKey, tableHistograms } from '../sources/histograms.js';
import type { TableHistograms, UnitBootstrap } from '../sources/histogramTypes.js';
import { predicateColumns } from '../sources/predicate.js';
import { isNoPair, tableScenario } from '../sources/priors.js';
import { statisticValues } from '../sources/statisticValues.js';
import { drawnSizeOf, MAX_DRAWN_ROWS } from '../sources/unitWeights.js';
import { checkStatistic, parseStatistic, type Statistic } from '../sources/statistic.js';
import type { TableSource } from '../sources/table.js';

/** What every statistic of one source shares: the table, the secret, the unit. */
export interface StatisticsSource {
  source: TableSource;
  secretColumn?: string;
  values?: string[];
  predicates?: Record<string, string>;
  pairs?: [string, string][];
  /** Rows with one value of this column are one unit (a household); its contribution is their total. */
  unit?: string;
  /** A bootstrap class (`--prior bootstrap:N`): N draws reweighting the units, the same for every statistic. */
  prior?: UnitBootstrap;
}

/** One recorded release's statistic: the query (`mean:chol`), and for a per-group figure its public group column and group. */
export interface RecordedStatistic {
  query: string;
  groupBy?: string;
  group?: string;
  /** A private group column (`--group-private`): the adversary is not taken to know a unit's group. */
  private?: true;
}

/**
 * A count or share without a predicate over rows that are the units (no `--unit`), public groups if
 * any: every unit contributes 1, so its value is n (a share: 1), which the ledger takes as public.
 * It needs no noise and spends no budget, and is refused by name where a plan or a record is asked.
 * @example refuseCountOfUnits({ query: 'count' }, undefined) // throws: the value is n
 */
export function refuseCountOfUnits(r: RecordedStatistic, unit: string | undefined): void {
  const st = parseStatistic(r.query);
  if (!st || (st.kind !== 'count' && st.kind !== 'share') || st.predicate !== undefined || unit !== undefined || r.private) return;
  const what = st.kind === 'count' ? `n, the number of units${r.groupBy !== undefined ? ' of each group' : ''}` : '1';
  throw new InputError(
    `${st.kind} without a predicate is ${what}, which the ledger takes as public: it needs no noise and spends no budget, so publish it as it is; a source ledger records statistics of the rows' values (count:PREDICATE, share:PREDICATE, sum:COL, mean:COL)`,
    'query',
  );
}

/**
 * The group columns an adversary may know after each release: none at first (an adversary who knows
 * no unit's group sees every release, the first one per group included), and a release's
 * `--group-by` column public from that release on, so the sets grow. Each distinct set is one part
 * of the prior class.
 */
function knowledgeSets(recorded: readonly RecordedStatistic[]): string[][] {
  const sets: string[][] = [[]];
  const known: string[] = [];
  for (const r of recorded) {
    // A private group's release tells no one a unit's group: the column stays unknown.
    if (r.groupBy === undefined || r.private || known.includes(r.groupBy)) continue;
    known.push(r.groupBy);
    sets.push([...known]);
  }
  return sets;
}

/**
 * The joint law of one unit's contributions to the recorded statistics (docs/math.md §20), one
 * coordinate per recorded release in order: coordinate k is the unit's contribution to release k's
 * statistic (in the sum's units), or 0 when the unit is not in the group it released. A unit without
 * a value of a statistic contributes 0 to it. The prior class covers every adversary the releases
 * were made for: for each set of group columns public at some release (a release's `--group-by` is
 * public from then on), the priors that know those columns' values, under which a group a unit is
 * not known to be in is part of its random contribution (`known` gives other sets: `[[]]`, no group
 * known, for private groups). One aggregate pushed to the engine.
 * @example const src = { source: { kind: 'csv', location: 'examples/heart.csv' }, secretColumn: 'fbs' };
 * (await statisticsScenario(src, [{ query: 'mean:oldpeak' }, { query: 'count:age > 60' }], (await sourceIdentity(src)).identity)).priors.length // 1
 */
export async function statisticsScenario(
  s: StatisticsSource,
  recorded: readonly RecordedStatistic[],
  identity: string,
  known: readonly (readonly string[])[] = knowledgeSets(recorded),
): Promise<PointScenario> {
  if (recorded.length === 0) throw new InputError('names no statistic', 'ledger');
  for (const [k, r] of recorded.entries()) checkRecorded(r, s, `recorded.${k}`);
  const queries = [...new Set(recorded.map((r) => r.query))];
  const givens = [...new Set(recorded.flatMap((r) => (r.groupBy === undefined ? [] : [r.groupBy])))];
  const statistics: Statistic[] = queries.map((q) => {
    const st = parseStatistic(q);
    if (!st) throw new InputError(`'${q}' is not a statistic (sum:COL, mean:COL, count[:PREDICATE], share[:PREDICATE])`, 'query');
    const withUnit = { ...st, ...(s.unit !== undefined ? { unit: s.unit } : {}) };
    checkStatistic(withUnit, s.secretColumn);
    checkPredicateReads(st, s, givens);
    return withUnit;
  });
  // The joint laws leave rows without a unit out: such rows are refused first (`rowsWithoutUnit`).
  if (s.unit !== undefined) await statisticValues(s.source, { kind: 'count', unit: s.unit }, undefined, s.secretColumn);
  const h = await tableHistograms(s.source, {
    query: '',
    contributions: statistics,
    givens,
    givenFlag: '--group-by',
    ...(s.secretColumn !== undefined ? { secretColumn: s.secretColumn } : {}),
    ...(s.values ? { values: s.values } : {}),
    ...(s.predicates ? { predicates: s.predicates } : {}),
    ...(s.prior ? { bootstrap: s.prior } : {}),
  }).catch((e) => {
    throw asLedgerClass(e);
  });
  checkGroupsPresent(recorded, h, givens);
  // Each unit's contribution vector laid out on the recorded releases' coordinates (its groups read
  // off its full key), then tallied under each part of the class by the group values it knows.
  const atoms = new PointAtoms();
  const priors = known.flatMap((known) => {
    const regroup = (from: TableHistograms['groups']) => partGroups(from, h, { recorded, queries, givens, known, atoms });
    const groups = regroup(h.groups);
    const draws = h.draws?.map(regroup);
    try {
      return tableScenario({ ...h, groups, ...(draws ? { draws } : {}) }, { name: identity, given: '', ...(s.pairs ? { pairs: s.pairs } : {}) }).scenario
        .priors;
    } catch (e) {
      // No group of this part holds two secrets: an adversary knowing these groups has no pair to protect.
      // Anything else (the class too large to build) is refused: dropping the part would drop its adversaries.
      if (isNoPair(e) && known.length > 0) return [];
      throw e;
    }
  });
  return { ...pointScenarioOf({ name: identity, priors, ...(s.pairs ? { pairs: s.pairs } : {}) }, atoms.vectors), identity };
}

const RECORDED = v.strictObject(
  {
    query: v.string((i) => `must be a statistic's text (sum:COL, mean:COL, count[:PREDICATE], share[:PREDICATE]), got ${typeof i.input}`),
    groupBy: v.optional(v.string((i) => `must be a column's name, got ${typeof i.input}`)),
    group: v.optional(v.string((i) => `must be the group's value as the table's text, got ${typeof i.input} ${String(i.input)}`)),
    private: v.optional(v.literal(true, 'must be true or absent')),
  },
  (i) =>
    i.expected === 'never'
      ? 'has a field a recorded statistic does not take (query, groupBy, group, private)'
      : `must be an object { query, groupBy?, group? }, got ${typeof i.input}`,
);

/** A recorded statistic's shape: a group release names its column and its group, which is neither the secret nor the unit. */
function checkRecorded(r: RecordedStatistic, s: StatisticsSource, field: string): void {
  checkShape(RECORDED, r, field);
  if ((r.groupBy === undefined) !== (r.group === undefined)) throw new InputError('a group release names both its column (groupBy) and its group', field);
  if (r.groupBy !== undefined && (r.groupBy === s.secretColumn || r.groupBy === s.unit))
    throw new InputError(
      `groups by the ${r.groupBy === s.secretColumn ? 'secret' : 'unit'} column '${r.groupBy}'; a group is a public column's value`,
      `${field}.groupBy`,
    );
}

/**
 * Every recorded group is one the laws have units of: a group no unit of a protected secret is in
 * (no row, or only rows left out: a missing secret, another secret value) would be accounted as a
 * release that tells nothing (level 0), whatever was published under its name.
 */
function checkGroupsPresent(recorded: readonly RecordedStatistic[], h: TableHistograms, givens: readonly string[]): void {
  const inLaws = [...h.groups].filter(([, bySecret]) => [...bySecret.values()].some((hist) => hist.counts.some((c) => c > 0))).map(([key]) => key);
  for (const r of recorded) {
    if (r.groupBy === undefined) continue;
    const i = givens.indexOf(r.groupBy);
    const seen = new Set(inLaws.map((key) => h.givenValues!.get(key)![i]));
    if (!seen.has(r.group!)) {
      // A NULL group is no name a caller could give: neither listed nor counted.
      const named = [...seen].filter((x) => x !== null).sort();
      const shown = named
        .slice(0, 12)
        .map((x) => `'${x}'`)
        .join(', ');
      throw new InputError(
        `no unit of a protected secret has ${r.groupBy} = '${r.group}' (the groups with some: ${shown}${named.length > 12 ? ', …' : ''}): a group is named by the table's own text`,
        'group',
      );
    }
  }
}

/**
 * A bootstrap class too large for a source ledger's statistics, worded for the ledger: its class is
 * bound when it is opened, so taking fewer draws is another ledger. Other errors pass unchanged.
 */
export function asLedgerClass(e: unknown): unknown {
  const d = drawnSizeOf(e);
  if (!d) return e;
  return new InputError(
    `this ledger's class (bootstrap:${d.draws}) cannot hold the statistics recorded with this one: their joint values take ${d.distinctRows} distinct (group, secret, contributions) rows, and ${d.draws} draws of them exceed the ${MAX_DRAWN_ROWS} rows this tool holds at once; the class is fixed when a ledger is opened (one opened with ${d.fit >= 1 ? `at most bootstrap:${d.fit}` : 'the empirical prior'} would hold them)`,
    'prior',
  );
}

/**
 * One part of the class's histograms: each unit's contribution vector laid out on the recorded
 * releases' coordinates (its groups read off its full key), tallied by the group values the part knows.
 */
function partGroups(
  from: TableHistograms['groups'],
  h: TableHistograms,
  {
    recorded,
    queries,
    givens,
    known,
    atoms,
  }: { recorded: readonly RecordedStatistic[]; queries: string[]; givens: string[]; known: readonly string[]; atoms: PointAtoms },
): TableHistograms['groups'] {
  const groups = new Map<string, Map<string, { values: number[]; counts: number[] }>>();
  for (const [key, bySecret] of from) {
    const values = h.givenValues!.get(key)!;
    const inGroup = recorded.map((r) => r.groupBy === undefined || values[givens.indexOf(r.groupBy)] === r.group);
    const embed = (id: number) => atoms.id(recorded.map((r, k) => (inGroup[k] ? h.vectors![id][queries.indexOf(r.query)] : 0)));
    const part = jointKey(
      known,
      known.map((g) => values[givens.indexOf(g)]),
    );
    const into = groups.get(part) ?? new Map();
    groups.set(part, into);
    for (const [secret, hist] of bySecret) {
      const at = into.get(secret) ?? { values: [], counts: [] };
      into.set(secret, at);
      at.values.push(...hist.values.map(embed));
      at.counts.push(...hist.counts);
    }
  }
  return groups;
}

/**
 * A statistic's predicate in a source ledger may not read the secret, the unit or a group column:
 * the joint aggregate reads those as text, where the statistic's own release compared them as the
 * table types them, and the two counts would differ.
 */
function checkPredicateReads(st: Statistic, s: StatisticsSource, givens: readonly string[]): void {
  if (st.predicate === undefined) return;
  const reads = predicateColumns(st.predicate);
  const text = [s.secretColumn, s.unit, ...givens].filter((c): c is string => c !== undefined);
  const hit = reads === 'any' ? text[0] : text.find((c) => reads.has(c.toLowerCase()));
  if (hit !== undefined)
    throw new InputError(
      `a statistic's predicate may not read the secret, unit or a --group-by column ('${hit}') where several statistics or groups are accounted together: those are read as text there, and the count would differ from its release's`,
      'query',
    );
}
