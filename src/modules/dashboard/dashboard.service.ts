import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { authorizeOne, whereAccessible } from '../../access/access.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB, FindingStatus, SeverityName } from '../../db/schema.ts';
import { FINDING_STATUSES, isOpenStatus, OPEN_STATUSES } from '../../domain/findings/lifecycle.ts';
import { SEVERITIES } from '../../domain/findings/severity.ts';
import { publishedOnly } from '../../domain/findings/unpublished-scans.ts';
import type { DashboardQueryInput, DashboardStats } from './dashboard.schema.ts';

const STATUSES = FINDING_STATUSES;
const DAY_MS = 86_400_000;
const TOP_APPLICATIONS = 10;

/** Which applications the numbers cover: one named application, or all the user may read. */
type Scope = { applicationId: number } | { user: UserPrincipal };

function inScope(scope: Scope, applicationIdColumn: string): Expression<SqlBool> {
  return 'applicationId' in scope
    ? sql<SqlBool>`${sql.ref(applicationIdColumn)} = ${scope.applicationId}`
    : whereAccessible(scope.user, 'application', 'read', applicationIdColumn);
}

const zeros = <K extends string>(keys: readonly K[]): Record<K, number> =>
  Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;

/**
 * Dashboard statistics over the applications the caller may read (admins: all), or over one
 * application when `applicationId` is given. Two aggregate queries (plus names of the top ten)
 * whatever the number of applications. "Open" means `open` or `confirmed`.
 */
