import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { OPEN_STATUSES } from './lifecycle.ts';
import { SLA_DAYS } from './risk.ts';
import { SEVERITIES, type Severity } from './severity.ts';
import type { Concern } from './concern.ts';

/**
 * SLA due dates (docs/architecture.md, "SLA and due dates"): the one place that says when a finding
 * is due. A finding whose due date comes from its SLA (`due_date_source = 'sla'`) is due at
 *
 *     first seen + days of its severity (each 24 hours) + seconds its clock was paused
 *
 * where the days come from its application's SLA configuration (the application's own, else its
 * group's, else the nearest ancestor group's by path, else the default), and a severity the
 * configuration does not enforce has no due date. The clock pauses while the finding is dismissed
 * (`false_positive`, which an accepted risk is: DESIGN.md §9) and runs again when it is reopened.
 * Due dates are frozen once a finding is closed: a fixed finding keeps the due date it had when it
 * was fixed, so "fixed within SLA" is `fixed_at <= due_date`.
 *
 * The TypeScript (`slaDueDate`) and the SQL (`slaDueDateSql`) are side by side and proven equal by
 * test/findings/sla.test.ts ("due dates: TypeScript and SQL agree"; the KEV rule by
 * test/enrichment/enrichment-sql.test.ts). A later rule (a KEV due date when earlier) composes by wrapping
 * `slaDueDateSql`'s result (`least(<sla due date>, <kev due date>)`) where it is used: the insert
 * (ingest/merge/insert.ts and ingest/finding-copy-rows.ts) and `recomputeDueDates` below.
 */

/** Days to fix per severity; null: the severity is not enforced (no due date). */
export type SlaDays = Readonly<Record<Severity, number | null>>;

/** The built-in table (risk.ts), which the default configuration reproduces. */
export const BUILT_IN_SLA_DAYS: SlaDays = { ...SLA_DAYS };

/** `sla=due_soon`: open findings due within this many days (not yet breached). */
export const DUE_SOON_DAYS = 7;

const DAY_MS = 86_400_000;

/** The columns of an `sla_configurations` row that say its days. */
export interface SlaConfigurationDays {
  critical_days: number;
  high_days: number;
  medium_days: number;
  low_days: number;
  info_days: number;
  critical_enforced: boolean;
  high_enforced: boolean;
  medium_enforced: boolean;
  low_enforced: boolean;
  info_enforced: boolean;
}

/** A configuration row's days, null where a severity is not enforced. */
export function slaDaysOf(row: SlaConfigurationDays): SlaDays {
  const days = (severity: Severity) => (row[`${severity}_enforced`] ? row[`${severity}_days`] : null);
  return Object.fromEntries(SEVERITIES.map((severity) => [severity, days(severity)])) as Record<
    Severity,
    number | null
  >;
}

export interface SlaDueDateInput {
  severity: Severity;
  /** A code-quality finding has no SLA (domain/findings/concern.ts); absent: security. */
  concern?: Concern;
  firstSeenAt: Date;
  /** Seconds the clock was paused (whole seconds, as stored). */
  pausedSeconds: number;
  days: SlaDays;
}

/** When a finding is due by its SLA, or null when its severity is not enforced. */
export function slaDueDate(input: SlaDueDateInput): Date | null {
  if (input.concern === 'quality') return null;
  const days = input.days[input.severity];
  if (days === null) return null;
  return new Date(input.firstSeenAt.getTime() + days * DAY_MS + input.pausedSeconds * 1000);
}

type SqlText = Expression<string> | RawBuilder<string>;
type SqlDate = Expression<Date> | RawBuilder<Date>;
type SqlNumber = Expression<number> | RawBuilder<number>;

/** Days of a severity column, as SQL: from a known table (one application) or from a configuration row's columns. */
export type SlaDaysSql = (severity: SqlText) => RawBuilder<number | null>;

