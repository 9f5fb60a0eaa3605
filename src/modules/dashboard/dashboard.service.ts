import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { authorizeOne, whereAccessible } from '../../access/access.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB, FindingStatus, SeverityName } from '../../db/schema.ts';
import { concernSql } from '../../domain/findings/concern-sql.ts';
import type { ConcernFilter } from '../../domain/findings/concern.ts';
import { FINDING_STATUSES, isOpenStatus, OPEN_STATUSES } from '../../domain/findings/lifecycle.ts';
import { SEVERITIES } from '../../domain/findings/severity.ts';
import { countOpenByDueDateSql } from '../../domain/findings/sla.ts';
import { publishedOnly } from '../../domain/findings/unpublished-scans.ts';
import type { DashboardQueryInput, DashboardStats } from './dashboard.schema.ts';

const STATUSES = FINDING_STATUSES;
const DAY_MS = 86_400_000;
const TOP_APPLICATIONS = 10;

/**
 * Which applications the numbers cover (one named application, or all the user may read), and which
 * findings: security results only unless asked for (domain/findings/concern.ts).
 */
type Scope = ({ applicationId: number } | { user: UserPrincipal }) & { concern: ConcernFilter };

function inScope(scope: Scope, applicationIdColumn: string): Expression<SqlBool> {
  return 'applicationId' in scope
    ? sql<SqlBool>`${sql.ref(applicationIdColumn)} = ${scope.applicationId}`
    : whereAccessible(scope.user, 'application', 'read', applicationIdColumn);
}

/** The UTC day of `at` (YYYY-MM-DD), as `finding_day_counts.day` holds it. */
const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The start of the UTC day after the one `at` is in: where a window's first, partial day ends. */
const nextUtcDay = (at: Date): Date =>
  new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));

interface Windows {
  new_7: number;
  new_30: number;
  fixed_7: number;
  fixed_30: number;
  /** Open findings (ledger) − open findings not yet due or without a due date: the overdue ones. */
  overdue: number;
  scans_30: number;
  applications: number;
}

/** Open findings in scope, from the `finding_counts` ledger (a scalar subquery). */
function openInLedger(db: Kysely<DB>, scope: Scope) {
  return db
    .selectFrom('finding_counts')
    .select(sql<number>`coalesce(sum(findings), 0)`.as('open'))
    .where(inScope(scope, 'finding_counts.application_id'))
    .where(concernSql(scope.concern, 'finding_counts.concern'))
    .where('finding_counts.status', 'in', OPEN_STATUSES);
}

/** Scans created in the last 30 days and applications in scope (scalar subqueries). */
function scansAndApplications(db: Kysely<DB>, scope: Scope, since30: Date) {
  return [
    db
      .selectFrom('scans')
      .select(sql<number>`count(*)::integer`.as('count'))
      .where(inScope(scope, 'scans.application_id'))
      .where('scans.created_at', '>=', since30)
      .as('scans_30'),
    db
      .selectFrom('applications as counted')
      .select(sql<number>`count(*)::integer`.as('count'))
      .where(inScope(scope, 'counted.id'))
      .as('applications'),
  ] as const;
}

/**
 * The windows in one statement (one snapshot): each is the sum of its whole UTC days in the
 * `finding_day_counts` ledger (days after the one the window starts in) plus an exact count of the
 * findings from its start to the end of that first day, through the index the whole window was
 * counted with before (findings_first_seen_idx, findings_fixed_at_idx, findings_overdue_idx per
 * application). At 10M findings that reads 1/365 of a year's findings instead of 30 days of them.
 * Only when no merge hides findings (the ledger counts them at once).
 */
