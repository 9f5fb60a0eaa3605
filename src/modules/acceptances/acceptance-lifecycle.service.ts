import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import {
  acceptanceActor,
  matchedBy,
  releaseFindings,
  type AcceptanceEnd,
  type ReleaseResult,
} from '../../domain/findings/acceptance-coverage.ts';
import type { Actor } from '../../domain/findings/timeline.ts';
import { AppError, conflict } from '../../errors.ts';
import type { JobSender } from '../../jobs/job-map.ts';
import { coverAcceptance, publishAcceptanceEvent } from './acceptances.service.ts';
import type { AcceptanceRow } from './acceptances.repository.ts';

/**
 * What happens to an acceptance after it is made: a second person approves or rejects it, its
 * owner extends or revokes it, and time expires it. Each takes `now`, so tests move the clock.
 */

type Jobs = Pick<JobSender, 'sendMany'>;

export const wrongState = (acceptance: AcceptanceRow, action: string, allowed: string[]) =>
  conflict('invalid_acceptance_state', `An acceptance that is ${acceptance.status} cannot be ${action}`, {
    status: acceptance.status,
    allowed_from: allowed,
  });

/** A timeline entry on every finding of its scope the acceptance matches (not fixed), in one statement. */
async function recordOnMatched(
  trx: Transaction<DB>,
  acceptance: AcceptanceRow,
  type: 'acceptance_approved' | 'acceptance_rejected',
  actor: Actor,
  detail: Record<string, unknown>,
): Promise<void> {
  const inScope =
    acceptance.application_id !== null
      ? sql<boolean>`f.application_id = ${acceptance.application_id}::integer`
      : sql<boolean>`app.group_id = ${acceptance.group_id}::integer`;
  await sql`insert into finding_events (finding_id, type, actor_user_id, actor_system, detail)
    select f.id, ${type}, ${'userId' in actor ? actor.userId : null}::integer,
      ${'system' in actor ? actor.system : null}::text, ${JSON.stringify(detail)}::jsonb
    from findings f join applications app on app.id = f.application_id
    where ${inScope} and f.status <> 'fixed' and ${matchedBy(acceptance.id)}`.execute(trx);
}

/**
 * Four-eyes approval: a pending acceptance becomes active and covers its findings at once. The
 * approver needs write access (the route checks it) and must not be its author (403 `four_eyes`).
 */
export async function approveAcceptance(
  trx: Transaction<DB>,
  acceptance: AcceptanceRow,
  approverId: number,
  comment: string | null,
  now: Date,
): Promise<{ acceptance: AcceptanceRow; covered: number }> {
  if (acceptance.status !== 'pending') throw wrongState(acceptance, 'approved', ['pending']);
  if (acceptance.created_by === approverId) {
    throw new AppError(403, 'four_eyes', 'A second person must approve an acceptance: not its author');
  }
  if (acceptance.expires_at !== null && acceptance.expires_at.getTime() <= now.getTime()) {
    throw conflict('acceptance_past_expiry', 'The acceptance expired before approval: extend it first', {
      expires_at: acceptance.expires_at.toISOString(),
    });
  }
  const approved = await decide(trx, acceptance.id, 'active', approverId, comment, now);
  await recordOnMatched(
    trx,
    approved,
    'acceptance_approved',
    { userId: approverId },
    {
      acceptance_id: approved.id,
      ...(comment !== null ? { comment } : {}),
    },
  );
  const covered = await coverAcceptance(trx, approved, now);
  await publishAcceptanceEvent(trx, 'acceptance.approved', approved, { covered_findings: covered });
  return { acceptance: approved, covered };
}

/** Four-eyes rejection: a pending acceptance ends without having changed any finding. */
export async function rejectAcceptance(
  trx: Transaction<DB>,
  acceptance: AcceptanceRow,
  deciderId: number,
  comment: string | null,
  now: Date,
): Promise<AcceptanceRow> {
  if (acceptance.status !== 'pending') throw wrongState(acceptance, 'rejected', ['pending']);
  const rejected = await decide(trx, acceptance.id, 'rejected', deciderId, comment, now);
  await recordOnMatched(
    trx,
    rejected,
    'acceptance_rejected',
    { userId: deciderId },
    {
      acceptance_id: rejected.id,
      ...(comment !== null ? { comment } : {}),
    },
  );
  await publishAcceptanceEvent(trx, 'acceptance.rejected', rejected);
  return rejected;
}

