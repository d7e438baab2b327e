import { InputError, unknownColumn } from '../errors.js';
import { secretText } from './csvText.js';
import { short } from './engines/engine.js';
import { openEngine, predicateRejected } from './histograms.js';
import {
  checkExact,
  meanWithMissing,
  notFinite,
  rowsWithoutUnit,
  statisticValueSql,
  unitAcrossGroups,
  unitAcrossGroupsSql,
  type Statistic,
} from './statistic.js';
import type { TableSource } from './table.js';

/** A statistic's value per group, in contribution units (a mean's total before dividing by n). */
export interface StatisticValues {
  /** Per group value ('' without a group column): the total and the units it adds up. */
  groups: Map<string, { total: number; units: number }>;
  /** Rows read, and rows left out of the statistic (no group). */
  rows: number;
  dropped: number;
  /** A sum's rows without a number in its column: each counts 0 (as SQL's sum reads it), in the laws too. */
  zeroed: number;
}

/**
 * The statistic's totals per group by one aggregate pushed to the engine (no row reaches
 * JavaScript). A sum's missing value counts 0 (counted); a mean with one is refused, and so is a
 * row without a unit value. `secretColumn`
 * is read as text, as the laws' query reads it.
 * @example (await statisticValues({ kind: 'csv', location: 'examples/heart.csv' }, { kind: 'mean', column: 'oldpeak' })).groups.get('')?.units // 303
 */
export async function statisticValues(source: TableSource, s: Statistic, group?: string, secretColumn?: string): Promise<StatisticValues> {
  // The columns the laws' query reads as text are read as text here too: a predicate on the secret
  // column (`count:s = 'TRUE'`) must match the same rows in the laws and in the value.
  const text = [s.column, s.unit, group, secretColumn].filter((c): c is string => !!c);
  const engine = await openEngine(source, text, s.predicate !== undefined);
  try {
    // Every column named is checked first, each error naming its flag.
    const names = (await engine.columns()).map((c) => c.name);
    for (const [name, flag] of [
      [s.column, 'query'],
      [secretColumn, 'secretColumn'],
      [s.unit, '--unit'],
      [group, '--group-by'],
    ] as const)
      if (name !== undefined && !names.includes(name)) throw unknownColumn(name, names, flag);
    if (s.unit !== undefined && group !== undefined) {
      const across = await engine.rows(unitAcrossGroupsSql(engine.relation, s.unit, group)).catch((e) => {
        throw new InputError(`cannot check that each unit keeps to one group: ${short((e as Error).message)}`, '--group-by');
      });
      if (across.length) throw unitAcrossGroups(secretText(across[0].u)!, group);
    }
    const rows = await engine.rows(statisticValueSql(engine.relation, s, engine.tryCast, group)).catch(async (e) => {
      // A predicate the engine rejects is named as the laws' query names it (a unit's statistic runs this first).
      if (s.predicate !== undefined)
        await engine.check(s.predicate).catch((p) => {
          throw predicateRejected(p as Error, s.predicate!, secretColumn);
        });
      throw new InputError(`the statistic's aggregate failed: ${short((e as Error).message)}`, 'query');
    });
    const groups = new Map<string, { total: number; units: number }>();
    let read = 0,
      kept = 0,
      present = 0,
      noUnit = 0;
    for (const r of rows) {
      read += Number(r.rows);
      noUnit += Number(r.nounit ?? 0);
      present += Number(r.present);
      const g = group === undefined ? '' : secretText(r.g);
      const units = Number(r.units);
      if (g === null || units === 0) continue;
      const total = Number(r.total);
      // An infinite or NaN value (or a sum past the largest double) has no noise that covers it.
      if (!Number.isFinite(total)) throw notFinite(total, g);
      checkExact(s, Number(r.big ?? 0), Number(r.mass ?? 0));
      groups.set(g, { total, units });
      kept += Number(r.kept);
    }
    if (s.column !== undefined && present === 0 && read > 0)
      throw new InputError(`column '${s.column}' has no number in any of its ${read} rows (all missing or not numeric)`, 'query');
    if (s.kind === 'mean' && present < read) throw meanWithMissing(s, read - present, read);
    if (s.unit !== undefined && noUnit > 0) throw rowsWithoutUnit(s.unit, noUnit, read);
    return { groups, rows: read, dropped: read - kept, zeroed: s.kind === 'sum' ? read - present : 0 };
  } finally {
    await engine.close();
  }
}