/** Days from a table known in TypeScript (an upload's application), as literals. */
export const slaDaysLiteralSql =
  (days: SlaDays): SlaDaysSql =>
  (severity) => {
    const arms = SEVERITIES.map(
      (name) =>
        sql`when ${sql.lit(name)} then ${days[name] === null ? sql`null::integer` : sql.lit(days[name])}`,
    );
    return sql<number | null>`(case ${severity} ${sql.join(arms, sql` `)} end)`;
  };

/** Days from the columns of a configuration row aliased `alias`. */
export const slaDaysColumnsSql =
  (alias: string): SlaDaysSql =>
  (severity) => {
    const arms = SEVERITIES.map(
      (name) =>
        sql`when ${sql.lit(name)} then case when ${sql.ref(`${alias}.${name}_enforced`)} then ${sql.ref(`${alias}.${name}_days`)} end`,
    );
    return sql<number | null>`(case ${severity} ${sql.join(arms, sql` `)} end)`;
  };

/** `slaDueDate` in SQL (null when the severity is not enforced). */
export function slaDueDateSql(parts: {
  severity: SqlText;
  /** The finding's concern: a code-quality finding has no SLA due date. */
  concern: SqlText;
  firstSeenAt: SqlDate;
  pausedSeconds: SqlNumber;
  days: SlaDaysSql;
}): RawBuilder<Date | null> {
  return sql<Date | null>`(case when ${parts.concern} = 'quality' then null::timestamptz
    else ${parts.firstSeenAt} + make_interval(hours => 24 * ${parts.days(parts.severity)})
      + make_interval(secs => ${parts.pausedSeconds}) end)`;
}

/**
 * The KEV rule (issue 45): a CISA `dueDate` earlier than the SLA's due date becomes the due date,
 * unless `enrichment_settings.kev_due_dates` is off. CISA names a day: the finding is due at its end
 * (23:59:59 UTC). A finding whose severity has no SLA still gets the KEV date.
 */
export function kevDueDate(slaDue: Date | null, kevDueDay: string | null, enabled: boolean): Date | null {
  if (!enabled || kevDueDay === null) return slaDue;
  const kev = new Date(`${kevDueDay}T23:59:59Z`);
  return slaDue === null || kev < slaDue ? kev : slaDue;
}

/** `kevDueDate` in SQL, the setting read from `enrichment_settings` (proven equal in test/enrichment/enrichment-sql.test.ts). */
export function kevDueDateSql(
  slaDue: RawBuilder<Date | null>,
  kevDueDay: Expression<string | null> | RawBuilder<string | null>,
  enabled: RawBuilder<boolean> = sql<boolean>`coalesce((select s.kev_due_dates from enrichment_settings s), true)`,
): RawBuilder<Date | null> {
  return sql<Date | null>`(case when ${enabled} and ${kevDueDay} is not null
    then least(${slaDue}, (${kevDueDay} || 'T23:59:59Z')::timestamptz) else ${slaDue} end)`;
}

/**
 * The SLA configuration id of the application row aliased `app` (its group aliased `g`): its own,
 * else that of the group or its nearest ancestor (group paths nest by `/`: `a/b` is inside `a`),
 * else the default.
 */
export const effectiveConfigurationIdSql = sql<number>`coalesce(
  app.sla_configuration_id,
  (select anc.sla_configuration_id from groups anc
    where anc.sla_configuration_id is not null and (anc.id = g.id or starts_with(g.path, anc.path || '/'))
    order by length(anc.path) desc limit 1),
  (select d.id from sla_configurations d where d.is_default))`;

/** The SLA days in force for one application (its own, its groups', or the default). */
export async function slaDaysForApplication(
  executor: Kysely<DB> | Transaction<DB>,
  applicationId: number,
): Promise<SlaDays> {
  const { rows } = await sql<SlaConfigurationDays>`
    select c.* from applications app
    join groups g on g.id = app.group_id
    join sla_configurations c on c.id = ${effectiveConfigurationIdSql}
    where app.id = ${applicationId}`.execute(executor);
  const row = rows[0];
  return row ? slaDaysOf(row) : BUILT_IN_SLA_DAYS;
}

