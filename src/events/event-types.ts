/**
 * The names of events and what a subscription to them means. A leaf: the policy definitions and the
 * table types read these names without reaching the outbox writer (events.ts).
 */

/** Event names of the spec; `finding.updated` is the older name covering status changes and reassignments. */
export const FINDING_EVENT_TYPES = [
  'finding.created',
  'finding.status_changed',
  'finding.reassigned',
  'scan.completed',
  /** An open finding's SLA due date passed (once per finding; domain/findings/sla-breach.ts). */
  'finding.sla_breached',
  /** An enrichment import first listed one of the finding's CVEs in CISA KEV (once per finding). */
  'finding.kev_listed',
  /** Its EPSS percentile crossed the configured threshold, up or down (once per finding and snapshot). */
  'finding.epss_changed',
] as const;

/**
 * An acceptance's life (modules/acceptances): made, approved or rejected by a second person,
 * extended, revoked, about to expire (`acceptance.expiring`, a configurable number of days before)
 * and expired. About an acceptance, not a finding: webhooks receive the acceptance; policies do not
 * react to them (what the acceptance does to findings is a `finding.status_changed` of its own).
 */
export const ACCEPTANCE_EVENT_TYPES = [
  'acceptance.created',
  'acceptance.approved',
  'acceptance.rejected',
  'acceptance.extended',
  'acceptance.revoked',
  'acceptance.expiring',
  'acceptance.expired',
] as const;
export type AcceptanceEventType = (typeof ACCEPTANCE_EVENT_TYPES)[number];

export const EVENT_TYPES = [...FINDING_EVENT_TYPES, ...ACCEPTANCE_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The audit trail (docs/architecture.md, "The audit trail"): a webhook subscribed to it gets one
 * delivery per audit event of the whole instance, event `audit.<action>` (for a SIEM). Not part of
 * `*`, and only whoever may read the trail (`audit.read`) may subscribe a webhook to it.
 */
export const AUDIT_SUBSCRIPTION = 'audit.*';

/** The earlier name: a subscription to it receives status changes and reassignments. */
export const LEGACY_UPDATED_EVENT = 'finding.updated';
export const ALL_EVENTS = '*';

/** Names a subscription may hold: the spec's events, the earlier `finding.updated`, `*`, or the audit trail. */
export const SUBSCRIBABLE_EVENTS: readonly string[] = [
  ...EVENT_TYPES,
  LEGACY_UPDATED_EVENT,
  ALL_EVENTS,
  AUDIT_SUBSCRIPTION,
];

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
