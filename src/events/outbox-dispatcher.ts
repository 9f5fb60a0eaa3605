import type { Kysely, Transaction } from 'kysely';
import { EVENTS_CHANNEL } from '../db/change-notices.ts';
import type { DB } from '../db/schema.ts';
import type { JobName, JobSender, JobSpecs } from '../jobs/job-map.ts';
import { afterCommitReactions, type AfterCommitContext, type SubscriberMap } from './subscribers.ts';

/**
 * The outbox dispatcher: hands committed events (the `events` table) to their after-commit
 * subscribers. Each event is taken once (row locks skip what another dispatcher holds; the job itself
 * runs one at a time); what the subscribers write (deliveries, tracker links) and the jobs they send
 * commit in the same transaction that marks the events processed, so a crash in between leaves the
 * events to the next run. An event is marked processed once every subscriber of its type is done
 * with it; one a subscriber hands back (it sends an upload's findings in slices) is read again.
 */

const EVENT_BATCH = 100;

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

/** Drains the outbox, then wakes this process's workers of the jobs the subscribers sent. */
export async function dispatchOutbox(
  context: { db: Kysely<DB>; jobs: JobSender },
  subscribers: SubscriberMap,
): Promise<void> {
  const sent = new Set<JobName>();
  const jobs: AfterCommitContext['jobs'] = {
    send: async (executor, name, payload) => {
      await context.jobs.send(executor, name, payload);
      sent.add(name);
    },
    sendMany: async (executor, name, payloads) => {
      await context.jobs.sendMany(executor, name, payloads);
      if (payloads.length > 0) sent.add(name);
    },
  };
  while (await context.db.transaction().execute((trx) => dispatchSlice(trx, subscribers, { jobs }))) {
    // each pass is one transaction; the next one reads what is left
  }
  for (const name of sent) context.jobs.wake(name);
}

/** One transaction's worth: up to a batch of events in id order; false when none wait. */
async function dispatchSlice(
  trx: Transaction<DB>,
  subscribers: SubscriberMap,
  context: AfterCommitContext,
): Promise<boolean> {
  const events = await trx
    .selectFrom('events')
    .selectAll()
    .where('processed_at', 'is', null)
    .orderBy('id')
    .limit(EVENT_BATCH)
    .forUpdate()
    .skipLocked()
    .execute();
  if (events.length === 0) return false;
  const handedBack = new Set<number>();
  for (const { react, events: types } of afterCommitReactions(subscribers)) {
    const given = events.filter((event) => types.has(event.type));
    if (given.length === 0) continue;
    const { done } = await react(trx, given, context);
    const finished = new Set(done);
    for (const event of given) if (!finished.has(event.id)) handedBack.add(event.id);
  }
  const processed = events.filter((event) => !handedBack.has(event.id)).map((event) => event.id);
  if (processed.length > 0) {
    await trx.updateTable('events').set({ processed_at: new Date() }).where('id', 'in', processed).execute();
  }
  return true;
}

/** The dispatcher's job: sent whenever events are committed (the outbox is watched), and every minute. */
export const outboxJobs = (
  subscribers: SubscriberMap,
): JobSpecs<'dispatch-outbox', { db: Kysely<DB>; jobs: JobSender }> => ({
  'dispatch-outbox': {
    policy: 'stately',
    // The runtime sends it when events are committed (their notice, or its poll); the schedule is the backstop.
    cron: '* * * * *',
    watch: { channel: EVENTS_CHANNEL, pending: hasUndispatchedEvents },
    retryLimit: 2,
    handler: (context) => dispatchOutbox(context, subscribers),
  },
});
