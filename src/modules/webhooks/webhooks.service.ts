import type { Kysely } from 'kysely';
import type { InApplication, ResolvedApplication, WebhookRow } from '../../access/resources.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { badRequest } from '../../errors.ts';
import { parseSubscription } from '../../events/event-types.ts';
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
): Promise<WebhookRecord> {
  const row = await db
    .insertInto('webhooks')
    .values({
      application_id: app.id,
      url: checkedUrl(input.url),
      events: checkedEvents(input.events),
      secret_sealed: input.secret ? secrets.seal(input.secret) : null,
      secret_origin: input.secret ? originOf(input.url) : null,
      active: input.active ?? true,
      created_by: user.id,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return presentWebhook(row);
}

export function getWebhook({ record: webhook }: InApplication<WebhookRow>): WebhookRecord {
  return presentWebhook(webhook);
}

export async function updateWebhook(
  db: Kysely<DB>,
  secrets: SecretBox,
  { record: webhook }: InApplication<WebhookRow>,
  input: UpdateWebhookInput,
): Promise<WebhookRecord> {
  const url = input.url !== undefined ? checkedUrl(input.url) : webhook.url;
  // Whoever may edit a webhook may never have seen its secret: moving it to another origin needs
  // the secret again (or null, to stop signing), so the stored one never signs for a new host.
  if (input.secret === undefined && webhook.secret_sealed && originOf(url) !== webhook.secret_origin) {
    const why = 'must be given again (or null) when url moves to another origin';
    throw badRequest('validation_failed', `secret ${why}`, [{ path: '/secret', message: why }]);
  }
  const row = await db
    .updateTable('webhooks')
    .set({
      url,
      ...(input.events !== undefined ? { events: checkedEvents(input.events) } : {}),
      ...(input.secret !== undefined
        ? {
            secret_sealed: input.secret ? secrets.seal(input.secret) : null,
            secret_origin: input.secret ? originOf(url) : null,
          }
        : {}),
      // Switching a webhook back on is the user saying the receiver works again.
      ...(input.active !== undefined
        ? { active: input.active, ...(input.active ? { failing_since: null, consecutive_failures: 0 } : {}) }
        : {}),
      updated_at: new Date(),
    })
    .where('id', '=', webhook.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return presentWebhook(row);
}

export async function deleteWebhook(db: Kysely<DB>, { record: webhook }: InApplication<WebhookRow>) {
  await db.deleteFrom('webhooks').where('id', '=', webhook.id).execute();
}
