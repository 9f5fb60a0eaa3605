import type { Selectable } from 'kysely';
import type { WebhookDeliveriesTable, WebhookDeliveryAttemptsTable, WebhooksTable } from '../../db/schema.ts';
import { iso } from '../../http/schemas.ts';
import type { DeliveryRecord, WebhookRecord } from './webhooks.schema.ts';

export function presentWebhook(row: Selectable<WebhooksTable>): WebhookRecord {
  return {
    id: row.id,
    application_id: row.application_id,
    url: row.url,
    events: row.events.join(','),
    event_list: row.events,
    secret_set: row.secret_sealed !== null,
    active: row.active,
    state: row.failing_since ? 'failing' : 'ok',
    failing_since: iso(row.failing_since),
    consecutive_failures: row.consecutive_failures,
    last_delivery_at: iso(row.last_delivery_at),
    last_status_code: row.last_status_code,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export type DeliveryRow = Omit<Selectable<WebhookDeliveriesTable>, 'body'>;
export type AttemptRow = Selectable<WebhookDeliveryAttemptsTable>;

export function presentDelivery(row: DeliveryRow, attempts: readonly AttemptRow[]): DeliveryRecord {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    message_id: row.message_id,
    event: row.event,
    finding_id: row.finding_id,
    policy_id: row.policy_id,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    redelivery_of: row.redelivery_of,
    created_at: iso(row.created_at),
    completed_at: iso(row.completed_at),
    attempt_log: attempts.map((attempt) => ({
      attempted_at: iso(attempt.attempted_at),
      duration_ms: attempt.duration_ms,
      status_code: attempt.status_code,
      error: attempt.error,
      response_body: attempt.response_body,
    })),
  };
}
