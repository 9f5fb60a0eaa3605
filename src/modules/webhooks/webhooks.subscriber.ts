import { randomUUID } from 'node:crypto';
import type { Insertable, Transaction } from 'kysely';
import type { DB, WebhookDeliveriesTable } from '../../db/schema.ts';
import { EVENT_TYPES, subscribesTo } from '../../events/event-types.ts';
import type { AfterCommitContext, OutboxEvent, Subscriber } from '../../events/subscribers.ts';
import { iso } from '../../http/schemas.ts';
import { presentFinding } from '../findings/findings.presenter.ts';
import { findingsByIds } from '../findings/findings.repository.ts';
import { presentScan } from '../scans/scans.presenter.ts';

/**
 * The webhooks' after-commit reaction: each committed event is expanded into one message per finding
 * (an upload announces its new findings with one event), and each message into one delivery per
 * webhook that subscribes to it — or, for a policy's `webhook` action, per active webhook of the
 * application. Deliveries and their jobs are written in the outbox dispatcher's transaction.
 */

/**
 * Messages per transaction. An upload's `finding.created` may stand for 100k findings; it is sent in
 * slices, its progress kept in `dispatch_cursor`, so no transaction holds the database for long
 * (on PGlite, the one session every request shares).
 */
const MESSAGE_BUDGET = 500;

type WebhookTarget = { id: number; application_id: number; events: string[] };
type ApplicationRef = { id: number; slug: string; group_id: number };
type DeliveryInsert = Insertable<WebhookDeliveriesTable>;

interface Message {
  findingId: number | null;
  data: Record<string, unknown>;
}

/**
 * Creates the deliveries of events in id order until the message budget is spent; done with the
 * events it sent whole, and with those no webhook wants. An event it stopped in keeps its cursor.
 */
async function deliverEvents(
  trx: Transaction<DB>,
  events: readonly OutboxEvent[],
  { jobs }: AfterCommitContext,
): Promise<{ done: number[] }> {
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
  let budget = MESSAGE_BUDGET;
  const done: number[] = [];
  for (const event of events) {
    if (budget <= 0) break;
    const application = applications.find((app) => app.id === event.application_id);
    const targets = webhooks.filter(
      (webhook) =>
        webhook.application_id === event.application_id &&
        (event.policy_id !== null || subscribesTo(webhook.events, event.type)),
    );
    if (!application || targets.length === 0) {
      done.push(event.id);
      continue;
    }
    const messages = await messagesOf(trx, event, budget);
    budget -= Math.max(1, messages.list.length);
    await insertDeliveries(trx, jobs, deliveryRows(event, application, targets, messages.list));
    if (messages.cursor === null) {
      done.push(event.id);
    } else {
      await trx
        .updateTable('events')
        .set({ dispatch_cursor: messages.cursor })
        .where('id', '=', event.id)
        .execute();
      break;
    }
  }
  return { done };
}

/** Webhooks receive every event type; which webhook wants which event is its own subscription. */
export const webhookSubscriber: Subscriber = {
  name: 'webhooks',
  events: EVENT_TYPES,
  afterCommit: deliverEvents,
};

function deliveryRows(
  event: OutboxEvent,
  application: ApplicationRef,
  targets: readonly WebhookTarget[],
  messages: readonly Message[],
): DeliveryInsert[] {
  return messages.flatMap((message) => {
    const messageId = randomUUID();
    const body = JSON.stringify({
      id: messageId,
      event: event.type,
      occurred_at: iso(event.created_at),
      application,
      data: message.data,
    });
    return targets.map((webhook) => ({
      webhook_id: webhook.id,
      message_id: messageId,
      event: event.type,
      event_id: event.id,
      finding_id: message.findingId,
      policy_id: event.policy_id,
      body,
    }));
  });
}

/** Inserts deliveries and sends their jobs in the caller's transaction; returns how many. */
export async function insertDeliveries(
  trx: Transaction<DB>,
  jobs: AfterCommitContext['jobs'],
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

/**
 * Up to `limit` messages of an event — one per finding, or the scan — and where to go on from:
 * `cursor` is the last finding id sent when more may follow, null when the event is done.
 */
async function messagesOf(
  trx: Transaction<DB>,
  event: OutboxEvent,
  limit: number,
): Promise<{ list: Message[]; cursor: number | null }> {
  const extra = event.data ?? {};
  if (event.type.startsWith('acceptance.')) {
    // About an acceptance, not a finding: the event's data is the acceptance as the API shows it.
    return { list: [{ findingId: null, data: extra }], cursor: null };
  }
  if (event.type === 'scan.completed') {
    const scan =
      event.scan_id === null
        ? undefined
        : await trx.selectFrom('scans').selectAll().where('id', '=', event.scan_id).executeTakeFirst();
    return {
      list: scan ? [{ findingId: null, data: { ...presentScan(scan), summary: extra } }] : [],
      cursor: null,
    };
  }
  const change =
    event.type === 'finding.status_changed' || event.type === 'finding.reassigned'
      ? { change: extra }
      : event.type === 'finding.sla_breached'
        ? { sla: extra }
        : event.type === 'finding.kev_listed' || event.type === 'finding.epss_changed'
          ? { enrichment: extra }
          : {};
  const policy = event.policy_id !== null ? { policy: { id: event.policy_id } } : {};
  const { ids, cursor } = await findingIdsOf(trx, event, limit);
  const rows = await findingsByIds(trx, ids);
  return {
    list: rows.map((row) => ({ findingId: row.id, data: { ...presentFinding(row), ...change, ...policy } })),
    cursor,
  };
}

/** Finding ids an event is about: its own, or the next slice of an upload's new findings. */
async function findingIdsOf(
  trx: Transaction<DB>,
  event: OutboxEvent,
  limit: number,
): Promise<{ ids: number[]; cursor: number | null }> {
  if (event.finding_id !== null) return { ids: [event.finding_id], cursor: null };
  const firstScanId = Number(event.data?.['first_scan_id']);
  const versionId = Number(event.data?.['version_id']);
  if (!Number.isInteger(firstScanId) || !Number.isInteger(versionId)) return { ids: [], cursor: null };
  const rows = await trx
    .selectFrom('findings')
    .select('id')
    .where('version_id', '=', versionId)
    .where('first_scan_id', '=', firstScanId)
    .where('id', '>', event.dispatch_cursor ?? 0)
    .orderBy('id')
    .limit(limit)
    .execute();
  const ids = rows.map((row) => row.id);
  return { ids, cursor: ids.length === limit ? (ids.at(-1) ?? null) : null };
}
