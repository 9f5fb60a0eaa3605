import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, type EventType } from '../../src/events/event-types.ts';
import { publishEvents } from '../../src/events/events.ts';
import { dispatchOutbox } from '../../src/events/outbox-dispatcher.ts';
import { subscriberMap, type Subscriber } from '../../src/events/subscribers.ts';
import type { JobName, JobSender } from '../../src/jobs/job-map.ts';
import { makeApplication, makeUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The outbox dispatcher names no subscriber: these are made up here. Workers never start in this
 * file (deferWorkers), so only the dispatcher called below reads the outbox.
 */
let t: TestApp;
let applicationId: number;

beforeAll(async () => {
  t = await createTestApp({}, { deferWorkers: true });
  const admin = await makeUser(t, { role: 'admin' });
  applicationId = (await makeApplication(t, admin)).id;
});
afterAll(() => t.close());

/** A job sender that only records: what was sent, per name, and what was woken. */
function recordingJobs() {
  const sent: { name: JobName; count: number }[] = [];
  const woken: JobName[] = [];
  const jobs: JobSender = {
    send: async (_executor, name) => {
      sent.push({ name, count: 1 });
    },
    sendMany: async (_executor, name, payloads) => {
      sent.push({ name, count: payloads.length });
    },
    wake: (name) => woken.push(name),
  };
  return { jobs, sent, woken };
}

const subscriberShape = fc.record({
  events: fc.subarray([...EVENT_TYPES], { minLength: 1 }),
  // How many times it hands each event back before it is done with it.
  handBacks: fc.nat({ max: 2 }),
  sends: fc.boolean(),
});

describe('outbox dispatcher', () => {
  it('gives each subscriber the events of its types until every one is done, then marks them processed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...EVENT_TYPES), { minLength: 1, maxLength: 30 }),
        fc.array(subscriberShape, { minLength: 1, maxLength: 3 }),
        async (types, shapes) => {
          await t.db.deleteFrom('events').execute();
          await t.db.transaction().execute((trx) =>
            publishEvents(
              trx,
              types.map((type) => ({ type, applicationId })),
            ),
          );
          const seen = shapes.map(() => new Map<number, number>());
          const eventTypes = new Map<number, string>();
          const subscribers: Subscriber[] = shapes.map((shape, index) => ({
            name: `subscriber-${index}`,
            events: shape.events,
            afterCommit: async (trx, events, context) => {
              const views = seen[index] as Map<number, number>;
              for (const event of events) {
                views.set(event.id, (views.get(event.id) ?? 0) + 1);
                eventTypes.set(event.id, event.type);
              }
              if (shape.sends) await context.jobs.sendMany(trx, 'tracker-issue', []);
              if (shape.sends && events.length > 0)
                await context.jobs.send(trx, 'deliver-webhook', { deliveryId: events[0]?.id ?? 0 });
              return {
                done: events.filter((event) => (views.get(event.id) ?? 0) > shape.handBacks).map((e) => e.id),
              };
            },
          }));
          const recorder = recordingJobs();

          await dispatchOutbox({ db: t.db, jobs: recorder.jobs }, subscriberMap(subscribers));

          const rows = await t.db.selectFrom('events').select(['id', 'type', 'processed_at']).execute();
          expect(rows.every((row) => row.processed_at !== null)).toBe(true);
          for (const row of rows) {
            const takers = shapes.flatMap((shape, index) =>
              shape.events.includes(row.type as EventType) ? [index] : [],
            );
            // Handed back by the most reluctant taker, the event is read again for all of them.
            const reads = 1 + Math.max(0, ...takers.map((index) => shapes[index]?.handBacks ?? 0));
            shapes.forEach((_shape, index) => {
              expect(seen[index]?.get(row.id) ?? 0).toBe(takers.includes(index) ? reads : 0);
            });
          }
          // Only a queue that was sent something is woken, once, after the last transaction.
          const sentTo = [...new Set(recorder.sent.filter((s) => s.count > 0).map((s) => s.name))];
          expect(recorder.woken.sort()).toEqual(sentTo.sort());
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it('leaves the events of a pass that failed unprocessed, for the next run', async () => {
    await t.db.deleteFrom('events').execute();
    await t.db
      .transaction()
      .execute((trx) => publishEvents(trx, [{ type: 'scan.completed', applicationId }]));
    const failing: Subscriber = {
      name: 'failing',
      events: ['scan.completed'],
      afterCommit: async () => {
        throw new Error('receiver down');
      },
    };
    await expect(
      dispatchOutbox({ db: t.db, jobs: recordingJobs().jobs }, subscriberMap([failing])),
    ).rejects.toThrow('receiver down');
    const [row] = await t.db.selectFrom('events').select('processed_at').execute();
    expect(row?.processed_at).toBeNull();
  });
});
