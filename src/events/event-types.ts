/**
 * The names of events and what a subscription to them means. A leaf: the policy definitions and the
 * table types read these names without reaching the outbox writer (events.ts).
 */

/** Event names of the spec; `finding.updated` is the older name covering status changes and reassignments. */
export const EVENT_TYPES = [
  'finding.created',
  'finding.status_changed',
  'finding.reassigned',
  'scan.completed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

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
