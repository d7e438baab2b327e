// A statistic's laws per group, from a table's histograms and its values per group: what the
// engine's path (api/statistic.ts: DuckDB, PostgreSQL) and the page's text tables share. Browser-safe.
import type { CalibrationResult } from '../calibrate/result.js';
import type { Discrete } from '../distribution/discrete.js';
import type { Scenario } from '../distribution/scenario.js';
import { InputError, unknownColumn } from '../errors.js';
import { checkShape, OBJECT } from '../shapes.js';
import { divideDown, divideUp, nextUp } from '../numerics/float.js';
import { cellNumber, isMissing, missingNumber, notNumeric, numericColumns, textHistograms, type TextTable } from '../sources/csvText.js';
import { textPredicate } from '../sources/textPredicate.js';
import type { TableHistograms, UnitBootstrap } from '../sources/histogramTypes.js';
import { unitWeights } from '../sources/unitWeights.js';
import { parsePriorClass, tableScenario, unitBootstrap } from '../sources/priors.js';
import {
  checkExact,
  checkStatistic,
  divisorOf,
  meanWithMissing,
  notFinite,
  perUnit,
  statisticLabel,
  rowsWithoutUnit,
  unitAcrossGroups,
  type Statistic,
} from '../sources/statistic.js';
import type { StatisticValues } from '../sources/statisticValues.js';

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
  /** A sum's rows without a number in its column: each counts 0, in the value and in the laws. */
  zeroed: number;
  /** The public group column, for a statistic per group. */
  groupBy?: string;
  /** Groups left out, with the reason (rows of fewer than two secrets: no pair to protect there) and their units. */
  skipped: { group: string; why: string; units: number }[];
  /** Whether every group's contribution laws are equal under every secret (no noise is needed). */
  uninformative: boolean;
  notes: string[];
  /** The spec file the laws were read from, where no table was (`rows` is then 0). */
  spec?: string;
}

/**
 * A statistic's law source per group from its histograms (one unit's contribution per secret) and
 * its values per group (total, n): a group with rows of fewer than two secrets is left out, said
 * without naming its secret.
 */
