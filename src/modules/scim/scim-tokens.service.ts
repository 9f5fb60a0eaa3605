import type { Kysely, Selectable } from 'kysely';
import { parseId } from '../../access/access.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB, ScimTokensTable } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { iso } from '../../http/schemas.ts';
import { constantTimeEqual, randomToken, sha256Hex } from '../../lib/secrets.ts';

const TOKEN_PREFIX = 'scim_';
const VISIBLE_PREFIX_LENGTH = 13;
/** `last_used_at` is a hint for the admin page, written at most once a minute per token. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface ScimTokenRecord {
  id: number;
  name: string;
  prefix: string;
  last_used_at: string | null;
  created_at: string;
}

function present(row: Selectable<ScimTokensTable>): ScimTokenRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    last_used_at: iso(row.last_used_at),
    created_at: iso(row.created_at),
  };
}

/** A new provisioning token: returned here once, kept only as its SHA-256. */
export async function createScimToken(
  db: Kysely<DB>,
  admin: UserPrincipal,
  name: string,
  audit: AuditContext,
): Promise<ScimTokenRecord & { token: string }> {
  const token = randomToken(TOKEN_PREFIX);
  const row = await db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('scim_tokens')
      .values({
        name,
        prefix: token.slice(0, VISIBLE_PREFIX_LENGTH),
        token_hash: sha256Hex(token),
        created_by: admin.id,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    // Never the token or its hash: its name and visible prefix.
    await recordAudit(trx, audit, {
      action: 'scim_token.created',
      target: { type: 'scim_token', id: inserted.id, label: inserted.name },
      after: { name: inserted.name, prefix: inserted.prefix },
    });
    return inserted;
  });
  return { ...present(row), token };
}

export async function listScimTokens(db: Kysely<DB>): Promise<ScimTokenRecord[]> {
  const rows = await db
    .selectFrom('scim_tokens')
    .selectAll()
    .where('revoked_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map(present);
}

export async function revokeScimToken(
  db: Kysely<DB>,
  idParam: string,
  audit: AuditContext,
): Promise<{ id: number; deleted: true }> {
  const id = parseId(idParam);
  const row =
    id === null
      ? undefined
      : await db.transaction().execute(async (trx) => {
          const revoked = await trx
            .updateTable('scim_tokens')
            .set({ revoked_at: new Date() })
            .where('id', '=', id)
            .where('revoked_at', 'is', null)
            .returning(['id', 'name', 'prefix'])
            .executeTakeFirst();
          if (revoked) {
            await recordAudit(trx, audit, {
              action: 'scim_token.revoked',
              target: { type: 'scim_token', id: revoked.id, label: revoked.name },
              before: { name: revoked.name, prefix: revoked.prefix },
            });
          }
          return revoked;
        });
  if (!row) throw notFound('SCIM token');
  return { id: row.id, deleted: true };
}

/** The live SCIM token the `Authorization: Bearer` value is (its id and name), or null; records its use. */
export async function verifyScimToken(
  db: Kysely<DB>,
  authorization: string | undefined,
): Promise<{ id: number; name: string } | null> {
  const match = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
  const presented = match?.[1];
  if (!presented?.startsWith(TOKEN_PREFIX)) return null;
  const hash = sha256Hex(presented);
  const row = await db
    .selectFrom('scim_tokens')
    .select(['id', 'name', 'token_hash', 'last_used_at'])
    .where('token_hash', '=', hash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  // The index lookup finds the row; the constant-time compare keeps the check itself timing-safe.
  if (!row || !constantTimeEqual(row.token_hash, hash)) return null;
  const now = new Date();
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.updateTable('scim_tokens').set({ last_used_at: now }).where('id', '=', row.id).execute();
  }
  return { id: row.id, name: row.name };
}
