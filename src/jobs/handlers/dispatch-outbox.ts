import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { dispatchEvents } from '../../modules/webhooks/dispatch.ts';
import type { JobContext } from '../jobs.ts';

/** Whether any committed event waits for the dispatcher (one index probe). */
export async function hasUndispatchedEvents(db: Kysely<DB>): Promise<boolean> {
  const row = await db
    .selectFrom('events')
    .select('id')
    .where('processed_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Drains the outbox: every committed event becomes the deliveries it calls for. */
export async function dispatchOutbox(context: JobContext): Promise<void> {
  const deliveries = await dispatchEvents(context);
  if (deliveries > 0) context.jobs.wake('deliver-webhook');
  // Tracker jobs may have been sent too; waking an idle worker costs nothing.
  context.jobs.wake('tracker-issue');
}
