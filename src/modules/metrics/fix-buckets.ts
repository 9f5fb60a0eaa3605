import { sql, type RawBuilder } from 'kysely';

/**
 * Days to fix are kept in buckets, so a day of fixes over every application is a few hundred rows
 * whatever their number: whole days below 31 (medians of fast fixes are exact to the day), weeks up
 * to 90 days, 30-day steps up to a year, then one bucket for a year or more. A bucket is named by its
 * lower bound; a median reads as "at least that many days".
 */
export function fixDaysBucket(days: number): number {
  const whole = Math.max(0, Math.floor(days));
  if (whole < 31) return whole;
  if (whole < 91) return 31 + 7 * Math.floor((whole - 31) / 7);
  if (whole < 366) return 91 + 30 * Math.floor((whole - 91) / 30);
  return 366;
}

/** SQL of `fixDaysBucket` for whole days in `days` (an integer expression). */
export function fixDaysBucketSql(days: RawBuilder<number>): RawBuilder<number> {
  return sql<number>`(case
    when ${days} < 31 then greatest(${days}, 0)
    when ${days} < 91 then 31 + 7 * ((${days} - 31) / 7)
    when ${days} < 366 then 91 + 30 * ((${days} - 91) / 30)
    else 366 end)`;
}

/**
 * The lower median of bucketed fixes: the first bucket (ascending) where the running count reaches
 * half. Null without fixes.
 */
export function medianBucket(buckets: readonly { fix_days: number; fixed: number }[]): number | null {
  const total = buckets.reduce((sum, bucket) => sum + bucket.fixed, 0);
  if (total === 0) return null;
  let seen = 0;
  for (const bucket of [...buckets].sort((a, b) => a.fix_days - b.fix_days)) {
    seen += bucket.fixed;
    if (seen * 2 >= total) return bucket.fix_days;
  }
  return null;
}
