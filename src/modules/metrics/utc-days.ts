/** UTC days as `YYYY-MM-DD` text, the way snapshots and the metrics API name them. */

export const DAY_MS = 86_400_000;

export const utcDay = (date: Date): string => date.toISOString().slice(0, 10);

/** Midnight UTC starting `day`. */
export const dayStart = (day: string): Date => new Date(`${day}T00:00:00.000Z`);

export const addDays = (day: string, days: number): string =>
  utcDay(new Date(dayStart(day).getTime() + days * DAY_MS));

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number =>
  Math.round((dayStart(to).getTime() - dayStart(from).getTime()) / DAY_MS);

/** Whether `text` is a real calendar day `YYYY-MM-DD` (not 2026-02-30). */
export function isUtcDay(text: string): boolean {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text)) return false;
  const parsed = dayStart(text);
  return !Number.isNaN(parsed.getTime()) && utcDay(parsed) === text;
}
