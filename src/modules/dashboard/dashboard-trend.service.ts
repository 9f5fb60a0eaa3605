import { sql, type Kysely } from 'kysely';
import { authorizeOne, whereAccessible } from '../../access/access.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { concernSql } from '../../domain/findings/concern-sql.ts';
import { publishedOnly } from '../../domain/findings/unpublished-scans.ts';
import type { DashboardTrend, DashboardTrendQueryInput } from './dashboard.schema.ts';

const DAY_MS = 86_400_000;

const utcDay = (date: Date): string => date.toISOString().slice(0, 10);

/**
 * New and fixed findings per UTC day over the last `days` days (today included), over the
 * applications the caller may read or the one named; security findings unless `concern` says
 * otherwise (domain/findings/concern.ts). Two grouped queries whatever the range.
 */
export async function dashboardTrend(
  db: Kysely<DB>,
  user: UserPrincipal,
  query: DashboardTrendQueryInput,
  now: Date = new Date(),
): Promise<DashboardTrend> {
  const days = query.days ?? 30;
  const concern = query.concern ?? 'security';
  const scope =
    query.applicationId === undefined
      ? whereAccessible(user, 'application', 'read', 'findings.application_id')
      : sql<boolean>`findings.application_id = ${(await authorizeOne(db, user, 'application', query.applicationId, 'read')).id}`;
  const shown = publishedOnly(db, 'findings.first_scan_id');
  const first = new Date(Date.parse(utcDay(now)) - (days - 1) * DAY_MS);

  const [created, fixed] = await Promise.all([
    db
      .selectFrom('findings')
      .select([
        sql<string>`to_char(first_seen_at at time zone 'UTC', 'YYYY-MM-DD')`.as('day'),
        sql<number>`count(*)::integer`.as('count'),
      ])
      .where(scope)
      .where(concernSql(concern, 'findings.concern'))
      .where((eb) => eb.and(shown))
      .where('first_seen_at', '>=', first)
      .groupBy(sql`1`)
      .execute(),
    db
      .selectFrom('findings')
      .select([
        sql<string>`to_char(fixed_at at time zone 'UTC', 'YYYY-MM-DD')`.as('day'),
        sql<number>`count(*)::integer`.as('count'),
      ])
      .where(scope)
      .where(concernSql(concern, 'findings.concern'))
      .where((eb) => eb.and(shown))
      .where('status', '=', 'fixed')
      .where('fixed_at', '>=', first)
      .groupBy(sql`1`)
      .execute(),
  ]);
  const newByDay = new Map(created.map((row) => [row.day, row.count]));
  const fixedByDay = new Map(fixed.map((row) => [row.day, row.count]));
  return {
    concern,
    days: Array.from({ length: days }, (_, index) => {
      const date = utcDay(new Date(first.getTime() + index * DAY_MS));
      return { date, new: newByDay.get(date) ?? 0, fixed: fixedByDay.get(date) ?? 0 };
    }),
  };
}