export async function dashboardStats(
  db: Kysely<DB>,
  user: UserPrincipal,
  query: DashboardQueryInput,
  now: Date = new Date(),
): Promise<DashboardStats> {
  const scope: Scope =
    query.applicationId === undefined
      ? { user }
      : { applicationId: (await authorizeOne(db, user, 'application', query.applicationId, 'read')).id };
  // An upload merging in chunks on PGlite keeps its new findings hidden (the ledger, by itself).
  const shown = publishedOnly(db, 'findings.first_scan_id');
  const since7 = new Date(now.getTime() - 7 * DAY_MS);
  const since30 = new Date(now.getTime() - 30 * DAY_MS);

  // The matrix, risk and time to fix are sums of the finding_counts ledger (a few hundred rows at
  // any size); the time windows move with the clock, so they count findings, each through a narrow
  // index holding only the findings inside its window (dashboard-window-indexes migration).
  const [groups, counts] = await Promise.all([
    db
      .selectFrom('finding_counts')
      .select([
        'application_id',
        'severity',
        'status',
        sql<number>`sum(findings)::integer`.as('count'),
        sql<number>`sum(risk)::float8`.as('risk'),
        sql<number>`sum(fixed_timed)::integer`.as('fixed_timed'),
        sql<number>`sum(fix_seconds)::float8`.as('fix_seconds'),
      ])
      .where(inScope(scope, 'finding_counts.application_id'))
      .groupBy(['application_id', 'severity', 'status'])
      .having(sql<SqlBool>`sum(findings) <> 0`)
      .execute(),
    db
      // The 7-day windows are the newest part of the 30-day ones: one scan of each index counts both.
      .selectFrom([
        db
          .selectFrom('findings')
          .select([
            sql<number>`(count(*) filter (where first_seen_at >= ${since7}))::integer`.as('new_7'),
            sql<number>`count(*)::integer`.as('new_30'),
          ])
          .where(inScope(scope, 'findings.application_id'))
          .where((where) => where.and(shown))
          .where('first_seen_at', '>=', since30)
          .as('created'),
        db
          .selectFrom('findings')
          .select([
            sql<number>`(count(*) filter (where fixed_at >= ${since7}))::integer`.as('fixed_7'),
            sql<number>`count(*)::integer`.as('fixed_30'),
          ])
          .where(inScope(scope, 'findings.application_id'))
          .where((where) => where.and(shown))
          .where('status', '=', 'fixed')
          .where('fixed_at', '>=', since30)
          .as('fixed'),
      ])
      .select((eb) => [
        'created.new_7',
        'created.new_30',
        'fixed.fixed_7',
        'fixed.fixed_30',
        // Overdue = open findings (ledger) − open findings not yet due or with no due date. Most
        // open findings are overdue (430k of 650k at 1M seeded), so the rest is what is counted:
        // per application, each part a range of findings_overdue_idx (application_id, due_date),
        // so the overdue entries are never read. Both terms are in this one statement: one
        // snapshot, so the difference is exactly the overdue findings that snapshot holds.
        sql<number>`((${eb
          .selectFrom('finding_counts')
          .select(sql<number>`coalesce(sum(findings), 0)`.as('open'))
          .where(inScope(scope, 'finding_counts.application_id'))
          .where('finding_counts.status', 'in', OPEN_STATUSES)}) - (${eb
          .selectFrom('applications as scoped')
          .select((inner) => {
            const openOfApplication = () =>
              inner
                .selectFrom('findings')
                .select(sql<number>`count(*)`.as('count'))
                .whereRef('findings.application_id', '=', 'scoped.id')
                .where('findings.status', 'in', OPEN_STATUSES)
                // The ledger leaves out findings of an upload still merging; so must what it loses.
                .where((where) => where.and(shown));
            const notYetDue = openOfApplication().where('findings.due_date', '>=', now);
            const noDueDate = openOfApplication().where('findings.due_date', 'is', null);
            return sql<number>`coalesce(sum((${notYetDue}) + (${noDueDate})), 0)`.as('not_overdue');
          })
          .where(inScope(scope, 'scoped.id'))}))::integer`.as('overdue'),
        eb
          .selectFrom('scans')
          .select(sql<number>`count(*)::integer`.as('count'))
          .where(inScope(scope, 'scans.application_id'))
          .where('scans.created_at', '>=', since30)
          .as('scans_30'),
        eb
          .selectFrom('applications as counted')
          .select(sql<number>`count(*)::integer`.as('count'))
          .where(inScope(scope, 'counted.id'))
          .as('applications'),
      ])
      .executeTakeFirstOrThrow(),
  ]);

  const matrix = Object.fromEntries(SEVERITIES.map((severity) => [severity, zeros(STATUSES)])) as Record<
    SeverityName,
    Record<FindingStatus, number>
  >;
  let fixedTimed = 0;
  let fixSeconds = 0;
  const openByApplication = new Map<number, { open_findings: number; open_risk: number }>();
  for (const group of groups) {
    matrix[group.severity][group.status] += group.count;
    fixedTimed += group.fixed_timed;
    fixSeconds += Number(group.fix_seconds);
    if (isOpenStatus(group.status)) {
      const app = openByApplication.get(group.application_id) ?? { open_findings: 0, open_risk: 0 };
      app.open_findings += group.count;
      app.open_risk += Number(group.risk);
      openByApplication.set(group.application_id, app);
    }
  }
  const ranked = [...openByApplication.entries()]
    .sort(([idA, a], [idB, b]) => b.open_risk - a.open_risk || b.open_findings - a.open_findings || idA - idB)
    .slice(0, TOP_APPLICATIONS);
  const names = ranked.length
    ? await db
        .selectFrom('applications')
        .select(['id', 'name', 'slug'])
        .where(
          'id',
          'in',
          ranked.map(([id]) => id),
        )
        .execute()
    : [];
  const top = ranked.map(([id, totalsOfApp]) => {
    const app = names.find((candidate) => candidate.id === id);
    return { id, name: app?.name ?? '', slug: app?.slug ?? '', ...totalsOfApp };
  });
  const mttf = fixedTimed > 0 ? Math.round((fixSeconds / fixedTimed / 86_400) * 100) / 100 : null;

  const openBySeverity = zeros(SEVERITIES);
  const totals = { findings: 0, open: 0, fixed: 0, false_positive: 0 };
  for (const severity of SEVERITIES) {
    const { open, confirmed, fixed, false_positive } = matrix[severity];
    openBySeverity[severity] = open + confirmed;
    totals.findings += open + confirmed + fixed + false_positive;
    totals.open += open + confirmed;
    totals.fixed += fixed;
    totals.false_positive += false_positive;
  }

  return {
    by_severity_status: matrix,
    open_by_severity: openBySeverity,
    totals,
    new_last_7_days: counts.new_7 ?? 0,
    new_last_30_days: counts.new_30 ?? 0,
    fixed_last_7_days: counts.fixed_7 ?? 0,
    fixed_last_30_days: counts.fixed_30 ?? 0,
    mean_time_to_fix_days: mttf,
    overdue: counts.overdue ?? 0,
    top_applications: top,
    scans_last_30_days: counts.scans_30 ?? 0,
    applications: counts.applications ?? 0,
  };
}
