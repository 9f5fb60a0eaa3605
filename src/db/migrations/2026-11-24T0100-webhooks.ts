import { sql, type Kysely } from 'kysely';

/**
 * Webhooks and their deliveries. A delivery is one message to one webhook: its body is stored as
 * sent (the signature covers these bytes, and a redelivery sends them again); each try is an attempt
 * row. `message_id` names the message across retries and redeliveries (Standard Webhooks `webhook-id`),
 * so a receiver can drop duplicates.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table webhooks (
    id serial primary key,
    application_id integer not null references applications (id) on delete cascade,
    url text not null,
    events text[] not null,
    secret_sealed text,
    active boolean not null default true,
    failing_since timestamptz,
    consecutive_failures integer not null default 0,
    last_delivery_at timestamptz,
    last_status_code integer,
    created_by integer references users (id) on delete set null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index webhooks_application_idx on webhooks (application_id)`.execute(db);

  await sql`create table webhook_deliveries (
    id bigserial primary key,
    webhook_id integer not null references webhooks (id) on delete cascade,
    message_id uuid not null,
    event text not null,
    event_id bigint,
    finding_id integer,
    policy_id integer,
    body text not null,
    status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
    attempts integer not null default 0,
    last_status_code integer,
    last_error text,
    redelivery_of bigint references webhook_deliveries (id) on delete set null,
    created_at timestamptz not null default now(),
    completed_at timestamptz
  )`.execute(db);
  await sql`create index webhook_deliveries_webhook_idx on webhook_deliveries (webhook_id, id desc)`.execute(
    db,
  );

  await sql`create table webhook_delivery_attempts (
    id bigserial primary key,
    delivery_id bigint not null references webhook_deliveries (id) on delete cascade,
    attempted_at timestamptz not null default now(),
    duration_ms integer not null,
    status_code integer,
    error text,
    response_body text
  )`.execute(db);
  await sql`create index webhook_delivery_attempts_delivery_idx on webhook_delivery_attempts (delivery_id, id)`.execute(
    db,
  );
}
