import { randomUUID } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import type { DB, WebhookDeliveriesTable } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import { iso } from '../../http/schemas.ts';
import type { Jobs } from '../../jobs/job-map.ts';
import { presentDelivery, type AttemptRow, type DeliveryRow } from './webhooks.presenter.ts';
import type { DeliveryDetailRecord, DeliveryQueryInput, DeliveryRecord } from './webhooks.schema.ts';
import type { InApplication, WebhookRow } from '../../access/resources.ts';

const DELIVERY_COLUMNS = [
  'id',
  'webhook_id',
  'message_id',
  'event',
  'event_id',
  'finding_id',
  'policy_id',
  'status',
  'attempts',
  'last_status_code',
  'last_error',
  'redelivery_of',
  'created_at',
  'completed_at',
] as const;

async function attemptsOf(
  db: Kysely<DB>,
  deliveryIds: readonly number[],
): Promise<Map<number, AttemptRow[]>> {
  const byDelivery = new Map<number, AttemptRow[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await db
    .selectFrom('webhook_delivery_attempts')
    .selectAll()
    .where('delivery_id', 'in', [...deliveryIds])
    .orderBy('id')
    .execute();
  for (const row of rows) byDelivery.set(row.delivery_id, [...(byDelivery.get(row.delivery_id) ?? []), row]);
  return byDelivery;
}

async function present(db: Kysely<DB>, rows: readonly DeliveryRow[]): Promise<DeliveryRecord[]> {
  const attempts = await attemptsOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => presentDelivery(row, attempts.get(row.id) ?? []));
}

/** A webhook's deliveries, newest first, each with its attempts. */
export async function listDeliveries(
  db: Kysely<DB>,
  { record: webhook }: InApplication<WebhookRow>,
  query: DeliveryQueryInput,
): Promise<DeliveryRecord[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(DELIVERY_COLUMNS)
    .where('webhook_id', '=', webhook.id)
    .$if(query.status !== undefined, (q) => q.where('status', '=', query.status ?? 'pending'))
    .$if(query.before !== undefined, (q) => q.where('id', '<', query.before ?? 0))
    .orderBy('id', 'desc')
    .limit(query.limit ?? 50)
    .execute();
  return present(db, rows);
}

/** A delivery of the webhook the route hook authorized, by its path id (not a positive integer: null). */
async function requireDelivery(
  db: Kysely<DB>,
  { record: webhook }: InApplication<WebhookRow>,
  id: number | null,
) {
  const row =
    id === null
      ? undefined
      : await db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('id', '=', id)
          .where('webhook_id', '=', webhook.id)
          .executeTakeFirst();
  if (!row) throw notFound('Delivery');
  return row;
}

/** One delivery with the body it sent. */
export async function getDelivery(
  db: Kysely<DB>,
  webhook: InApplication<WebhookRow>,
  deliveryId: number | null,
): Promise<DeliveryDetailRecord> {
  const row = await requireDelivery(db, webhook, deliveryId);
  const [record] = await present(db, [row]);
  return { ...(record as DeliveryRecord), request_body: row.body };
}

async function enqueueOne(
  db: Kysely<DB>,
  jobs: Jobs,
  values: Insertable<WebhookDeliveriesTable>,
): Promise<DeliveryRecord> {
  const id = await db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('webhook_deliveries')
      .values(values)
      .returning('id')
      .executeTakeFirstOrThrow();
    await jobs.send(trx, 'deliver-webhook', { deliveryId: inserted.id });
    return inserted.id;
  });
  jobs.wake('deliver-webhook');
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(DELIVERY_COLUMNS)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const [record] = await present(db, [row]);
  return record as DeliveryRecord;
}

/**
 * Sends a delivery's body again as a new delivery with its own attempts. It keeps the message id, so
 * a receiver that already processed the message can tell (Standard Webhooks `webhook-id`).
 */
export async function redeliver(
  db: Kysely<DB>,
  jobs: Jobs,
  webhook: InApplication<WebhookRow>,
  deliveryId: number | null,
): Promise<DeliveryRecord> {
  const original = await requireDelivery(db, webhook, deliveryId);
  return enqueueOne(db, jobs, {
    webhook_id: original.webhook_id,
    message_id: original.message_id,
    event: original.event,
    event_id: original.event_id,
    finding_id: original.finding_id,
    policy_id: original.policy_id,
    body: original.body,
    redelivery_of: original.id,
  });
}

/** Sends a `ping` event, so a user can check the receiver and its signature check. */
export async function ping(
  db: Kysely<DB>,
  jobs: Jobs,
  { application: app, record: webhook }: InApplication<WebhookRow>,
): Promise<DeliveryRecord> {
  const application = await db
    .selectFrom('applications')
    .select(['id', 'slug', 'group_id'])
    .where('id', '=', app.id)
    .executeTakeFirstOrThrow();
  const messageId = randomUUID();
  return enqueueOne(db, jobs, {
    webhook_id: webhook.id,
    message_id: messageId,
    event: 'ping',
    body: JSON.stringify({
      id: messageId,
      event: 'ping',
      occurred_at: iso(new Date()),
      application,
      data: { webhook_id: webhook.id, events: webhook.events },
    }),
  });
}
