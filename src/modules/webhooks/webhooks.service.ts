import { sql, type Kysely } from 'kysely';
import { holdsAdminPermission } from '../../access/access.ts';
import type { InApplication, ResolvedApplication, WebhookRow } from '../../access/resources.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { badRequest, forbidden } from '../../errors.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { AUDIT_SUBSCRIPTION, parseSubscription } from '../../events/event-types.ts';
import { parseCallbackUrl } from '../../lib/callback-url.ts';
import { originOf } from '../../lib/outbound-http.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { presentWebhook } from './webhooks.presenter.ts';
import type { CreateWebhookInput, UpdateWebhookInput, WebhookRecord } from './webhooks.schema.ts';

/**
 * Webhooks of an application. Managing them needs `write` on it (the spec's "manage webhooks"), and
 * so does reading them: a callback URL is often a credential itself (chat-service hooks are).
 */

function checkedUrl(given: string): string {
  const parsed = parseCallbackUrl(given);
  if ('url' in parsed) return parsed.url;
  const detail = parsed.problem === 'must be a URL' ? 'url is not a valid URL' : `url ${parsed.problem}`;
  throw badRequest('validation_failed', detail, [{ path: '/url', message: parsed.problem }]);
}

function checkedEvents(given: string | readonly string[]): string[] {
  const parsed = parseSubscription(given);
  if ('unknown' in parsed) {
    throw badRequest('validation_failed', `Unknown event: ${parsed.unknown.join(', ').slice(0, 200)}`, [
      { path: '/events', message: 'must name events (finding.created, finding.status_changed, ...), or *' },
    ]);
  }
  return parsed.events;
}

const streamsAudit = (events: readonly string[]) => events.includes(AUDIT_SUBSCRIPTION);

/**
 * A webhook subscribed to `audit.*` receives the whole instance's audit trail, so it is subscribed,
 * changed or deleted, and its deliveries (their bodies are audit events) read or sent again, only by
 * whoever may read the trail: admins, or holders of `audit.read`. Write on the application is not enough.
 */
export async function requireAuditReader(
  db: Kysely<DB>,
  user: UserPrincipal,
  ...subscriptions: readonly (readonly string[])[]
): Promise<void> {
  if (!subscriptions.some(streamsAudit)) return;
  if (await holdsAdminPermission(db, user, 'audit.read')) return;
  throw forbidden(
    'A webhook subscribed to audit.* streams the audit trail: it needs the audit.read permission',
  );
}

/**
 * The deliveries of a webhook that streams the trail, or did (their bodies are audit events), are read
 * and sent again only by whoever may read the trail.
 */
export async function requireAuditReaderOfDeliveries(
  db: Kysely<DB>,
  user: UserPrincipal,
  webhook: { id: number; events: string[] },
): Promise<void> {
  if (streamsAudit(webhook.events)) return requireAuditReader(db, user, webhook.events);
  const streamed = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('webhook_id', '=', webhook.id)
    .where('event', 'like', 'audit.%')
    .limit(1)
    .executeTakeFirst();
  if (streamed) await requireAuditReader(db, user, [AUDIT_SUBSCRIPTION]);
}

/** The id of the newest audit event: a webhook that starts streaming the trail gets what follows it. */
const auditHead = sql<string>`(select last_id from audit_chain)`;

/**
 * A webhook as its audit rows show it: the URL's origin only (the rest of a callback URL is often a
 * credential), and the sealed secret under `secret`, which the masking function replaces: a change
 * of secret shows as a change, never a value.
 */
function auditFields(row: { url: string; events: string[]; active: boolean; secret_sealed: string | null }) {
  return { url_origin: originOf(row.url), events: row.events, active: row.active, secret: row.secret_sealed };
}

export async function listWebhooks(db: Kysely<DB>, app: ResolvedApplication): Promise<WebhookRecord[]> {
  const rows = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('application_id', '=', app.id)
    .orderBy('id')
    .execute();
  return rows.map(presentWebhook);
}

