import { sql, type Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import type { BatchFailures, BatchJob } from '../../jobs/job-map.ts';
import { originOf, sendOutbound, type OutboundResponse } from '../../lib/outbound-http.ts';
import type { Metrics } from '../../observability/metrics.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { signDelivery } from './signing.ts';

/**
 * Sends webhook deliveries, many at once, and records every attempt. A 2xx answer delivers; anything
 * else (another status, a refused address, a timeout) fails the job so pg-boss retries it later with
 * exponential backoff and jitter; on the last try the delivery is `failed` and its webhook `failing`
 * (listed, redeliverable, and still sent new events — never dropped silently).
 */

const USER_AGENT = 'scanhub-webhooks/1';

interface DeliveryContext {
  db: Kysely<DB>;
  secrets: SecretBox;
  config: Pick<Config, 'outbound' | 'webhooks'>;
  metrics: Pick<Metrics, 'webhookDeliveries'>;
}

type Outcome = {
  job: BatchJob<{ deliveryId: number }>;
  deliveryId: number;
  webhookId: number;
  response: OutboundResponse;
  delivered: boolean;
  last: boolean;
};

export function deliveryHeaders(
  message: { id: string; event: string; body: string },
  secret: string | null,
  now = Date.now(),
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'X-Service-Event': message.event,
    'X-Service-Delivery': message.id,
    'X-Service-Timestamp': String(timestamp),
    'webhook-id': message.id,
    'webhook-timestamp': String(timestamp),
    ...(secret ? signDelivery(secret, { id: message.id, timestamp, body: message.body }) : {}),
  };
}

export async function deliverBatch(
  context: DeliveryContext,
  jobs: readonly BatchJob<{ deliveryId: number }>[],
): Promise<BatchFailures> {
  const { db } = context;
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .select([
      'd.id',
      'd.message_id',
      'd.event',
      'd.body',
      'd.status',
      'd.webhook_id',
      'w.url',
      'w.secret_sealed',
      'w.secret_origin',
      'w.active',
    ])
    .where(
      'd.id',
      'in',
      jobs.map((job) => job.data.deliveryId),
    )
    .execute();
  const byId = new Map(rows.map((row) => [row.id, row]));

  const outcomes = await Promise.all(
    jobs.map(async (job): Promise<Outcome | null> => {
      const row = byId.get(job.data.deliveryId);
      // Gone with its webhook, or already settled by an earlier run of this job: nothing to send.
      if (!row || row.status !== 'pending') return null;
      const last = job.retryCount >= job.retryLimit;
      if (!row.active) {
        const response = { durationMs: 0, error: 'webhook is not active' };
        return { job, deliveryId: row.id, webhookId: row.webhook_id, response, delivered: false, last: true };
      }
      // The secret signs only for the origin it was saved with (updateWebhook asks for it again
      // when the URL moves); a row that says otherwise is not sent at all.
      if (row.secret_sealed && originOf(row.url) !== row.secret_origin) {
        const response = { durationMs: 0, error: 'the secret was saved for another address; set it again' };
        return { job, deliveryId: row.id, webhookId: row.webhook_id, response, delivered: false, last: true };
      }
      const secret = row.secret_sealed ? context.secrets.open(row.secret_sealed) : null;
      const response = await sendOutbound({
        url: row.url,
        headers: deliveryHeaders({ id: row.message_id, event: row.event, body: row.body }, secret),
        body: row.body,
        timeoutMs: context.config.webhooks.timeoutMs,
        allowPrivate: context.config.outbound.allowPrivate,
      });
      const delivered = response.status !== undefined && response.status >= 200 && response.status < 300;
      return { job, deliveryId: row.id, webhookId: row.webhook_id, response, delivered, last };
    }),
  );
  const settled = outcomes.filter((outcome): outcome is Outcome => outcome !== null);
  if (settled.length > 0) await record(db, settled);
  for (const outcome of settled) {
    context.metrics.webhookDeliveries.inc({
      outcome: outcome.delivered ? 'delivered' : outcome.last ? 'failed' : 'retried',
    });
  }
  return settled
    .filter((outcome) => !outcome.delivered && !outcome.last)
    .map((outcome) => ({
      id: outcome.job.id,
      error: outcome.response.error ?? `receiver answered ${outcome.response.status}`,
    }));
}

const errorOf = (response: OutboundResponse) =>
  response.error ??
  (response.status !== undefined && (response.status < 200 || response.status >= 300)
    ? `receiver answered ${response.status}`
    : null);

/** Attempts, delivery states and webhook health for a batch: three statements. */
async function record(db: Kysely<DB>, outcomes: readonly Outcome[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_delivery_attempts')
      .values(
        outcomes.map((outcome) => ({
          delivery_id: outcome.deliveryId,
          duration_ms: outcome.response.durationMs,
          status_code: outcome.response.status ?? null,
          error: errorOf(outcome.response),
          response_body: outcome.response.body ?? null,
        })),
      )
      .execute();
    const states = outcomes.map((outcome) => ({
      id: outcome.deliveryId,
      status: outcome.delivered ? 'delivered' : outcome.last ? 'failed' : 'pending',
      code: outcome.response.status ?? null,
      error: errorOf(outcome.response),
    }));
    await sql`
      update webhook_deliveries d
      set status = x.status, attempts = d.attempts + 1, last_status_code = x.code, last_error = x.error,
        completed_at = case when x.status = 'pending' then null else now() end
      from json_to_recordset(${JSON.stringify(states)}::json) as x(id bigint, status text, code integer, error text)
      where d.id = x.id`.execute(trx);
    const health = new Map<number, { code: number | null; delivered: boolean; exhausted: number }>();
    for (const outcome of outcomes) {
      const entry = health.get(outcome.webhookId) ?? { code: null, delivered: false, exhausted: 0 };
      entry.code = outcome.response.status ?? entry.code;
      entry.delivered ||= outcome.delivered;
      if (!outcome.delivered && outcome.last) entry.exhausted += 1;
      health.set(outcome.webhookId, entry);
    }
    const webhooks = [...health].map(([id, entry]) => ({ id, ...entry }));
    // A success clears the failing mark; a delivery that used up its retries sets it.
    await sql`
      update webhooks w
      set last_delivery_at = now(), last_status_code = coalesce(x.code, w.last_status_code),
        consecutive_failures = case when x.delivered then 0 else w.consecutive_failures + x.exhausted end,
        failing_since = case when x.delivered then null
          when x.exhausted > 0 then coalesce(w.failing_since, now()) else w.failing_since end
      from json_to_recordset(${JSON.stringify(webhooks)}::json)
        as x(id integer, code integer, delivered boolean, exhausted integer)
      where w.id = x.id`.execute(trx);
  });
}