export function statisticOf(
  h: TableHistograms,
  v: Pick<StatisticValues, 'groups' | 'dropped' | 'zeroed'>,
  s: Statistic,
  o: { name: string; groupBy?: string; pairs?: [string, string][]; prior?: string; seed?: number },
): TableStatistic {
  if (v.groups.size === 0) throw noUnits(s);
  const label = statisticLabel(s);
  const base = o.name;
  // A bootstrap class's draws reweight the units in the tally (h.draws); a Dirichlet class resamples here.
  const boot = unitBootstrap(o.prior, o.seed);
  const prior = o.prior && !boot ? parsePriorClass(o.prior, o.seed ?? 0) : undefined;
  if (boot && !h.draws) throw new Error('a bootstrap class of a statistic needs its draws tallied (unitBootstrap)');
  const groups: StatisticGroup[] = [];
  const skipped: TableStatistic['skipped'] = [];
  for (const [group, { total, units }] of [...v.groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const hist = h.groups.get(group);
    const present = hist ? h.secrets.filter((x) => hist.has(x)) : [];
    if (present.length < 2) {
      // Which secret value the group holds is not said: that would disclose its members' secret.
      skipped.push({ group, why: 'rows of fewer than two secret values: no noise can be calibrated for it', units });
      continue;
    }
    const name = o.groupBy ? `${base} | ${o.groupBy}=${group}` : base;
    const { scenario } = tableScenario(
      { ...h, groups: new Map([[group, hist!]]) },
      { name, ...(prior ? { prior } : {}), ...(o.pairs ? { pairs: o.pairs } : {}) },
    );
    groups.push({ group, scenario, total, units, divisor: divisorOf(s, units) });
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
    zeroed: v.zeroed,
    ...(o.groupBy ? { groupBy: o.groupBy } : {}),
    skipped,
    uninformative: groups.every((g) => equalLaws(g.scenario)),
    notes: h.notes ?? [],
  };
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
  /** The smallest scale in the statistic's units whose `fromScale` reaches a contribution scale: what to give as --scale. */
  givenFor: (x: number) => number;
}

/**
 * A scale, value or interval of a group's contribution laws in the statistic's own units:
 * divided by n for a mean or share, rounded so that no noise is lost (a scale up, an interval
 * outward).
 * @example toStatistic({ divisor: 3 }).scale(1) > 1 / 3 // true
 */
export function toStatistic(g: Pick<StatisticGroup, 'divisor'>): StatisticUnits {
  checkShape(OBJECT, g, 'group');
  const n = g.divisor;
  // n is a count of units (or 1): a rounding direction is only kept dividing by n ≥ 1.
  if (!(Number.isSafeInteger(n) && n >= 1)) throw new InputError(`must be the number of units (a whole number ≥ 1) or 1, got ${String(n)}`, 'divisor');
  const fromScale = (x: number) => (n === 1 ? x : -nextUp(-(x * n)));
  return {
    scale: (x) => (n === 1 ? x : divideUp(x, n)),
    value: (x) => (n === 1 ? x : x / n),
    interval: ([lo, hi]) => (n === 1 ? [lo, hi] : [divideDown(lo, n), divideUp(hi, n)]),
    fromScale,
    givenFor: (x) => {
      // x/n rounded up can still come back an ulp short of x (fromScale rounds down): step up until it does not.
      let s = n === 1 ? x : divideUp(x, n);
      while (fromScale(s) < x) s = nextUp(s);
      return s;
    },
  };
}

/**
 * A calibration of a group's contribution laws in the statistic's own units: scales divided by n
 * for a mean or share, rounded up (no noise is lost).
 */
export function resultInUnits(r: CalibrationResult, g: Pick<StatisticGroup, 'divisor'>): CalibrationResult {
  const to = toStatistic(g);
  return {
    ...r,
    scale: to.scale(r.scale),
    variance: to.scale(to.scale(r.variance)),
    pairs: r.pairs.map((p) => ({ ...p, scale: to.scale(p.scale) })),
    ...(r.candidates ? { candidates: r.candidates.map((c) => ({ ...c, scale: to.scale(c.scale) })) } : {}),
  };
}

/** A group column is none of the statistic's own columns nor the secret. */
export function checkGroupBy(s: Statistic, o: { secretColumn?: string; groupBy?: string }): void {
  if (o.groupBy !== undefined && (o.groupBy === o.secretColumn || o.groupBy === s.column || o.groupBy === s.unit))
    throw new InputError(
      `names the ${o.groupBy === o.secretColumn ? 'secret' : o.groupBy === s.unit ? 'unit' : 'query'} column '${o.groupBy}'; give the column whose groups are released apart`,
      '--group-by',
    );
}

/**
 * What a statistic's output says it assumes (CLI and page alike): n public, the other units possibly
 * known, groups public and those left out, the rows read and left out.
 * @example statisticAssumptions(statisticFromText({ columns: ['x', 's'], rows: [['1', 'a'], ['2', 'b']] }, { statistic: { kind: 'sum', column: 'x' }, secretColumn: 's', name: 't' }), undefined)[0] // 'statistic: sum of x; n = 2 units, taken as public'
 */
export function statisticAssumptions(t: TableStatistic, groupBy: string | undefined): string[] {
  const s = t.statistic;
  const n = t.groups.map((g) => g.units);
  const what = s.column !== undefined ? `its ${s.column}` : s.predicate === undefined ? 'its number of rows' : `its number of rows with ${s.predicate}`;
  const lines = [
    `statistic: ${t.label}${perUnit(s) ? ', divided by n' : ''}; n = ${n.length === 1 ? `${n[0]} units` : `${Math.min(...n)}–${Math.max(...n)} units per group`}, taken as public${s.kind === 'share' && s.unit ? ` (a share of rows per unit: above 1 where units hold several such rows)` : ''}`,
    `each unit (${s.unit ? `the rows of one ${s.unit}` : 'a row'}) contributes ${what}${s.unit ? ' in total' : ''}; the noise covers an adversary who knows every other unit (docs/math.md §18); ${s.unit ? 'units are taken to be independent of each other' : 'rows are taken to be independent of each other (rows of one person or household: give --unit)'}`,
  ];
  if (groupBy)
    lines.push(
      `groups of '${groupBy}' are public (the adversary may know each unit's group): each group's noise is calibrated on its own rows${t.skipped.length ? `; ${leftOutText(t)}` : ''}`,
    );
  const leftOut = leftOutCount(t).units;
  lines.push(
    t.spec !== undefined
      ? `one unit's contribution laws and n read from the spec '${t.spec}'`
      : `${t.rows} rows read; ${t.droppedFromValue} left out of the statistic (no group), ${t.droppedFromLaws} out of the laws (no secret or group)${leftOut ? `; ${leftOut} unit(s) of the groups left out are in no released value` : ''}`,
  );
  if (t.zeroed > 0) lines.push(`${t.zeroed} row(s) have no number in '${s.column}': each counts 0 in the sum and in its laws (as SQL's sum reads it)`);
  if (t.uninformative)
    lines.push('the contribution laws are the same under every secret: the statistic tells nothing about the secret, so no noise is needed (data processing)');
  return [...lines, ...t.notes];
}

/** How many groups a per-group release leaves out, and their units: what is published of them (not their names). */
export function leftOutCount(t: Pick<TableStatistic, 'skipped'>): { groups: number; units: number } {
  return { groups: t.skipped.length, units: t.skipped.reduce((a, x) => a + x.units, 0) };
}

/**
 * The groups left out, counted and not named: a group's absence tells that its rows hold one
 * secret value, so the published text names none (who knows the groups can still tell which are absent).
 */
function leftOutText(t: TableStatistic): string {
  return `${t.skipped.length} group(s) left out, not released: their rows hold fewer than two secret values (the table's class has no pair to protect there); which ones is not printed, but anyone who knows the groups can tell them by their absence, and so that each one's rows share one secret value`;
}

/**
 * A release of per-group values leaves out groups only when asked (`--leave-out-groups`): their
 * absence discloses, without noise, that each one's rows share one secret value. The refusal names
 * them to the curator, who may coarsen the groups instead.
 * @example refuseLeftOutGroups({ skipped: [], groups: [] }, false) // passes: none left out
 */
export function refuseLeftOutGroups(t: Pick<TableStatistic, 'skipped' | 'groups' | 'groupBy'>, leaveOut: boolean): void {
  if (t.skipped.length === 0 || leaveOut) return;
  const named = t.skipped.slice(0, 10).map((x) => x.group);
  throw new InputError(
    `${t.skipped.length} of ${t.skipped.length + t.groups.length} groups of '${t.groupBy}' hold rows of fewer than two secret values (${named.join(', ')}${t.skipped.length > named.length ? ', …' : ''}): no noise can be calibrated for them, and releasing the others tells by their absence, without noise, that each one's rows share one secret value. Coarser groups keep every group in the release; --leave-out-groups releases the others anyway`,
    '--leave-out-groups',
  );
}

/**
 * A statistic of a text table (the web page's: no SQL engine) — a sum or mean of a numeric column,
 * or a count or share of the rows meeting one comparison (`textPredicate`) — optionally per `unit`
 * and per public group: the same law source as the engine's `statisticFromTable` (docs/math.md §18),
 * read row by row as its SQL reads them.
 * @example statisticFromText({ columns: ['x', 's'], rows: [['1', 'a'], ['2', 'b'], ['3', 'a']] }, { statistic: { kind: 'mean', column: 'x' }, secretColumn: 's', name: 't' }).groups[0].units // 3
 */
export function statisticFromText(
  table: TextTable,
  o: { statistic: Statistic; secretColumn: string; values?: string[]; groupBy?: string; prior?: string; seed?: number; name: string },
): TableStatistic {
  const s = o.statistic;
  checkStatistic(s, o.secretColumn);
  checkGroupBy(s, o);
  const x = textContributions(table, s, o.secretColumn, o.groupBy);
  // The laws are read off a column of the rows' contributions (a unit's total on each of its rows, as `withUnitTotals` attaches it).
  let at = CONTRIBUTION;
  while (table.columns.includes(at)) at += '_';
  const h = textHistograms(
    // At the header's width, whatever a row's own length: the contribution is always read from its own column.
    {
      columns: [...table.columns, at],
      rows: table.rows.map((r, k) => [...atWidth(r, table.columns.length), Number.isNaN(x.perRow[k]) ? '' : String(x.perRow[k])]),
    },
    { query: at, secretColumn: o.secretColumn, ...(o.values ? { values: o.values } : {}), ...(o.groupBy ? { given: o.groupBy } : {}) },
    textWeights(table, s, unitBootstrap(o.prior, o.seed)),
  );
  return statisticOf(h, x, s, {
    name: o.name,
    ...(o.groupBy ? { groupBy: o.groupBy } : {}),
    ...(o.prior ? { prior: o.prior } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
  });
}

/**
 * A text table's rows' weights in a statistic's bootstrap draws, as the engines compute them: the
 * unit is the `--unit` cell's text, or the row's position (1 for the first row after the header).
 */
function textWeights(t: TextTable, s: Statistic, b: UnitBootstrap | undefined): Parameters<typeof textHistograms>[2] {
  if (!b) return undefined;
  const ui = s.unit === undefined ? -1 : t.columns.indexOf(s.unit);
  if (ui < 0) return { draws: b.draws, of: (k) => unitWeights(String(k + 1), b) };
  // A unit's rows share its weights: drawn once per unit.
  const byUnit = new Map<string, number[]>();
  return {
    draws: b.draws,
    of: (k) => {
      const u = t.rows[k][ui];
      const w = byUnit.get(u) ?? unitWeights(u, b);
      byUnit.set(u, w);
      return w;
    },
  };
}

/** A row cut or padded (missing cells) to `n` cells. */
const atWidth = (r: readonly string[], n: number): string[] => Array.from({ length: n }, (_, j) => r[j] ?? '');

/** The column a text table's contributions are read from (never one of the table's: `statisticFromText` suffixes it then). */
const CONTRIBUTION = '__pufferfish_contribution';

/**
 * Each row's contribution (a unit's total on each of its rows; rows without a unit are refused) and,
 * per group, the statistic's total and units: `statisticValueSql`'s and `withUnitTotals`' reading
 * of the same table, row by row.
 */
function textContributions(
  t: TextTable,
  s: Statistic,
  secretColumn: string,
  groupBy: string | undefined,
): Pick<StatisticValues, 'groups' | 'dropped' | 'zeroed'> & { perRow: Float64Array } {
  const col = (name: string, flag: string) => {
    const j = t.columns.indexOf(name);
    if (j < 0) throw unknownColumn(name, t.columns, flag);
    return j;
  };
  col(secretColumn, 'secretColumn');
  const ci = s.column !== undefined ? col(s.column, 'query') : -1;
  if (ci >= 0 && !numericColumns(t).includes(s.column!)) throw notNumeric(s.column!);
  const holds = s.predicate !== undefined ? textPredicate(s.predicate, t) : null;
  const ui = s.unit !== undefined ? col(s.unit, '--unit') : -1;
  const gi = groupBy !== undefined ? col(groupBy, '--group-by') : -1;
  // A sum's missing value counts 0 (as SQL's sum reads it); a mean with one is refused (`meanWithMissing`).
  const missing = ci >= 0 ? t.rows.filter((r) => missingNumber(r[ci])).length : 0;
  if (s.kind === 'mean' && missing > 0) throw meanWithMissing(s, missing, t.rows.length);
  const own = (r: readonly string[]) => (ci >= 0 ? (missingNumber(r[ci]) ? 0 : cellNumber(r[ci])) : holds === null || holds(r) ? 1 : 0);
  const groupOf = (r: readonly string[]) => (gi < 0 ? '' : isMissing(r[gi]) ? null : r[gi]);
  const values = Float64Array.from(t.rows, own);
  const perRow = Float64Array.from(values);
  // Units: the rows of one unit value (within a group), kept whole or not at all.
  const unitOf = (r: readonly string[]) => (isMissing(r[ui]) ? null : r[ui]);
  if (ui >= 0) {
    const total = new Map<string, number>(),
      groupOfUnit = new Map<string, string | null>();
    t.rows.forEach((r, k) => {
      const u = unitOf(r);
      if (u === null) return;
      // A missing group counts as a group of its own (`unitAcrossGroupsSql`).
      const g = groupOf(r);
      if (groupOfUnit.has(u) && groupOfUnit.get(u) !== g) throw unitAcrossGroups(u, groupBy!);
      groupOfUnit.set(u, g);
      total.set(u, (total.get(u) ?? 0) + perRow[k]);
    });
    // After the groups' check, as the engine orders them.
    const without = t.rows.filter((r) => unitOf(r) === null).length;
    if (without > 0) throw rowsWithoutUnit(s.unit!, without, t.rows.length);
    t.rows.forEach((r, k) => {
      perRow[k] = total.get(unitOf(r)!)!;
    });
  }
  const groups = new Map<string, { total: number; units: number }>();
  const counted = new Set<string>();
  let dropped = 0;
  t.rows.forEach((r, k) => {
    const g = groupOf(r);
    if (Number.isNaN(perRow[k]) || g === null) {
      dropped++;
      return;
    }
    // A unit's total is on each of its rows: added once.
    if (ui >= 0) {
      const u = unitOf(r)!;
      if (counted.has(u)) return;
      counted.add(u);
    }
    const at = groups.get(g) ?? { total: 0, units: 0 };
    at.total += perRow[k];
    at.units++;
    groups.set(g, at);
  });
  for (const [g, { total }] of groups) if (!Number.isFinite(total)) throw notFinite(total, g);
  // Per group, as the engine checks it: its largest value, and every row's magnitude once (a unit's
  // rows, not its total repeated on each), which bounds every partial sum on the way to its total.
  const sizes = new Map<string, { largest: number; mass: number }>();
  t.rows.forEach((r, k) => {
    const g = groupOf(r);
    if (g === null) return;
    const at = sizes.get(g) ?? { largest: 0, mass: 0 };
    const x = Math.abs(values[k]);
    if (ci >= 0) at.largest = Math.max(at.largest, x);
    at.mass += x;
    sizes.set(g, at);
  });
  for (const g of groups.keys()) checkExact(s, sizes.get(g)!.largest, sizes.get(g)!.mass);
  return { groups, dropped, perRow, zeroed: missing };
}

/** n = 0: no unit has a value of the statistic. */
export const noUnits = (s: Statistic) => new InputError(`no unit has a value of the statistic (${statisticLabel(s)}): n = 0`, 'query');