/** Which applications' due dates a change touches. */
export type SlaScope =
  | { applicationIds: readonly number[] }
  /** Every application whose configuration in force is this one. */
  | { configurationId: number }
  /** Every application of this group and of the groups inside it. */
  | { groupId: number }
  | 'all';

function scopeSql(scope: SlaScope): Expression<SqlBool> {
  if (scope === 'all') return sql<SqlBool>`true`;
  if ('applicationIds' in scope) {
    return sql<SqlBool>`app.id in (select json_array_elements_text(${JSON.stringify(scope.applicationIds)}::json)::integer)`;
  }
  if ('configurationId' in scope) return sql<SqlBool>`c.id = ${scope.configurationId}`;
  return sql<SqlBool>`(g.id = ${scope.groupId} or starts_with(g.path,
    (select sg.path from groups sg where sg.id = ${scope.groupId}) || '/'))`;
}

const OPEN = sql.join(OPEN_STATUSES.map((status) => sql.lit(status)));

/**
 * The due date in force of the finding aliased `finding`, whose overlay row (`finding_sla_due`,
 * migration 2026-11-30T1000) is left-joined as `overlay`: the one expression every reader of due
 * dates goes through. A recompute moves an open finding's SLA due date into the overlay; where it
 * has no row, `findings.due_date` is right.
 */
export function effectiveDueDateSql(finding: string, overlay: string): RawBuilder<Date | null> {
  return sql<Date | null>`(case when ${sql.ref(`${overlay}.finding_id`)} is null
    then ${sql.ref(`${finding}.due_date`)} else ${sql.ref(`${overlay}.due_date`)} end)`;
}

/** `left join finding_sla_due <overlay> on <overlay>.finding_id = <finding>.id`, for `effectiveDueDateSql`. */
export function joinSlaDueSql(finding: string, overlay: string): RawBuilder<unknown> {
  return sql`left join finding_sla_due ${sql.id(overlay)} on ${sql.ref(`${overlay}.finding_id`)} = ${sql.ref(`${finding}.id`)}`;
}

/** `effectiveDueDateSql` where no join can be added (a condition, a select list): one key lookup. */
export function effectiveDueDateOfSql(finding: string): RawBuilder<Date | null> {
  return sql<Date | null>`(select ${effectiveDueDateSql(finding, 'sla_due')}
    from (values (1)) as one (x) ${joinSlaDueSql(finding, 'sla_due')})`;
}

/**
 * Recomputes, in one statement, the due dates of the open findings of `scope` whose due date comes
 * from their SLA; closed findings keep theirs (frozen when closed), dismissed ones are recomputed
 * when reopened (`resumeSlaClock`), manual ones are left as set. Returns how many changed.
 *
 * Findings are read, not written (docs/architecture.md, "Recomputing at 1M findings"): a moved due
 * date goes into the overlay `finding_sla_due` (inserted or updated by its key; a row whose date
 * comes back to `findings.due_date` is updated, not deleted: no statement here joins the overlay as
 * anything but the inner side of the findings' left join, so no plan depends on its statistics,
 * which lag behind a table that fills and empties in bulk), and the day ledger's `due` counts (migration
 * 2026-11-29T1300) get the deltas the findings' own statement trigger would have appended. A
 * finding whose due date in force is right is not touched: a second run writes nothing.
 */
