import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { DB, FindingStatus } from '../../db/schema.ts';
import type { DismissalReason } from './dismissal.ts';
import { isOpen } from './lifecycle.ts';
import { slaDaysSql } from './risk.ts';
import { changeStatus, type StatusMove } from './status.ts';
import { recordTimeline, type Actor } from './timeline.ts';

/**
 * Which findings an acceptance covers, said once for every writer: creating or approving an
 * acceptance, an upload's new and returning findings, and an acceptance that ends. The invariant all
 * of them keep (test/acceptances/coverage-property.test.ts): a finding that is not fixed is covered
 * (`findings.acceptance_id` set, status `false_positive` with the acceptance's reason) exactly when
 * an active acceptance — approved, not past its expiry — matches it, unless a person or its tool
 * dismissed it before any acceptance did (that dismissal is theirs and is left alone).
 *
 * An acceptance matches a finding of its application (or of any application of its group) when it
 * names the finding's fingerprint (it was made over finding ids: the same finding in every version)
 * or when every rule it gives holds: the CVE among the finding's, the rule id, the package name,
 * the path starting with the prefix.
 */

/** SQL: acceptance `a` is active at `now` (approved and not past its expiry). */
export const activeAt = (now: Date): RawBuilder<boolean> =>
  sql<boolean>`(a.status = 'active' and (a.expires_at is null or a.expires_at > ${now}))`;

/** SQL: acceptance `a` matches finding `f` of the application `app` (a row of `applications`). */
const MATCHES = sql<boolean>`(a.group_id = app.group_id
  and (a.application_id is null or a.application_id = f.application_id)
  and case when a.finding_ids is not null
    then exists (select 1 from acceptance_fingerprints af where af.acceptance_id = a.id and af.fingerprint = f.fingerprint)
    else (a.match_cve is null or a.match_cve = any (f.cve_ids))
      and (a.match_rule_id is null or a.match_rule_id = f.rule_id)
      and (a.match_package is null or a.match_package = f.package_name)
      and (a.match_path_prefix is null or starts_with(f.file_path, a.match_path_prefix))
  end)`;

/** SQL: acceptance `acceptanceId` (whatever its status) matches finding `f` of application `app`. */
export const matchedBy = (acceptanceId: number): RawBuilder<boolean> =>
  sql<boolean>`exists (select 1 from acceptances a where a.id = ${acceptanceId}::integer and ${MATCHES})`;

/** The first (oldest) active acceptance matching `f`, as a lateral subquery `m (acceptance_id, reason)`. */
const firstMatch = (now: Date) => sql`lateral (
  select a.id as acceptance_id, a.reason from acceptances a
  where ${activeAt(now)} and ${MATCHES}
  order by a.id limit 1
) m`;

/** Whether an active acceptance could match findings of `applicationId` (most uploads: none). */
export async function acceptancesApply(
  trx: Transaction<DB>,
  applicationId: number,
  now: Date,
): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`select exists (
    select 1 from acceptances a join applications app on app.group_id = a.group_id
    where app.id = ${applicationId} and (a.application_id is null or a.application_id = app.id)
      and ${activeAt(now)}) as found`.execute(trx);
  return rows[0]?.found === true;
}

interface Covering {
  id: number;
  application_id: number;
  status: FindingStatus;
  acceptance_id: number;
  reason: DismissalReason;
}

export interface CoverOptions {
  now: Date;
  /** The upload whose findings these are, for their timeline entries. */
  scanId?: number;
}

/**
 * Covers the findings `where` selects (a condition on the finding `f`) that are open or confirmed
 * and that an active acceptance matches: each becomes `false_positive` with its acceptance's reason,
 * through `changeStatus` (timeline `accepted`, `finding.status_changed`), set-wise: one query finds
 * them, one status change per covering acceptance moves them. Returns how many it covered.
 */
export async function coverFindings(
  trx: Transaction<DB>,
  where: RawBuilder<boolean>,
  { now, scanId }: CoverOptions,
): Promise<number> {
  const { rows } = await sql<Covering>`
    select f.id, f.application_id, f.status, m.acceptance_id, m.reason
    from findings f
    join applications app on app.id = f.application_id
    cross join ${firstMatch(now)}
    where ${where} and f.acceptance_id is null and ${isOpen(sql.ref('f.status'))}
    order by f.id`.execute(trx);
  const byAcceptance = new Map<number, Covering[]>();
  for (const row of rows)
    byAcceptance.set(row.acceptance_id, [...(byAcceptance.get(row.acceptance_id) ?? []), row]);
  for (const [acceptanceId, covering] of byAcceptance) {
    await changeStatus(
      trx,
      covering.map((row) => ({
        findingId: row.id,
        applicationId: row.application_id,
        from: row.status,
        to: 'false_positive',
        detail: { acceptance_id: acceptanceId },
      })),
      {
        actor: acceptanceActor(acceptanceId),
        reason: 'accepted',
        now,
        ...(scanId !== undefined ? { scanId } : {}),
        dismissal: { reason: covering[0]?.reason ?? null, comment: null, acceptanceId },
      },
    );
  }
  return rows.length;
}

