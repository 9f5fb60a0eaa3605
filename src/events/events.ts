import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { EventType } from './event-types.ts';

export interface DomainEvent {
  type: EventType;
  applicationId: number;
  findingId?: number | null;
  scanId?: number | null;
  data?: Record<string, unknown>;
  /**
   * A policy's `webhook` action: the event goes to every active webhook of the application, whatever
   * they subscribe to, and names the policy in its payload.
   */
  policyId?: number | null;
}

/**
 * Writes events to the outbox in the caller's transaction, so an event exists exactly when its change
 * committed. Delivery (webhooks, policies) reads the outbox after commit.
 */
export async function publishEvents(trx: Transaction<DB>, events: readonly DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  // One statement for any number of events, the rows as one JSON parameter.
  const rows = events.map((event) => ({
    type: event.type,
    application_id: event.applicationId,
    finding_id: event.findingId ?? null,
    scan_id: event.scanId ?? null,
    data: event.data ?? null,
    policy_id: event.policyId ?? null,
  }));
  await sql`
    insert into events (type, application_id, finding_id, scan_id, data, policy_id)
    select type, application_id, finding_id, scan_id, data, policy_id
    from json_to_recordset(${JSON.stringify(rows)}::json)
      as x(type text, application_id integer, finding_id integer, scan_id integer, data jsonb, policy_id integer)`.execute(
    trx,
  );
}
