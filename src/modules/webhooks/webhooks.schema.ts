import { Type, type Static } from 'typebox';
import { BodyObject, Nullable, NullableTimestamp, Timestamp } from '../../http/schemas.ts';

const EventName = Type.String({ minLength: 1, maxLength: 64 });

/**
 * One name, a comma-separated list or `*` (the spec's form), or an array of names (the earlier one).
 * `audit.*` streams the whole audit trail (one delivery per audit event, for a SIEM); it needs the
 * `audit.read` permission and is not part of `*`.
 */
const EventsField = Type.Union(
  [Type.String({ minLength: 1, maxLength: 512 }), Type.Array(EventName, { minItems: 1, maxItems: 16 })],
  {
    description:
      'Events: a name, a comma list, `*`, or an array. `audit.*` streams every audit event of the instance (needs `audit.read`; not part of `*`).',
  },
);

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'http or https callback URL' });
const Secret = Type.String({
  minLength: 1,
  maxLength: 256,
  description: 'HMAC key; `whsec_<base64>` is read as a Standard Webhooks key. Never returned.',
});

export const CreateWebhookBody = BodyObject({
  url: Url,
  events: EventsField,
  secret: Type.Optional(Nullable(Secret)),
  active: Type.Optional(Type.Boolean()),
});
export type CreateWebhookInput = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = BodyObject(
  {
    url: Type.Optional(Url),
    events: Type.Optional(EventsField),
    /** A new secret, or `null` to stop signing. */
    secret: Type.Optional(Nullable(Secret)),
    active: Type.Optional(Type.Boolean()),
  },
  { minProperties: 1 },
);
export type UpdateWebhookInput = Static<typeof UpdateWebhookBody>;

export const WebhookSchema = Type.Object(
  {
    id: Type.Integer(),
    application_id: Type.Integer(),
    url: Type.String(),
    /** The subscription in the spec's form: `*` or a comma-separated list. */
    events: Type.String(),
    /** The same subscription as an array (the earlier form). */
    event_list: Type.Array(Type.String()),
    secret_set: Type.Boolean(),
    active: Type.Boolean(),
    /** `failing` once a delivery used up its retries, until the next success. */
    state: Type.Enum(['ok', 'failing']),
    failing_since: NullableTimestamp,
    consecutive_failures: Type.Integer(),
    last_delivery_at: NullableTimestamp,
    last_status_code: Nullable(Type.Integer()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Webhook' },
);
export type WebhookRecord = Static<typeof WebhookSchema>;

export const WebhookParams = Type.Object({ id: Type.String(), webhookId: Type.String() });
export const DeliveryParams = Type.Object({
  id: Type.String(),
  webhookId: Type.String(),
  deliveryId: Type.String(),
});

export const DeliveryQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum(['pending', 'delivered', 'failed'])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
    /** Deliveries older than this id (the next page). */
    before: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);
export type DeliveryQueryInput = Static<typeof DeliveryQuery>;

export const AttemptSchema = Type.Object(
  {
    attempted_at: Timestamp,
    duration_ms: Type.Integer(),
    status_code: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    /** The receiver's answer, cut to 4 KB. */
    response_body: Nullable(Type.String()),
  },
  { title: 'Attempt' },
);

export const DeliverySchema = Type.Object(
  {
    id: Type.Integer(),
    webhook_id: Type.Integer(),
    /** The message id (`X-Service-Delivery`, `webhook-id`): the same across retries and redeliveries. */
    message_id: Type.String(),
    event: Type.String(),
    finding_id: Nullable(Type.Integer()),
    policy_id: Nullable(Type.Integer()),
    status: Type.Enum(['pending', 'delivered', 'failed']),
    attempts: Type.Integer(),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    redelivery_of: Nullable(Type.Integer()),
    created_at: Timestamp,
    completed_at: NullableTimestamp,
    attempt_log: Type.Array(AttemptSchema),
  },
  { title: 'Delivery' },
);
export type DeliveryRecord = Static<typeof DeliverySchema>;

export const DeliveryDetailSchema = Type.Intersect([
  DeliverySchema,
  Type.Object({ request_body: Type.String({ description: 'The JSON body as sent (and signed)' }) }),
]);
export type DeliveryDetailRecord = Static<typeof DeliveryDetailSchema>;
