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
 * The `length` consecutive days from `first` (YYYY-MM-DD, optionally with a time), as YYYY-MM-DD:
 * a daily series' calendar, known before its rows are in the table.
 * @example calendarDays('2015-02-27', 3) // ['2015-02-27', '2015-02-28', '2015-03-01']
 */
export function calendarDays(first: string, length: number, unit: CalendarUnit = 'month', flag = '--window'): string[] {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(first);
  // setUTCFullYear takes years below 100 as they are (Date.UTC would read 0001 as 1901).
  const t = m ? new Date(0).setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  // A day that rolls over (2015-02-30 to March) does not round-trip: it is not a date.
  if (!m || new Date(t).toISOString().slice(0, 10) !== first.slice(0, 10))
    throw new InputError(`${unit} windows need dates YYYY-MM-DD in the order column; got '${first}'`, flag);
  const days = Array.from({ length }, (_, i) => new Date(t + i * DAY).toISOString().slice(0, 10));
  if (!/^\d{4}-/.test(days[days.length - 1] ?? ''))
    throw new InputError(`a series of ${length} days from ${first.slice(0, 10)} runs past the year 9999`, flag === '--window' ? '--length' : flag);
  return days;
}

/**
 * Checks a daily series' rows present so far (their order values, in order) against its calendar:
 * row i must fall on day i. A gap or a repeated date is refused, naming the flag.
 * @example checkDays(['2015-01-01', '2015-01-02'], calendarDays('2015-01-01', 31)) // undefined
 */
export function checkDays(present: readonly string[], days: readonly string[], unit: CalendarUnit = 'month', flag = '--window'): void {
  const n = Math.min(present.length, days.length);
  for (let i = 0; i < n; i++) {
    if (present[i].slice(0, 10) === days[i]) continue;
    throw new InputError(
      i === 0
        ? `the series starts on ${days[0]} but its first row is ${present[0]}`
        : `${unit} windows need one row per day: ${present[i - 1]} is followed by ${present[i]} (a gap or a repeated date)`,
      i === 0 ? '--start' : flag,
    );
  }
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
 * `--window month | week | N | L1,L2,…` as window lengths tiling `length` steps, with their labels.
 * A calendar unit reads the dates present so far (`dates`: the order values from the series' first
 * row on) and lays the windows on the calendar from `start` (default: the first date present), so
 * a series whose later days are not in the table yet has its windows all the same; the days present
 * must be the calendar's, one row per day.
 * @example (await seriesWindows('3', 6)).lengths // [3, 3]
 * @example (await seriesWindows('month', 40, () => ['2015-01-30'])).labels // ['2015-01 (2 of 31 days)', '2015-02', '2015-03 (10 of 31 days)']
 */
export async function seriesWindows(
  text: string,
  length: number,
  dates?: () => Promise<string[]> | string[],
  start?: string,
): Promise<{ lengths: number[]; labels: string[]; firstDay: string | null }> {
  const unit = calendarUnit(text);
  if (!unit) {
    const lengths = parseLengths(text, length);
    return { lengths, labels: windowLabels(text, lengths, []), firstDay: null };
  }
  if (!dates) throw new InputError(`${unit} windows read the order column of a sequence table (--data … --sequence … --order-by DATE)`, '--window');
  const present = await dates();
  if (start === undefined && present.length === 0) throw new InputError(`${unit} windows need dates YYYY-MM-DD in the order column; it has none`, '--window');
  const days = calendarDays(start ?? present[0], length, unit, start === undefined ? '--window' : '--start');
  checkDays(present.slice(0, length), days, unit);
  const lengths = calendarWindows(days, length, unit);
  return { lengths, labels: windowLabels(text, lengths, days), firstDay: days[0] };
}

/** Window lengths `N` or `L1,L2,…` tiling `length` steps. */
function parseLengths(text: string, length: number): number[] {
  const parts = text
    .trim()
    .split(',')
    .map((x) => x.trim());
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

/** A series given a start begins there: its first row from there on has that order value (a date matches its day). */
export function startsAt(first: readonly string[], start: string): void {
  // A date matches its day (a DATE column reads '2015-01-01 12:00' as that day); anything else exactly.
  const day = (v: string) => (/^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : v);
  if (first.length > 0 && first[0] !== start && day(first[0]) !== day(start))
    throw new InputError(`the series starts at '${start}' but the first row from there is '${first[0]}'`, '--start');
}
