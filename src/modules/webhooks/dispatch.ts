import { randomUUID } from 'node:crypto';
import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { DB, EventsTable, WebhookDeliveriesTable } from '../../db/schema.ts';
import { subscribesTo } from '../../events/events.ts';
import { iso } from '../../http/schemas.ts';
import type { Jobs } from '../../jobs/jobs.ts';
import { presentFinding } from '../findings/findings.presenter.ts';
import { findingsByIds } from '../findings/findings.repository.ts';
import { presentScan } from '../scans/scans.presenter.ts';

/**
 * The outbox dispatcher: committed events become webhook deliveries. Each event is taken once (row
 * locks skip what another dispatcher holds; the job itself runs one at a time), expanded into one
 * message per finding (an upload announces its new findings with one event), and each message into
 * one delivery per webhook that subscribes to it — or, for a policy's `webhook` action, per active
 * webhook of the application. Deliveries and their jobs are written in the same transaction that
 * marks the events processed, so a crash in between leaves the events to the next run.
 */

const EVENT_BATCH = 100;
const FINDING_CHUNK = 500;

type EventRow = Selectable<EventsTable>;
type WebhookTarget = { id: number; application_id: number; events: string[] };
type ApplicationRef = { id: number; slug: string; group_id: number };
type DeliveryInsert = Insertable<WebhookDeliveriesTable>;

interface Message {
  findingId: number | null;
  data: Record<string, unknown>;
}

/** Sends deliveries for every committed event not yet dispatched; returns how many it created. */
export async function dispatchEvents(context: { db: Kysely<DB>; jobs: Jobs }): Promise<number> {
  let created = 0;
  for (;;) {
    const batch = await context.db.transaction().execute(async (trx) => {
      const events = await trx
        .selectFrom('events')
        .selectAll()
        .where('processed_at', 'is', null)
        .orderBy('id')
        .limit(EVENT_BATCH)
        .forUpdate()
        .skipLocked()
        .execute();
      if (events.length === 0) return null;
      const applicationIds = [...new Set(events.flatMap((event) => event.application_id ?? []))];
      const [webhooks, applications] = applicationIds.length
        ? await Promise.all([
            trx
              .selectFrom('webhooks')
              .select(['id', 'application_id', 'events'])
              .where('application_id', 'in', applicationIds)
              .where('active', '=', true)
              .orderBy('id')
              .execute(),
            trx
              .selectFrom('applications')
              .select(['id', 'slug', 'group_id'])
              .where('id', 'in', applicationIds)
              .execute(),
          ])
        : [[], []];
      let deliveries = 0;
      for (const event of events) {
        const application = applications.find((app) => app.id === event.application_id);
        const targets = webhooks.filter(
          (webhook) =>
            webhook.application_id === event.application_id &&
            (event.policy_id !== null || subscribesTo(webhook.events, event.type)),
        );
        if (application && targets.length > 0) {
          deliveries += await deliverEvent(trx, context.jobs, event, application, targets);
        }
      }
      await trx
        .updateTable('events')
        .set({ processed_at: new Date() })
        .where(
          'id',
          'in',
          events.map((event) => event.id),
        )
        .execute();
      return deliveries;
    });
    if (batch === null) return created;
    created += batch;
  }
}

async function deliverEvent(
  trx: Transaction<DB>,
  jobs: Jobs,
  event: EventRow,
  application: ApplicationRef,
  targets: readonly WebhookTarget[],
): Promise<number> {
  let created = 0;
  for await (const messages of messagesOf(trx, event)) {
    const rows: DeliveryInsert[] = [];
    for (const message of messages) {
      const messageId = randomUUID();
      const body = JSON.stringify({
        id: messageId,
        event: event.type,
        occurred_at: iso(event.created_at),
        application,
        data: message.data,
      });
      for (const webhook of targets) {
        rows.push({
          webhook_id: webhook.id,
          message_id: messageId,
          event: event.type,
          event_id: event.id,
          finding_id: message.findingId,
          policy_id: event.policy_id,
          body,
        });
      }
    }
    created += await insertDeliveries(trx, jobs, rows);
  }
  return created;
}

/** Inserts deliveries and sends their jobs in the caller's transaction; returns how many. */
export async function insertDeliveries(
  trx: Transaction<DB>,
  jobs: Jobs,
  rows: readonly DeliveryInsert[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const ids: number[] = [];
  for (let start = 0; start < rows.length; start += 1000) {
    const inserted = await trx
      .insertInto('webhook_deliveries')
      .values(rows.slice(start, start + 1000))
      .returning('id')
      .execute();
    ids.push(...inserted.map((row) => row.id));
  }
  await jobs.sendMany(
    trx,
    'deliver-webhook',
    ids.map((deliveryId) => ({ deliveryId })),
  );
  return ids.length;
}

/** The messages an event makes, a chunk at a time: one per finding, or the scan. */
async function* messagesOf(trx: Transaction<DB>, event: EventRow): AsyncGenerator<Message[]> {
  const extra = event.data ?? {};
  if (event.type === 'scan.completed') {
    if (event.scan_id === null) return;
    const scan = await trx.selectFrom('scans').selectAll().where('id', '=', event.scan_id).executeTakeFirst();
    if (scan) yield [{ findingId: null, data: { ...presentScan(scan), summary: extra } }];
    return;
  }
  const change =
    event.type === 'finding.status_changed' || event.type === 'finding.reassigned' ? { change: extra } : {};
  const policy = event.policy_id !== null ? { policy: { id: event.policy_id } } : {};
  for await (const ids of findingIdsOf(trx, event)) {
    const rows = await findingsByIds(trx, ids);
    yield rows.map((row) => ({ findingId: row.id, data: { ...presentFinding(row), ...change, ...policy } }));
  }
}

/** Finding ids an event is about: its own, or an upload's new findings (`first_scan_id`). */
async function* findingIdsOf(trx: Transaction<DB>, event: EventRow): AsyncGenerator<number[]> {
  if (event.finding_id !== null) {
    yield [event.finding_id];
    return;
  }
  const firstScanId = Number(event.data?.['first_scan_id']);
  const versionId = Number(event.data?.['version_id']);
  if (!Number.isInteger(firstScanId) || !Number.isInteger(versionId)) return;
  let after = 0;
  for (;;) {
    const rows = await trx
      .selectFrom('findings')
      .select('id')
      .where('version_id', '=', versionId)
      .where('first_scan_id', '=', firstScanId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(FINDING_CHUNK)
      .execute();
    if (rows.length === 0) return;
    yield rows.map((row) => row.id);
    after = rows.at(-1)?.id ?? after;
  }
}