function decide(
  trx: Transaction<DB>,
  id: number,
  status: 'active' | 'rejected',
  deciderId: number,
  comment: string | null,
  now: Date,
): Promise<AcceptanceRow> {
  return trx
    .updateTable('acceptances')
    .set({
      status,
      decided_by: deciderId,
      decided_at: now,
      decision_comment: comment,
      ...(status === 'rejected' ? { ended_at: now } : {}),
      updated_at: now,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A new expiry (the caller checked it against the settings); `acceptance.expiring` may fire again. */
export async function extendAcceptance(
  trx: Transaction<DB>,
  acceptance: AcceptanceRow,
  expiresAt: Date,
  now: Date,
): Promise<AcceptanceRow> {
  if (acceptance.status !== 'active' && acceptance.status !== 'pending') {
    throw wrongState(acceptance, 'extended', ['pending', 'active']);
  }
  const extended = await trx
    .updateTable('acceptances')
    .set({ expires_at: expiresAt, expiring_notified_at: null, updated_at: now })
    .where('id', '=', acceptance.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await publishAcceptanceEvent(trx, 'acceptance.extended', extended, {
    previous_expires_at: acceptance.expires_at?.toISOString() ?? null,
  });
  return extended;
}

/** Revoking ends an acceptance at once: its findings come back as at expiry. */
export async function revokeAcceptance(
  trx: Transaction<DB>,
  jobs: Jobs,
  acceptance: AcceptanceRow,
  userId: number,
  now: Date,
): Promise<{ acceptance: AcceptanceRow; released: ReleaseResult }> {
  if (acceptance.status !== 'active' && acceptance.status !== 'pending') {
    throw wrongState(acceptance, 'revoked', ['pending', 'active']);
  }
  const revoked = await end(trx, acceptance.id, 'revoked', userId, now);
  const released =
    acceptance.status === 'active'
      ? await release(trx, jobs, revoked, 'acceptance_revoked', { userId }, now)
      : { reopened: [], fixed: [], handedOver: [] };
  await publishAcceptanceEvent(trx, 'acceptance.revoked', revoked, summary(released));
  return { acceptance: revoked, released };
}

/** Expires one active acceptance whose time has come (the expiry job). */
export async function expireAcceptance(
  trx: Transaction<DB>,
  jobs: Jobs,
  acceptance: AcceptanceRow,
  now: Date,
): Promise<ReleaseResult> {
  const expired = await end(trx, acceptance.id, 'expired', null, now);
  const released = await release(trx, jobs, expired, 'acceptance_expired', acceptanceActor(expired.id), now);
  await publishAcceptanceEvent(trx, 'acceptance.expired', expired, summary(released));
  return released;
}

const summary = (released: ReleaseResult) => ({
  reopened_findings: released.reopened,
  fixed_findings: released.fixed,
  handed_over_findings: released.handedOver,
});

function end(
  trx: Transaction<DB>,
  id: number,
  status: 'revoked' | 'expired',
  userId: number | null,
  now: Date,
): Promise<AcceptanceRow> {
  return trx
    .updateTable('acceptances')
    .set({ status, ended_by: userId, ended_at: now, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The findings of an ended acceptance come back (`releaseFindings`), and each reopened one linked to
 * a tracker issue gets a comment there saying why (a finding comment, posted by the tracker job).
 */
async function release(
  trx: Transaction<DB>,
  jobs: Jobs,
  acceptance: AcceptanceRow,
  endReason: AcceptanceEnd,
  actor: Actor,
  now: Date,
): Promise<ReleaseResult> {
  const released = await releaseFindings(trx, [acceptance.id], { now, end: endReason, actor });
  if (released.reopened.length === 0) return released;
  const how = endReason === 'acceptance_expired' ? 'expired' : 'was revoked';
  const content = `Acceptance #${acceptance.id} (${acceptance.reason}) ${how}: the finding is open again.`;
  const { rows } = await sql<{ link_id: number; comment_id: number }>`
    with linked as (
      select distinct ti.finding_id from tracker_issues ti
      where ti.state <> 'failed'
        and ti.finding_id in (select json_array_elements_text(${JSON.stringify(released.reopened)}::json)::integer)
    ), comments as (
      insert into finding_comments (finding_id, author_id, content, created_at, updated_at)
      select finding_id, null, ${content}, ${now}::timestamptz, ${now}::timestamptz from linked
      returning id, finding_id
    )
    select ti.id as link_id, c.id as comment_id
    from comments c join tracker_issues ti on ti.finding_id = c.finding_id and ti.state <> 'failed'`.execute(
    trx,
  );
  await jobs.sendMany(
    trx,
    'tracker-issue',
    rows.map((row) => ({ linkId: row.link_id, action: 'comment' as const, commentId: row.comment_id })),
  );
  return released;
}
