// The order values each released window of a series' ledger was recorded with, checked against the
// table (a release before recording, `ledger check` among its problems).
import { InputError } from '../errors.js';
import { loadWindows, type WindowOptions } from './input.js';

/**
 * The windows recorded with order values (`window k of m (label; first … last)`) whose rows the
 * table no longer has there, in words: rows added or removed inside windows already released.
 */
export function spanProblems(rows: readonly { query: string }[], span: readonly [string, string][]): string[] {
  return rows.flatMap((row, k) => {
    const was = /; (.*) … (.*)\)$/.exec(row.query);
    if (!was || (was[1] === span[k]?.[0] && was[2] === span[k]?.[1])) return [];
    const now = span[k]?.[1] === undefined ? 'no longer has all its rows' : `now has ${span[k][0]} … ${span[k][1]} there`;
    return [`window ${k + 1} was released as the rows ${was[1]} … ${was[2]}, but the table ${now}: rows were added or removed inside the windows released`];
  });
}

/**
 * `ledger check|show` of a series' ledger with its table: the windows released whose rows the table
 * no longer holds as they were (or why they cannot be placed), as problems.
 */
export async function releasedSpanProblems(o: WindowOptions, ledger: string, rows: readonly { query: string }[]): Promise<string[]> {
  if (!rows.length || o.data === undefined) return [];
  const w = await loadWindows(o, ledger);
  if (!w.table) return [];
  try {
    return spanProblems(rows, await windowSpans(w.table, w.lengths.slice(0, rows.length)));
  } catch (e) {
    if (e instanceof InputError) return [e.reason];
    throw e;
  }
}

/** The order values of each window's first and last rows (the windows closed: each has its rows). */
export async function windowSpans(
  table: NonNullable<Awaited<ReturnType<typeof loadWindows>>['table']>,
  lengths: readonly number[],
): Promise<[string, string][]> {
  const { orderValues } = await import('../sources/sequence.js');
  const total = lengths.reduce((a, b) => a + b, 0);
  const values = await orderValues(table.source, table.q, total, table.start ?? undefined);
  // A repeated order value has no one place among the steps (a tie at a window's end would put the
  // same day in two windows): refused, as the chain's estimate refuses it.
  const twice = values.findIndex((v, i) => i > 0 && i <= total && v === values[i - 1]);
  if (twice > 0) throw new InputError(`the order column repeats '${values[twice]}' within the series: its rows cannot be placed in windows`, '--data');
  let at = 0;
  return lengths.map((L) => {
    const span: [string, string] = [values[at], values[at + L - 1]];
    at += L;
    return span;
  });
}