function windowsFromLedger(db: Kysely<DB>, scope: Scope, now: Date): Promise<Windows> {
  const since7 = new Date(now.getTime() - 7 * DAY_MS);
  const since30 = new Date(now.getTime() - 30 * DAY_MS);
  const days = (measure: 'seen' | 'fixed' | 'due', after: Date | null) =>
    db
      .selectFrom('finding_day_counts')
      .select(sql<number>`coalesce(sum(findings), 0)`.as('findings'))
      .where(inScope(scope, 'finding_day_counts.application_id'))
      .where(concernSql(scope.concern, 'finding_day_counts.concern'))
      .where('measure', '=', measure)
      .where((eb) => (after ? eb('day', '>', utcDay(after)) : eb('day', 'is', null)));
  const firstSeenIn = (from: Date) =>
    db
      .selectFrom('findings')
      .select(sql<number>`count(*)`.as('findings'))
      .where(inScope(scope, 'findings.application_id'))
      .where(concernSql(scope.concern, 'findings.concern'))
      .where('first_seen_at', '>=', from)
      .where('first_seen_at', '<', nextUtcDay(from));
  const fixedIn = (from: Date) =>
    db
      .selectFrom('findings')
      .select(sql<number>`count(*)`.as('findings'))
      .where(inScope(scope, 'findings.application_id'))
      .where(concernSql(scope.concern, 'findings.concern'))
      .where('status', '=', 'fixed')
      .where('fixed_at', '>=', from)
      .where('fixed_at', '<', nextUtcDay(from));
  // Open findings due (the due date in force) from now to the end of today, per application: a
  // range of findings_overdue_idx (application_id, due_date) and one of the overlay's index each.
  const dueToday = db
    .selectFrom('applications as scoped')
    .select(() => {
      const dueOfApplication = countOpenByDueDateSql(
        sql.ref('scoped.id'),
        (due) => sql<SqlBool>`${due} >= ${now} and ${due} < ${nextUtcDay(now)}`,
        concernSql(scope.concern, 'findings.concern'),
      );
      return sql<number>`coalesce(sum(${dueOfApplication}), 0)`.as('due_today');
    })
    .where(inScope(scope, 'scoped.id'));
  const window = (ledger: ReturnType<typeof days>, partial: ReturnType<typeof firstSeenIn>) =>
    sql<number>`((${ledger}) + (${partial}))::integer`;
  return db
    .selectNoFrom([
      window(days('seen', since7), firstSeenIn(since7)).as('new_7'),
      window(days('seen', since30), firstSeenIn(since30)).as('new_30'),
      window(days('fixed', since7), fixedIn(since7)).as('fixed_7'),
      window(days('fixed', since30), fixedIn(since30)).as('fixed_30'),
      sql<number>`((${openInLedger(db, scope)}) - (${days('due', now)}) - (${days('due', null)})
        - (${dueToday}))::integer`.as('overdue'),
      ...scansAndApplications(db, scope, since30),
    ])
    .executeTakeFirstOrThrow() as Promise<Windows>;
}

/** The windows counted from the findings, leaving out those a merge still hides (PGlite). */
function windowsCounted(
  db: Kysely<DB>,
  scope: Scope,
  shown: Expression<SqlBool>[],
  now: Date,
): Promise<Windows> {
  const since7 = new Date(now.getTime() - 7 * DAY_MS);
  const since30 = new Date(now.getTime() - 30 * DAY_MS);
  return (
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
          .where(concernSql(scope.concern, 'findings.concern'))
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
          .where(concernSql(scope.concern, 'findings.concern'))
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
        // Overdue = open findings (ledger) − open findings not yet due or with no due date, per
        // application, each part a range of findings_overdue_idx (application_id, due_date). Both
        // terms are in this one statement: one snapshot.
        sql<number>`((${openInLedger(db, scope)}) - (${eb
          .selectFrom('applications as scoped')
          .select(() => {
            // By the due date in force (domain/findings/sla.ts). The ledger leaves out findings of
            // an upload still merging; so must what it loses.
            const where = sql<SqlBool>`${concernSql(scope.concern, 'findings.concern')} and ${
              shown.length > 0 ? sql.join(shown, sql` and `) : sql`true`
            }`;
            const notYetDue = countOpenByDueDateSql(
              sql.ref('scoped.id'),
              (due) => sql<SqlBool>`${due} >= ${now}`,
              where,
            );
            const noDueDate = countOpenByDueDateSql(
              sql.ref('scoped.id'),
              (due) => sql<SqlBool>`${due} is null`,
              where,
            );
            return sql<number>`coalesce(sum(${notYetDue} + ${noDueDate}), 0)`.as('not_overdue');
          })
          .where(inScope(scope, 'scoped.id'))}))::integer`.as('overdue'),
        ...scansAndApplications(db, scope, since30),
      ])
      .executeTakeFirstOrThrow() as Promise<Windows>
  );
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
  const concern = query.concern ?? 'security';
  const scope: Scope =
    query.applicationId === undefined
      ? { user, concern }
      : {
          applicationId: (await authorizeOne(db, user, 'application', query.applicationId, 'read')).id,
          concern,
        };
  // An upload merging in chunks on PGlite keeps its new findings hidden (the ledger, by itself).
  const shown = publishedOnly(db, 'findings.first_scan_id');

  // The matrix, risk and time to fix are sums of the finding_counts ledger (a few hundred rows at
  // any size); the time windows move with the clock: sums of whole days from the finding_day_counts
  // ledger plus the findings of each window's first, partial day (windowsFromLedger).
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
      .where(concernSql(scope.concern, 'finding_counts.concern'))
      .groupBy(['application_id', 'severity', 'status'])
      .having(sql<SqlBool>`sum(findings) <> 0`)
      .execute(),
    shown.length === 0 ? windowsFromLedger(db, scope, now) : windowsCounted(db, scope, shown, now),
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
    concern,
  };
}
