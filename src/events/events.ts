import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

/** Event names of the spec; `finding.updated` is the older name covering status changes and reassignments. */
export const EVENT_TYPES = [
  'finding.created',
  'finding.status_changed',
  'finding.reassigned',
  'scan.completed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

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

/** The earlier name: a subscription to it receives status changes and reassignments. */
export const LEGACY_UPDATED_EVENT = 'finding.updated';
export const ALL_EVENTS = '*';

/** Names a subscription may hold: the spec's events, the earlier `finding.updated`, or `*`. */
export const SUBSCRIBABLE_EVENTS: readonly string[] = [...EVENT_TYPES, LEGACY_UPDATED_EVENT, ALL_EVENTS];

/**
 * Reads a subscription given as one name, a comma-separated list, `*`, or an array of names: the
 * distinct names in order, or the ones that are not event names.
 */
export function parseSubscription(
  given: string | readonly string[],
): { events: string[] } | { unknown: string[] } {
  const names = (typeof given === 'string' ? given.split(',') : [...given]).map((name) => name.trim());
  const unknown = names.filter((name) => !SUBSCRIBABLE_EVENTS.includes(name));
  if (unknown.length > 0 || names.length === 0) return { unknown: unknown.length > 0 ? unknown : [''] };
  return { events: [...new Set(names)] };
}

/** Whether a subscription receives `event`. */
export function subscribesTo(subscription: readonly string[], event: string): boolean {
  return (
    subscription.includes(ALL_EVENTS) ||
    subscription.includes(event) ||
    (subscription.includes(LEGACY_UPDATED_EVENT) &&
      (event === 'finding.status_changed' || event === 'finding.reassigned'))
  );
}
