import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { maskSecrets } from './audit-mask.ts';

/**
 * The audit trail's writer (docs/architecture.md, "The audit trail"): rows in the caller's
 * transaction, like the outbox, so a row exists exactly when its change committed. The database
 * chains them (migration 2026-11-28T2000-audit-events): the first row a transaction writes locks the
 * chain's head until commit, so write the audit rows **last**, after the change itself.
 */

/** Who acted: a signed-in user (session), a user's API key, an application token, scanhub itself, an identity provider, or nobody known (a failed sign-in). */
export type AuditActorType = 'user' | 'api_key' | 'application_token' | 'system' | 'idp' | 'anonymous';

export interface AuditActor {
  type: AuditActorType;
  /** The user's id (user, api_key), the application's (application_token), the issuer (idp). */
  id: string | null;
  /** What a reader recognises: the user's email, `application 7`, a job's name, the provider's name. */
  label: string | null;
}

/** Who, from where: derived once per request by the HTTP layer (src/http/audit-context.ts). */
export interface AuditContext {
  actor: AuditActor;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
}

export interface AuditEntry {
  /** `resource.action`, e.g. `user.created`, `finding.status_changed`. */
  action: string;
  target?: { type: string; id?: string | number | null; label?: string | null } | null;
  applicationId?: number | null;
  /**
   * The changed fields' values before and after. Give both for an update (only fields whose value
   * differs are kept), `after` alone for a creation, `before` alone for a deletion. Masked.
   */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  /** Anything else worth keeping (counts, a scan's scanner, an export's format). Masked. */
  details?: Record<string, unknown> | null;
}

/** A context for work nobody requested: a scheduled job, a command at the server's console. */
export function systemAuditContext(label: string): AuditContext {
  return { actor: { type: 'system', id: null, label }, requestId: null, ip: null, userAgent: null };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** `{ field: { before, after } }` of the fields that differ, secrets masked; null when nothing does. */
export function auditChanges(
  before: Record<string, unknown> | null | undefined,
  after: Record<string, unknown> | null | undefined,
): Record<string, { before: unknown; after: unknown }> | null {
  const fields = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const changes: Record<string, { before: unknown; after: unknown }> = {};
  for (const field of fields) {
    const from = before ? before[field] : undefined;
    const to = after ? after[field] : undefined;
    if (before && after && (!(field in after) || same(from, to))) continue;
    changes[field] = {
      before: maskSecrets(from ?? null, field),
      after: maskSecrets(to ?? null, field),
    };
  }
  return Object.keys(changes).length > 0 ? changes : null;
}

const cap = (value: string | null | undefined, length: number) =>
  value === null || value === undefined ? null : value.slice(0, length);

/**
 * Appends audit rows in the caller's transaction: one INSERT … SELECT for any number of entries
 * (bulk triage of 10k findings is one statement), the rows as one JSON parameter.
 */
export async function recordAudit(
  trx: Transaction<DB>,
  context: AuditContext,
  entries: AuditEntry | readonly AuditEntry[],
): Promise<void> {
  const list: readonly AuditEntry[] = Array.isArray(entries) ? entries : [entries as AuditEntry];
  if (list.length === 0) return;
  const rows = list.map((entry) => ({
    action: entry.action,
    target_type: entry.target?.type ?? null,
    target_id: entry.target?.id === undefined || entry.target.id === null ? null : String(entry.target.id),
    target_label: cap(entry.target?.label, 500),
    application_id: entry.applicationId ?? null,
    changes: entry.before || entry.after ? auditChanges(entry.before, entry.after) : null,
    details: entry.details ? maskSecrets(entry.details) : null,
  }));
  await sql`
    insert into audit_events (actor_type, actor_id, actor_label, action, target_type, target_id, target_label,
      application_id, request_id, ip, user_agent, changes, details)
    select ${context.actor.type}, ${context.actor.id}, ${cap(context.actor.label, 500)}, action, target_type,
      target_id, target_label, application_id, ${cap(context.requestId, 200)}, ${cap(context.ip, 100)},
      ${cap(context.userAgent, 500)}, changes, details
    from json_to_recordset(${JSON.stringify(rows)}::json)
      as x(action text, target_type text, target_id text, target_label text, application_id integer,
        changes jsonb, details jsonb)`.execute(trx);
}