export async function recomputeDueDates(
  executor: Kysely<DB> | Transaction<DB>,
  scope: SlaScope,
  // The findings are not written, so their `updated_at` does not move: kept for the callers' clock.
  _now: Date = new Date(),
  /** `held`: the caller's transaction took the scope's locks (`lockSlaDueBuckets`); else waited for here. */
  locks: 'wait' | 'held' = 'wait',
): Promise<number> {
  if (locks === 'wait') {
    await sql`select count(pg_advisory_xact_lock(${SLA_DUE_LOCK_CLASS}, k)) from (
        select distinct app.id % ${SLA_DUE_LOCK_BUCKETS} as k from applications app
        join groups g on g.id = app.group_id
        join sla_configurations c on c.id = ${effectiveConfigurationIdSql}
        where ${scopeSql(scope)} order by 1) keys`.execute(executor);
  }
  const due = kevDueDateSql(
    slaDueDateSql({
      severity: sql.ref('f.severity'),
      concern: sql.ref('f.concern'),
      firstSeenAt: sql.ref('f.first_seen_at'),
      pausedSeconds: sql.ref('f.sla_paused_seconds'),
      days: slaDaysColumnsSql('e'),
    }),
    sql.ref('f.kev_due_date'),
  );
  const before = effectiveDueDateSql('f', 'o');
  const day = (column: string) => sql`(${sql.ref(column)} at time zone 'UTC')::date`;
  const { rows } = await sql<{ changed: number }>`
    with moved as (
      select f.id, f.application_id, f.concern, f.due_date as stale, ${before} as before, ${due} as after
      from findings f
      join (select app.id as application_id, c.*
            from applications app
            join groups g on g.id = app.group_id
            join sla_configurations c on c.id = ${effectiveConfigurationIdSql}
            where ${scopeSql(scope)}) e on e.application_id = f.application_id
      ${joinSlaDueSql('f', 'o')}
      where f.status in (${OPEN}) and f.due_date_source = 'sla'
        and ${before} is distinct from ${due}
    ), kept as (
      insert into finding_sla_due (finding_id, application_id, due_date)
      select id, application_id, after from moved
      on conflict (finding_id) do update set due_date = excluded.due_date
    ), counted as (
      insert into finding_day_counts (application_id, concern, measure, day, findings)
      select application_id, concern, 'due', day, sum(findings) from (
        select application_id, concern, ${day('before')} as day, -1 as findings from moved
        union all
        select application_id, concern, ${day('after')}, 1 from moved
      ) d
      group by application_id, concern, day having sum(findings) <> 0
    )
    -- Data-modifying parts of a WITH run to completion whether or not they are read.
    select count(*)::integer as changed from moved`.execute(executor);
  return rows[0]?.changed ?? 0;
}

/** The due dates in force of findings (`effectiveDueDateSql`), by id. */
export async function dueDatesInForce(
  executor: Kysely<DB> | Transaction<DB>,
  findingIds: readonly number[],
): Promise<Map<number, Date | null>> {
  if (findingIds.length === 0) return new Map();
  const { rows } = await sql<{ id: number; due_date: Date | null }>`
    select f.id, ${effectiveDueDateSql('f', 'o')} as due_date from findings f ${joinSlaDueSql('f', 'o')}
    where f.id in (select json_array_elements_text(${JSON.stringify(findingIds)}::json)::integer)`.execute(
    executor,
  );
  return new Map(rows.map((row) => [row.id, row.due_date === null ? null : new Date(row.due_date)]));
}

