import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { JobSender } from '../../jobs/job-map.ts';
import { auditEventsAfter } from '../audit/audit.service.ts';
import { insertDeliveries } from './webhooks.subscriber.ts';

/**
 * Streams the audit trail to the webhooks subscribed to `audit.*` (a SIEM): one signed delivery per
 * audit event, event `audit.<action>`, the event as `GET /api/audit-events` shows it (secrets were
 * masked when it was written). Each such webhook keeps its place (`webhooks.audit_cursor`, the last
 * id it got); the deliveries and the moved cursor commit together, and audit ids are consecutive
 * and commit in order (the chain's head is locked from an append to its commit), so every event is
 * delivered exactly once: none skipped, none twice. Appending an audit row does nothing more — the
 * forwarder reads the trail (job `forward-audit`, when the outbox or its poll says so, and every
 * minute); a webhook switched off keeps its place and catches up when switched on.
 */

/** Events sent per transaction, across webhooks: a long backlog goes in slices. */
const EVENT_BUDGET = 500;

/** Whether a webhook that streams the trail is behind its head (one indexed look). */
export async function hasUnforwardedAudit(db: Kysely<DB>): Promise<boolean> {
  const row = await db
    .selectFrom('webhooks')
    .select('id')
    .where('active', '=', true)
    .where('audit_cursor', 'is not', null)
    .where(sql<boolean>`audit_cursor < (select last_id from audit_chain)`)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Forwards until every active streaming webhook is at the head; returns how many deliveries it made. */
export async function forwardAuditEvents(context: {
  db: Kysely<DB>;
  jobs: Pick<JobSender, 'send' | 'sendMany' | 'wake'>;
}): Promise<number> {
  let total = 0;
  for (;;) {
    const made = await context.db.transaction().execute((trx) => forwardSlice(trx, context.jobs));
    if (made === null) break;
    total += made;
  }
  if (total > 0) context.jobs.wake('deliver-webhook');
  return total;
}

/** One transaction: the webhooks behind, locked, each sent what follows its cursor; null when none is behind. */
async function forwardSlice(
  trx: Transaction<DB>,
  jobs: Pick<JobSender, 'send' | 'sendMany'>,
): Promise<number | null> {
  const behind = await trx
    .selectFrom('webhooks')
    .select(['id', 'audit_cursor'])
    .where('active', '=', true)
    .where('audit_cursor', 'is not', null)
    .where(sql<boolean>`audit_cursor < (select last_id from audit_chain)`)
    .orderBy('id')
    .forUpdate()
    .skipLocked()
    .execute();
  if (behind.length === 0) return null;
  let budget = EVENT_BUDGET;
  let made = 0;
  for (const webhook of behind) {
    if (budget <= 0) break;
    const events = await auditEventsAfter(trx, String(webhook.audit_cursor), budget);
    const last = events.at(-1);
    if (!last) {
      // Nothing above the cursor though it is behind the head: cannot happen while ids are consecutive;
      // never loop on it.
      await trx
        .updateTable('webhooks')
        .set({ audit_cursor: sql`(select last_id from audit_chain)` })
        .where('id', '=', webhook.id)
        .execute();
      continue;
    }
    budget -= events.length;
    made += await insertDeliveries(
      trx,
      jobs,
      events.map((event) => {
        const id = randomUUID();
        const name = `audit.${event.action}`;
        return {
          webhook_id: webhook.id,
          message_id: id,
          event: name,
          event_id: null,
          finding_id: null,
          policy_id: null,
          body: JSON.stringify({
            id,
            event: name,
            occurred_at: event.occurred_at,
            application: event.application_id === null ? null : { id: event.application_id },
            data: event,
          }),
        };
      }),
    );
    await trx.updateTable('webhooks').set({ audit_cursor: last.id }).where('id', '=', webhook.id).execute();
  }
  return made;
}
