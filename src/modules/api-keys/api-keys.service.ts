import type { Kysely, Selectable } from 'kysely';
import { parseId } from '../../access/access.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { ApiKeysTable, DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import { iso } from '../../http/schemas.ts';
import { randomToken, sha256Hex } from '../../lib/secrets.ts';
import type { ApiKeyRecord, CreateApiKeyInput } from './api-keys.schema.ts';

const KEY_PREFIX = 'shk_';
const VISIBLE_PREFIX_LENGTH = 12;

function presentApiKey(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    read_only: row.read_only,
    expires_at: iso(row.expires_at),
    last_used_at: iso(row.last_used_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export async function listApiKeys(db: Kysely<DB>, owner: UserPrincipal): Promise<ApiKeyRecord[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', owner.id)
    .where('revoked_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map(presentApiKey);
}

/**
 * Creates a key for the caller; the raw key is returned here and never again (only its hash is kept).
 * Only a signed-in person (a session) may: a key that could mint keys would outlive its own
 * revocation or expiry, and a read-only key could mint a full one (403 `session_required`).
 */
export async function createApiKey(
  db: Kysely<DB>,
  owner: UserPrincipal,
  input: CreateApiKeyInput,
  audit: AuditContext,
): Promise<ApiKeyRecord & { key: string }> {
  if (owner.via !== 'session') {
    throw new AppError(
      403,
      'session_required',
      'API keys are created by a signed-in session (POST /api/auth/login), not with another API key',
    );
  }
  const expiresRaw = input.expires_at;
  const expiresAt = expiresRaw ? new Date(expiresRaw) : null;
  if (expiresAt && expiresAt.getTime() <= Date.now()) {
    throw badRequest('validation_failed', 'expires_at must be in the future', [
      { path: 'body.expires_at', message: 'must be in the future' },
    ]);
  }
  const key = randomToken(KEY_PREFIX);
  const row = await db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('api_keys')
      .values({
        user_id: owner.id,
        name: input.name,
        prefix: key.slice(0, VISIBLE_PREFIX_LENGTH),
        key_hash: sha256Hex(key),
        expires_at: expiresAt,
        read_only: input.read_only ?? false,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    // Never the key or its hash: its name, visible prefix, expiry and whether it is read-only.
    await recordAudit(trx, audit, {
      action: 'api_key.created',
      target: { type: 'api_key', id: inserted.id, label: inserted.name },
      after: {
        user_id: owner.id,
        name: inserted.name,
        prefix: inserted.prefix,
        read_only: inserted.read_only,
        expires_at: inserted.expires_at,
      },
    });
    return inserted;
  });
  return { ...presentApiKey(row), key };
}

/** Revokes one of the caller's keys; someone else's key or an unknown id → 404. */
export async function revokeApiKey(
  db: Kysely<DB>,
  owner: UserPrincipal,
  idParam: string,
  audit: AuditContext,
) {
  const id = parseId(idParam);
  if (id === null) throw notFound('API key');
  const revokedAt = new Date();
  const row = await db.transaction().execute(async (trx) => {
    const revoked = await trx
      .updateTable('api_keys')
      .set({ revoked_at: revokedAt, updated_at: revokedAt })
      .where('id', '=', id)
      .where('user_id', '=', owner.id)
      .where('revoked_at', 'is', null)
      .returning(['id', 'name', 'prefix'])
      .executeTakeFirst();
    if (!revoked) throw notFound('API key');
    await recordAudit(trx, audit, {
      action: 'api_key.revoked',
      target: { type: 'api_key', id: revoked.id, label: revoked.name },
      details: { user_id: owner.id, prefix: revoked.prefix },
    });
    return revoked;
  });
  return { id: row.id, revoked: true, revoked_at: revokedAt.toISOString() };
}