/** The system actor of what an acceptance does by itself (`acceptance:<id>`). */
export const acceptanceActor = (acceptanceId: number): Actor => ({ system: `acceptance:${acceptanceId}` });

/** Why an acceptance stopped covering its findings. */
export type AcceptanceEnd = 'acceptance_expired' | 'acceptance_revoked';

interface Released {
  id: number;
  application_id: number;
  acceptance_id: number;
  present: boolean;
  next_acceptance_id: number | null;
  next_reason: DismissalReason | null;
}

export interface ReleaseResult {
  /** Findings moved back to `open` (still reported), with their due date restarted. */
  reopened: number[];
  /** Findings no longer reported, now `fixed`. */
  fixed: number[];
  /** Findings another active acceptance matches, now covered by it. */
  handedOver: number[];
}

/**
 * Ends the coverage of `acceptanceIds` (already no longer active): a finding another active
 * acceptance matches is handed over to it; one still reported is `open` again, its SLA due date
 * restarted from `now`; one no longer reported is `fixed`, as it would have been without the
 * acceptance. Timeline entries `acceptance_expired` / `acceptance_revoked` and `finding.status_changed`
 * through `changeStatus`, so policies, trackers and webhooks react.
 */
export async function releaseFindings(
  trx: Transaction<DB>,
  acceptanceIds: readonly number[],
  { now, end, actor }: { now: Date; end: AcceptanceEnd; actor: Actor },
): Promise<ReleaseResult> {
  if (acceptanceIds.length === 0) return { reopened: [], fixed: [], handedOver: [] };
  const { rows } = await sql<Released>`
    select f.id, f.application_id, f.acceptance_id, f.present, m.acceptance_id as next_acceptance_id,
      m.reason as next_reason
    from findings f
    join applications app on app.id = f.application_id
    left join ${firstMatch(now)} on true
    where f.acceptance_id in (select json_array_elements_text(${JSON.stringify(acceptanceIds)}::json)::integer)
    order by f.id`.execute(trx);

  const handedOver = rows.filter((row) => row.next_acceptance_id !== null);
  for (const row of handedOver) {
    // Few: an acceptance rarely overlaps another; each hand-over is one finding's own update.
    await trx
      .updateTable('findings')
      .set({ acceptance_id: row.next_acceptance_id, dismissal_reason: row.next_reason, updated_at: now })
      .where('id', '=', row.id)
      .execute();
  }
  await recordTimeline(
    trx,
    handedOver.map((row) => ({
      findingId: row.id,
      type: 'accepted',
      actor,
      detail: {
        acceptance_id: row.next_acceptance_id,
        previous_acceptance_id: row.acceptance_id,
        ended: end,
      },
    })),
  );

  const released = rows.filter((row) => row.next_acceptance_id === null);
  const move = (row: Released, to: FindingStatus): StatusMove => ({
    findingId: row.id,
    applicationId: row.application_id,
    from: 'false_positive',
    to,
    detail: { acceptance_id: row.acceptance_id },
  });
  const reopened = released.filter((row) => row.present);
  const fixed = released.filter((row) => !row.present);
  await changeStatus(
    trx,
    reopened.map((row) => move(row, 'open')),
    { actor, reason: end, now },
  );
  await changeStatus(
    trx,
    fixed.map((row) => move(row, 'fixed')),
    { actor, reason: end, now },
  );
  if (reopened.length > 0) {
    // The SLA clock starts again: the finding asks for work from this moment.
    await sql`update findings set due_date = ${now}::timestamptz + make_interval(hours => 24 * ${slaDaysSql(sql.ref('severity'))})
      where id in (select json_array_elements_text(${JSON.stringify(reopened.map((row) => row.id))}::json)::integer)`.execute(
      trx,
    );
  }
  return {
    reopened: reopened.map((row) => row.id),
    fixed: fixed.map((row) => row.id),
    handedOver: handedOver.map((row) => row.id),
  };
}
