import { badRequest } from '../../errors.ts';
import { addDays, daysBetween, isUtcDay, utcDay } from './utc-days.ts';

export type Interval = 'day' | 'week' | 'month';

export interface Range {
  from: string;
  to: string;
}

export interface Period {
  start: string;
  /** Last day, inclusive. */
  end: string;
}

/** Longest range a query may cover, and most periods a series may have. */
export const MAX_RANGE_DAYS = 731;
const DEFAULT_RANGE_DAYS = 90;

const invalid = (name: string, message: string) =>
  badRequest('invalid_range', `${name} ${message}`, [{ path: `querystring.${name}`, message }]);

/** The range a query names: `to` defaults to today, `from` to 89 days before `to`; bad ranges → 400. */
export function resolveRange(
  query: { from?: string | undefined; to?: string | undefined },
  now: Date,
): Range {
  for (const name of ['from', 'to'] as const) {
    const value = query[name];
    if (value !== undefined && !isUtcDay(value)) throw invalid(name, 'is not a calendar day (YYYY-MM-DD)');
  }
  const to = query.to ?? utcDay(now);
  const from = query.from ?? addDays(to, -(DEFAULT_RANGE_DAYS - 1));
  if (daysBetween(from, to) < 0) throw invalid('from', 'is after to');
  if (daysBetween(from, to) >= MAX_RANGE_DAYS)
    throw invalid('to', `is more than ${MAX_RANGE_DAYS} days after from`);
  return { from, to };
}

/** First day of the period `day` falls in: itself, its week's Monday, its month's 1st. */
export function periodStart(day: string, interval: Interval): string {
  if (interval === 'day') return day;
  if (interval === 'month') return `${day.slice(0, 8)}01`;
  const weekday = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7;
  return addDays(day, -weekday);
}

function nextPeriodStart(start: string, interval: Interval): string {
  if (interval === 'day') return addDays(start, 1);
  if (interval === 'week') return addDays(start, 7);
  const date = new Date(`${start}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + 1, 1);
  return utcDay(date);
}

/** The periods covering `range`, the first and last clipped to it; one period without an interval. */
export function periodsOf(range: Range, interval: Interval | undefined): Period[] {
  if (!interval) return [{ start: range.from, end: range.to }];
  const periods: Period[] = [];
  let start = periodStart(range.from, interval);
  while (daysBetween(start, range.to) >= 0) {
    const next = nextPeriodStart(start, interval);
    const end = addDays(next, -1);
    periods.push({
      start: daysBetween(start, range.from) > 0 ? range.from : start,
      end: daysBetween(end, range.to) < 0 ? range.to : end,
    });
    start = next;
  }
  return periods;
}

/** The period of `periods` (sorted, contiguous) a day falls in. */
export function periodIndexOf(periods: readonly Period[], day: string): number {
  let low = 0;
  let high = periods.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (daysBetween(periods[middle]?.start ?? day, day) >= 0) low = middle;
    else high = middle - 1;
  }
  return low;
}
