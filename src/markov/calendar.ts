import { InputError } from '../errors.js';

const DAY = 86_400_000;

/**
 * Calendar-month windows of a daily series: the lengths of the runs of one month among the first
 * `length` dates (YYYY-MM-DD, optionally with a time), which must be consecutive days: a gap or a
 * repeated date is refused, naming the flag.
 * @example monthWindows(['2015-01-30', '2015-01-31', '2015-02-01'], 3) // [2, 1]
 */
export function monthWindows(dates: readonly string[], length: number, flag = '--window'): number[] {
  if (dates.length < length) throw new InputError(`month windows need ${length} dates in the order column; it has ${dates.length}`, flag);
  const days = dates.slice(0, length).map((d) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(d);
    if (!m) throw new InputError(`month windows need dates YYYY-MM-DD in the order column; got '${d}'`, flag);
    return { month: `${m[1]}-${m[2]}`, t: Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) };
  });
  const lengths: number[] = [];
  days.forEach((d, i) => {
    if (i > 0 && d.t - days[i - 1].t !== DAY)
      throw new InputError(`month windows need one row per day: ${dates[i - 1]} is followed by ${dates[i]} (a gap or a repeated date)`, flag);
    if (i === 0 || d.month !== days[i - 1].month) lengths.push(1);
    else lengths[lengths.length - 1]++;
  });
  return lengths;
}

/**
 * `--window month | N | L1,L2,…` as window lengths tiling `length` steps (`dates` read for `month`).
 * @example parseWindows('3', 6) // [3, 3]
 */
export function parseWindows(text: string, length: number, dates?: () => Promise<string[]>): Promise<number[]> | number[] {
  const t = text.trim();
  if (t === 'month') {
    if (!dates) throw new InputError('month windows read the order column of a sequence table (--data … --sequence … --order-by DATE)', '--window');
    return dates().then((d) => monthWindows(d, length));
  }
  const parts = t.split(',').map((x) => x.trim());
  if (!parts.every((x) => /^\d+$/.test(x) && Number(x) >= 1))
    throw new InputError(`must be month, a window length N, or lengths L1,L2,… (whole numbers ≥ 1); got '${text}'`, '--window');
  const ns = parts.map(Number);
  if (ns.some((n) => n > length)) throw new InputError(`a window of ${Math.max(...ns)} steps is longer than the series (${length})`, '--window');
  if (ns.length > 1) return ns;
  if (length % ns[0] !== 0)
    throw new InputError(`windows of ${ns[0]} steps do not tile the series of ${length} (give --length a multiple, or the lengths L1,L2,…)`, '--window');
  return new Array<number>(length / ns[0]).fill(ns[0]);
}

/**
 * Checks that window lengths tile the chain's T steps, each at least 1.
 * @example checkWindows([31, 28], 59) // undefined
 */
export function checkWindows(lengths: readonly number[], T: number, flag = '--window'): void {
  if (lengths.length === 0 || !lengths.every((L) => Number.isSafeInteger(L) && L >= 1))
    throw new InputError('every window must be a whole number of steps ≥ 1', flag);
  const total = lengths.reduce((a, b) => a + b, 0);
  if (total !== T) throw new InputError(`the windows cover ${total} steps but the series has ${T}: they must tile it exactly`, flag);
}
