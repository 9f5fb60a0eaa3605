import { sql, type Kysely } from 'kysely';
import type { DB, SeverityName } from '../../db/schema.ts';
import { publishEvents } from '../../events/events.ts';
import { reactInTransaction } from '../../events/subscribers.ts';
import { OPEN_STATUSES } from './lifecycle.ts';
import { recordTimeline } from './timeline.ts';

/** Findings marked per transaction: a configuration that shortens days may breach 100k at once. */
const BATCH = 1000;

const OPEN = sql.join(OPEN_STATUSES.map((status) => sql.lit(status)));

/**
 * Announces every open finding whose due date passed by `now` and was not announced yet: sets its
 * `sla_breached_at`, writes a timeline entry and one `finding.sla_breached` outbox event (webhooks
 * after commit), and lets the in-transaction subscribers (policies) react — set-wise, in batches of
 * their own transactions. Exactly once per finding, whatever runs it at the same time: a finding is
 * claimed by the update that sets `sla_breached_at` under a row lock (`skip locked`), and its event
 * commits with that mark. Returns how many it announced.
 */
export async function announceSlaBreaches(db: Kysely<DB>, now: Date, batch = BATCH): Promise<number> {
  let announced = 0;
  for (;;) {
    const count = await db.transaction().execute(async (trx) => {
      const { rows } = await sql<{
        id: number;
        application_id: number;
        severity: SeverityName;
        due_date: Date;
      }>`
        with due as (
          -- By the due date in force (domain/findings/sla.ts): findings_sla_pending_idx for findings
          -- without an overlay row, the overlay's own index for the rest.
          select c.id, c.due_date from (
            select p.id, p.due_date from findings p
            where p.status in (${OPEN}) and p.sla_breached_at is null and p.due_date < ${now}
              and not exists (select 1 from finding_sla_due x where x.finding_id = p.id)
            union all
            select o.finding_id, o.due_date from finding_sla_due o join findings p on p.id = o.finding_id
            where o.due_date < ${now} and p.status in (${OPEN}) and p.sla_breached_at is null
          ) c
          order by c.due_date, c.id limit ${batch}
        )
        update findings f set sla_breached_at = ${now}
        from due
        where f.id = due.id and f.id in (select p.id from findings p
            where p.id in (select id from due) and p.sla_breached_at is null for update skip locked)
          and f.sla_breached_at is null
        returning f.id, f.application_id, f.severity, due.due_date`.execute(trx);
      if (rows.length === 0) return 0;
      const breachedAt = now.toISOString();
      await recordTimeline(
        trx,
        rows.map((row) => ({
          findingId: row.id,
          type: 'sla_breached' as const,
          actor: { system: 'sla' },
          detail: { due_date: new Date(row.due_date).toISOString(), breached_at: breachedAt },
        })),
      );
      await publishEvents(
        trx,
        rows.map((row) => ({
          type: 'finding.sla_breached' as const,
          applicationId: row.application_id,
          findingId: row.id,
          data: {
            severity: row.severity,
            due_date: new Date(row.due_date).toISOString(),
            breached_at: breachedAt,
          },
        })),
      );
      await reactInTransaction(trx, {
        event: 'finding.sla_breached',
        applicationIds: [...new Set(rows.map((row) => row.application_id))],
        findings: { ids: rows.map((row) => row.id) },
      });
      return rows.length;
    });
    announced += count;
    if (count < batch) return announced;
  }
}
