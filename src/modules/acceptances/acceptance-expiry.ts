import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { JobSender } from '../../jobs/job-map.ts';
import { effectiveSettings } from './acceptance-settings.ts';
import { expireAcceptance } from './acceptance-lifecycle.service.ts';
import { publishAcceptanceEvent } from './acceptances.service.ts';
import { recordAcceptanceAudit } from './acceptances.audit.ts';
import { systemAuditContext } from '../../events/audit.ts';

/** Expiry is nobody's request: the audit trail names the job. */
const EXPIRY_AUDIT = systemAuditContext('acceptance-expiry');

/** Acceptances expired per transaction: each brings back its own findings, so transactions stay short. */
const PER_TRANSACTION = 1;
/** The longest notice a setting may ask for (acceptance_settings.expiring_notice_days). */
const MAX_NOTICE_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface ExpiryRun {
  expired: number[];
  reopened: number;
  fixed: number;
  expiring: number[];
}

/**
 * The expiry job's work at `now`: every active acceptance past its expiry ends and brings its findings
 * back (`expireAcceptance`); every one within its group's notice days gets one `acceptance.expiring`.
 * Row locks (`skip locked`) and the status change make each happen once even if two runs overlapped;
 * the job is a pg-boss singleton besides.
 */
export async function runAcceptanceExpiry(
  db: Kysely<DB>,
  jobs: Pick<JobSender, 'sendMany'>,
  now: Date,
): Promise<ExpiryRun> {
  const run: ExpiryRun = { expired: [], reopened: 0, fixed: 0, expiring: [] };
  for (;;) {
    const done = await db.transaction().execute(async (trx) => {
      const due = await trx
        .selectFrom('acceptances')
        .selectAll()
        .where('status', '=', 'active')
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .orderBy('id')
        .limit(PER_TRANSACTION)
        .forUpdate()
        .skipLocked()
        .execute();
      for (const acceptance of due) {
        const released = await expireAcceptance(trx, jobs, acceptance, now);
        // Last in the transaction (PER_TRANSACTION is 1): it holds the audit chain's head until commit.
        await recordAcceptanceAudit(
          trx,
          EXPIRY_AUDIT,
          'acceptance.expired',
          acceptance,
          { ...acceptance, status: 'expired', ended_at: now },
          {
            reopened_findings: released.reopened.length,
            fixed_findings: released.fixed.length,
            handed_over_findings: released.handedOver.length,
          },
        );
        run.expired.push(acceptance.id);
        run.reopened += released.reopened.length;
        run.fixed += released.fixed.length;
      }
      return due.length < PER_TRANSACTION;
    });
    if (done) break;
  }
  run.expiring = await noticeExpiring(db, now);
  return run;
}

/** `acceptance.expiring`, once per acceptance (again after an extension), its group's notice days ahead. */
async function noticeExpiring(db: Kysely<DB>, now: Date): Promise<number[]> {
  const candidates = await db
    .selectFrom('acceptances')
    .select(['id', 'group_id', 'expires_at'])
    .where('status', '=', 'active')
    .where('expiring_notified_at', 'is', null)
    .where('expires_at', '>', now)
    .where('expires_at', '<=', new Date(now.getTime() + MAX_NOTICE_DAYS * DAY_MS))
    .orderBy('id')
    .execute();
  const noticeDays = new Map<number, number>();
  for (const groupId of new Set(candidates.map((row) => row.group_id))) {
    noticeDays.set(groupId, (await effectiveSettings(db, groupId)).expiringNoticeDays);
  }
  const due = candidates.filter(
    (row) =>
      row.expires_at !== null &&
      row.expires_at.getTime() - now.getTime() <= (noticeDays.get(row.group_id) ?? 0) * DAY_MS,
  );
  const noticed: number[] = [];
  for (const { id } of due) {
    await db.transaction().execute(async (trx) => {
      const acceptance = await trx
        .updateTable('acceptances')
        .set({ expiring_notified_at: now })
        .where('id', '=', id)
        .where('status', '=', 'active')
        .where('expiring_notified_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!acceptance) return;
      await publishAcceptanceEvent(trx, 'acceptance.expiring', acceptance, {
        days_left: Math.ceil(((acceptance.expires_at?.getTime() ?? now.getTime()) - now.getTime()) / DAY_MS),
      });
      noticed.push(id);
    });
  }
  return noticed;
}