export async function createWebhook(
  db: Kysely<DB>,
  secrets: SecretBox,
  user: UserPrincipal,
  app: ResolvedApplication,
  input: CreateWebhookInput,
  audit: AuditContext,
): Promise<WebhookRecord> {
  const events = checkedEvents(input.events);
  await requireAuditReader(db, user, events);
  const row = await db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('webhooks')
      .values({
        application_id: app.id,
        url: checkedUrl(input.url),
        events,
        audit_cursor: streamsAudit(events) ? auditHead : null,
        secret_sealed: input.secret ? secrets.seal(input.secret) : null,
        secret_origin: input.secret ? originOf(input.url) : null,
        active: input.active ?? true,
        created_by: user.id,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, audit, {
      action: 'webhook.created',
      target: { type: 'webhook', id: inserted.id, label: originOf(inserted.url) },
      applicationId: app.id,
      after: auditFields(inserted),
    });
    return inserted;
  });
  return presentWebhook(row);
}

export function getWebhook({ record: webhook }: InApplication<WebhookRow>): WebhookRecord {
  return presentWebhook(webhook);
}

export async function updateWebhook(
  db: Kysely<DB>,
  secrets: SecretBox,
  user: UserPrincipal,
  { record: webhook }: InApplication<WebhookRow>,
  input: UpdateWebhookInput,
  audit: AuditContext,
): Promise<WebhookRecord> {
  const events = input.events !== undefined ? checkedEvents(input.events) : webhook.events;
  await requireAuditReader(db, user, webhook.events, events);
  // Starting to stream the trail starts at its head; stopping forgets the place.
  const cursor =
    streamsAudit(events) === streamsAudit(webhook.events)
      ? {}
      : { audit_cursor: streamsAudit(events) ? auditHead : null };
  const url = input.url !== undefined ? checkedUrl(input.url) : webhook.url;
  // Whoever may edit a webhook may never have seen its secret: moving it to another origin needs
  // the secret again (or null, to stop signing), so the stored one never signs for a new host.
  if (input.secret === undefined && webhook.secret_sealed && originOf(url) !== webhook.secret_origin) {
    const why = 'must be given again (or null) when url moves to another origin';
    throw badRequest('validation_failed', `secret ${why}`, [{ path: '/secret', message: why }]);
  }
  const row = await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('webhooks')
      .set({
        url,
        ...(input.events !== undefined ? { events } : {}),
        ...cursor,
        ...(input.secret !== undefined
          ? {
              secret_sealed: input.secret ? secrets.seal(input.secret) : null,
              secret_origin: input.secret ? originOf(url) : null,
            }
          : {}),
        // Switching a webhook back on is the user saying the receiver works again.
        ...(input.active !== undefined
          ? {
              active: input.active,
              ...(input.active ? { failing_since: null, consecutive_failures: 0 } : {}),
            }
          : {}),
        updated_at: new Date(),
      })
      .where('id', '=', webhook.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, audit, {
      action: 'webhook.updated',
      target: { type: 'webhook', id: updated.id, label: originOf(updated.url) },
      applicationId: updated.application_id,
      before: { ...auditFields(webhook), url_changed: false },
      after: { ...auditFields(updated), url_changed: updated.url !== webhook.url },
    });
    return updated;
  });
  return presentWebhook(row);
}

export async function deleteWebhook(
  db: Kysely<DB>,
  user: UserPrincipal,
  { record: webhook }: InApplication<WebhookRow>,
  audit: AuditContext,
) {
  await requireAuditReader(db, user, webhook.events);
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('webhooks').where('id', '=', webhook.id).execute();
    await recordAudit(trx, audit, {
      action: 'webhook.deleted',
      target: { type: 'webhook', id: webhook.id, label: originOf(webhook.url) },
      applicationId: webhook.application_id,
      before: auditFields(webhook),
    });
  });
}
