import { InputError } from '../errors.js';

const DAY = 86_400_000;

/** The calendar units a window may be: a month, or a week from Monday to Sunday (ISO 8601). */
export type CalendarUnit = 'month' | 'week';

/**
 * The calendar unit a `--window` text names, or null (window lengths).
 * @example calendarUnit(' week ') // 'week'
 */
export function calendarUnit(text: string): CalendarUnit | null {
  const t = text.trim();
  return t === 'month' || t === 'week' ? t : null;
}

/**
 * Calendar windows of a daily series: the lengths of the runs of one month (or one Monday-to-Sunday
 * week) among the first `length` dates (YYYY-MM-DD, optionally with a time), which must be
 * consecutive days: a gap or a repeated date is refused, naming the flag. The first and last
 * windows may be partial (a series starting on a Wednesday: a first week of five days).
 * @example calendarWindows(['2015-01-30', '2015-01-31', '2015-02-01'], 3) // [2, 1]
 * @example calendarWindows(['2015-01-03', '2015-01-04', '2015-01-05'], 3, 'week') // [2, 1] (Saturday, Sunday | Monday)
 */
export function calendarWindows(dates: readonly string[], length: number, unit: CalendarUnit = 'month', flag = '--window'): number[] {
  if (dates.length < length) throw new InputError(`${unit} windows need ${length} dates in the order column; it has ${dates.length}`, flag);
  const days = dates.slice(0, length).map((d) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(d);
    if (!m) throw new InputError(`${unit} windows need dates YYYY-MM-DD in the order column; got '${d}'`, flag);
    const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    // A week is keyed by its Monday: getUTCDay is 0 on Sunday.
    return { key: unit === 'month' ? `${m[1]}-${m[2]}` : String(t - ((new Date(t).getUTCDay() + 6) % 7) * DAY), t };
  });
  const lengths: number[] = [];
  days.forEach((d, i) => {
    if (i > 0 && d.t - days[i - 1].t !== DAY)
      throw new InputError(`${unit} windows need one row per day: ${dates[i - 1]} is followed by ${dates[i]} (a gap or a repeated date)`, flag);
    if (i === 0 || d.key !== days[i - 1].key) lengths.push(1);
    else lengths[lengths.length - 1]++;
  });
  return lengths;
}

/**
 * Each window's label: its month (YYYY-MM) or its first date for week windows, else its steps. A
 * calendar window the series covers only in part (its first or last) says how much of it it holds:
 * its count is not the whole month's or week's.
 * @example windowLabels('week', [2, 7], ['2015-01-03', '2015-01-04', '2015-01-05']) // ['2015-01-03 (2 of 7 days)', '2015-01-05']
 */
export function windowLabels(text: string, lengths: readonly number[], dates: readonly string[]): string[] {
  const unit = calendarUnit(text);
  let start = 0;
  return lengths.map((L) => {
    let label = `${start + 1}–${start + L}`;
    if (unit && dates.length) {
      label = dates[start].slice(0, unit === 'month' ? 7 : 10);
      const whole = unit === 'week' ? 7 : daysInMonth(dates[start]);
      if (L < whole) label += ` (${L} of ${whole} days)`;
    }
    start += L;
    return label;
  });
}

/**
 * The length of the window after a series' last (`--window` as typed): the month after the last
 * month's, a week, or windows of one length that length; otherwise the longest window's.
 * @example nextWindowLength('month', [31, 28], ['2015-01', '2015-02']) // 31
 */
export function nextWindowLength(text: string, lengths: readonly number[], labels: readonly string[]): number {
  const unit = calendarUnit(text);
  const last = labels[labels.length - 1] ?? '';
  if (unit === 'week') return 7;
  if (unit === 'month' && /^\d{4}-\d{2}/.test(last)) {
    const [y, m] = [Number(last.slice(0, 4)), Number(last.slice(5, 7))];
    return daysInMonth(`${m === 12 ? y + 1 : y}-${String((m % 12) + 1).padStart(2, '0')}`);
  }
  return Math.max(...lengths);
}

/** The days of the month of a date YYYY-MM-DD (day 0 of the next month is its last). */
const daysInMonth = (date: string): number => new Date(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)), 0)).getUTCDate();

/**
 * `--window month | week | N | L1,L2,…` as window lengths tiling `length` steps (`dates` read for a calendar unit).
 * @example parseWindows('3', 6) // [3, 3]
 */
export function parseWindows(text: string, length: number, dates?: () => Promise<string[]>): Promise<number[]> | number[] {
  const t = text.trim();
  const unit = calendarUnit(t);
  if (unit) {
    if (!dates) throw new InputError(`${unit} windows read the order column of a sequence table (--data … --sequence … --order-by DATE)`, '--window');
    return dates().then((d) => calendarWindows(d, length, unit));
  }
  const parts = t.split(',').map((x) => x.trim());
  if (!parts.every((x) => /^\d+$/.test(x) && Number(x) >= 1))
    throw new InputError(`must be month, week, a window length N, or lengths L1,L2,… (whole numbers ≥ 1); got '${text}'`, '--window');
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
