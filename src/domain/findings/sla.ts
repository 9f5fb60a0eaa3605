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
 * Recomputes, in one statement, the due dates of the open findings of `scope` whose due date comes
 * from their SLA; closed findings keep theirs (frozen when closed), dismissed ones are recomputed
 * when reopened (`resumeSlaClock`), manual ones are left as set. Returns how many changed.
 */
export async function recomputeDueDates(
  executor: Kysely<DB> | Transaction<DB>,
  scope: SlaScope,
  now: Date = new Date(),
): Promise<number> {
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
  const result = await sql`
    update findings f set due_date = ${due}, updated_at = ${now}
    from (select app.id as application_id, c.*
          from applications app
          join groups g on g.id = app.group_id
          join sla_configurations c on c.id = ${effectiveConfigurationIdSql}
          where ${scopeSql(scope)}) e
    where f.application_id = e.application_id
      and f.status in (${OPEN}) and f.due_date_source = 'sla'
      and f.due_date is distinct from ${due}`.execute(executor);
  return Number(result.numAffectedRows ?? 0n);
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
    changed += await db.transaction().execute((trx) => recomputeDueDates(trx, { applicationIds: part }, now));
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
 * The list filters `sla=breached` and `sla=due_soon` on a findings row (`findings.`), at `now`: both
 * are ranges of `findings_overdue_idx` (application_id, due_date) over open findings.
 */
export function slaFilterSql(filter: 'breached' | 'due_soon', now: Date): Expression<SqlBool> {
  if (filter === 'breached') {
    return sql<SqlBool>`(findings.status in (${OPEN}) and findings.due_date < ${now})`;
  }
  const soon = new Date(now.getTime() + DUE_SOON_DAYS * DAY_MS);
  return sql<SqlBool>`(findings.status in (${OPEN}) and findings.due_date >= ${now} and findings.due_date < ${soon})`;
}