/** The applications of `scope` (resolved now: a configuration's applications are those it governs now), by id. */
export async function applicationsInScope(
  executor: Kysely<DB> | Transaction<DB>,
  scope: SlaScope,
): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    select app.id from applications app
    join groups g on g.id = app.group_id
    join sla_configurations c on c.id = ${effectiveConfigurationIdSql}
    where ${scopeSql(scope)} order by app.id`.execute(executor);
  return rows.map((row) => row.id);
}

/**
 * The advisory lock a recompute and the writers of due dates meet on (migration 2026-11-30T1000): the
 * recompute reads findings without locking them, so a writer (its trigger) takes its application's
 * bucket shared and a recompute takes its applications' buckets exclusively before it reads. A
 * writer's change is then committed before a recompute reads the finding, or waits for the
 * recompute's commit and finds its overlay row.
 */
const SLA_DUE_LOCK_CLASS = 47001;
const SLA_DUE_LOCK_BUCKETS = 1024;

/**
 * Takes the buckets of `applicationIds` exclusively, in order: `try` takes what it can and says
 * whether it got all (a writer holding one is not waited for, so a recompute never waits while
 * holding a bucket a writer waits for); `wait` waits for each.
 */
export async function lockSlaDueBuckets(
  trx: Transaction<DB>,
  applicationIds: readonly number[],
  mode: 'try' | 'wait',
): Promise<boolean> {
  const keys = [...new Set(applicationIds.map((id) => id % SLA_DUE_LOCK_BUCKETS))].sort((a, b) => a - b);
  if (keys.length === 0) return true;
  const list = sql`(select json_array_elements_text(${JSON.stringify(keys)}::json)::integer as k)`;
  if (mode === 'wait') {
    await sql`select count(pg_advisory_xact_lock(${SLA_DUE_LOCK_CLASS}, k)) from ${list} keys`.execute(trx);
    return true;
  }
  const { rows } = await sql<{ locked: boolean }>`
    select bool_and(pg_try_advisory_xact_lock(${SLA_DUE_LOCK_CLASS}, k)) as locked from ${list} keys`.execute(
    trx,
  );
  return rows[0]?.locked === true;
}

/** Tries of a batch's locks before `recomputeDueDatesInBatches` waits for them. */
const LOCK_TRIES = 20;

/** Applications per transaction of `recomputeDueDatesInBatches`. */
export const RECOMPUTE_BATCH_APPLICATIONS = 50;

/**
 * `recomputeDueDates` for a whole scope, the way the `sla-recompute` job runs it: the scope's
 * applications resolved once, then each batch of them in its own transaction, so no transaction
 * holds the row locks of every open finding at once and a failure keeps the batches done. The same
 * set-wise statement per batch; idempotent (a finding whose due date is right is not written), so a
 * job run twice, or two overlapping runs, end as one. Returns how many due dates changed.
 */
export async function recomputeDueDatesInBatches(
  db: Kysely<DB>,
  scope: SlaScope,
  now: Date = new Date(),
  batch: number = RECOMPUTE_BATCH_APPLICATIONS,
): Promise<number> {
  const applicationIds = await applicationsInScope(db, scope);
  let changed = 0;
  for (let start = 0; start < applicationIds.length; start += batch) {
    const part = applicationIds.slice(start, start + batch);
    // The batch's buckets first (`lockSlaDueBuckets`): tried, the transaction ended and tried again
    // while writers of its applications are still at work, then waited for.
    for (let attempt = 1; ; attempt++) {
      const done = await db.transaction().execute(async (trx) => {
        const locked = await lockSlaDueBuckets(trx, part, attempt > LOCK_TRIES ? 'wait' : 'try');
        return locked ? recomputeDueDates(trx, { applicationIds: part }, now, 'held') : undefined;
      });
      if (done !== undefined) {
        changed += done;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(25 * 2 ** attempt, 1000)));
    }
  }
  return changed;
}

/** Starts the pause of the SLA clock of findings that were just dismissed. */
export async function pauseSlaClock(
  trx: Transaction<DB>,
  findingIds: readonly number[],
  now: Date,
): Promise<void> {
  if (findingIds.length === 0) return;
  await sql`update findings set sla_paused_at = ${now}
    where id in (select json_array_elements_text(${JSON.stringify(findingIds)}::json)::integer)
      and sla_paused_at is null`.execute(trx);
}

/**
 * Runs the SLA clock again for findings that were just reopened: a pause in progress is added to
 * their paused seconds, and their due date is recomputed from the configuration in force now (a
 * fixed finding that comes back is due by its first sighting, like DefectDojo's reactivation).
 */
export async function resumeSlaClock(
  trx: Transaction<DB>,
  findingIds: readonly number[],
  now: Date,
): Promise<void> {
  if (findingIds.length === 0) return;
  const ids = sql`(select json_array_elements_text(${JSON.stringify(findingIds)}::json)::integer)`;
  await sql`update findings set
      sla_paused_seconds = sla_paused_seconds
        + coalesce(greatest(0, floor(extract(epoch from (${now}::timestamptz - sla_paused_at))))::integer, 0),
      sla_paused_at = null
    where id in ${ids} and sla_paused_at is not null`.execute(trx);
  const due = kevDueDateSql(
    slaDueDateSql({
      severity: sql.ref('f.severity'),
      concern: sql.ref('f.concern'),
      firstSeenAt: sql.ref('f.first_seen_at'),
      pausedSeconds: sql.ref('f.sla_paused_seconds'),
      days: slaDaysColumnsSql('c'),
    }),
    sql.ref('f.kev_due_date'),
  );
  await sql`update findings f set due_date = ${due}
    from applications app
    join groups g on g.id = app.group_id
    join sla_configurations c on c.id = ${effectiveConfigurationIdSql}
    where f.id in ${ids} and app.id = f.application_id and f.due_date_source = 'sla'
      and f.due_date is distinct from ${due}`.execute(trx);
}

/** What the API shows of a finding's SLA at `now`. */
export interface SlaState {
  /** Whole days left (negative: days past due); null without a due date or while dismissed. */
  daysRemaining: number | null;
  breached: boolean;
}

/**
 * A finding's SLA state at `now`: an open one against `now`, a fixed one against when it was fixed
 * (breached: fixed after its due date), a dismissed one neither (its clock is paused).
 * `breached` is exactly `daysRemaining < 0`.
 */
export function slaState(
  finding: { status: string; due_date: Date | null; fixed_at: Date | null },
  now: Date,
): SlaState {
  const reference = isOpen(finding.status) ? now : finding.status === 'fixed' ? finding.fixed_at : null;
  if (finding.due_date === null || reference === null) return { daysRemaining: null, breached: false };
  const remaining = finding.due_date.getTime() - reference.getTime();
  return { daysRemaining: Math.floor(remaining / DAY_MS), breached: remaining < 0 };
}

const isOpen = (status: string) => (OPEN_STATUSES as readonly string[]).includes(status);

/**
 * The list filters `sla=breached` and `sla=due_soon` on a findings row (`findings.`), at `now`, by
 * the due date in force (`effectiveDueDateSql`): the ids of open findings in range, each part an
 * index range: `findings_overdue_idx` (application_id, due_date) for findings without an overlay
 * row, the overlay's own (application_id, due_date) for the rest.
 */
export function slaFilterSql(filter: 'breached' | 'due_soon', now: Date): Expression<SqlBool> {
  const soon = new Date(now.getTime() + DUE_SOON_DAYS * DAY_MS);
  const inRange = (column: string) =>
    filter === 'breached'
      ? sql`${sql.ref(column)} < ${now}`
      : sql`${sql.ref(column)} >= ${now} and ${sql.ref(column)} < ${soon}`;
  return sql<SqlBool>`(findings.status in (${OPEN}) and findings.id in (
    select p.id from findings p where p.status in (${OPEN}) and ${inRange('p.due_date')}
      and not exists (select 1 from finding_sla_due x where x.finding_id = p.id)
    union all
    select o.finding_id from finding_sla_due o where ${inRange('o.due_date')}))`;
}

/**
 * Open findings of the application `applicationId` whose due date in force satisfies `range`,
 * counted under `where` (conditions on `findings.`): two index ranges, as `slaFilterSql`. The
 * overlay holds rows of open findings only (migration 2026-11-30T1000).
 */
export function countOpenByDueDateSql(
  applicationId: Expression<number> | RawBuilder<number>,
  range: (dueDate: RawBuilder<Date | null>) => Expression<SqlBool>,
  where: Expression<SqlBool>,
): RawBuilder<number> {
  return sql<number>`((select count(*) from findings
      where findings.application_id = ${applicationId} and findings.status in (${OPEN})
        and ${range(sql.ref('findings.due_date'))} and ${where}
        and not exists (select 1 from finding_sla_due x where x.finding_id = findings.id))
    + (select count(*) from finding_sla_due o join findings on findings.id = o.finding_id
      where o.application_id = ${applicationId} and findings.status in (${OPEN})
        and ${range(sql.ref('o.due_date'))} and ${where}))`;
}
