import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { holdsAdminPermission } from '../access/access.ts';
import { isAdmin, type Principal, type UserPrincipal } from '../access/principal.ts';
import { accessRule, delegablePermission, type RouteAccess } from '../access/route-access.ts';
import type { ChangeNotices } from '../db/change-notices.ts';
import type { DB } from '../db/schema.ts';
import { constantTimeEqual, hmacHex, sha256Hex } from '../lib/secrets.ts';
import { AppError, unauthorized } from '../errors.ts';
import { recordAudit } from '../events/audit.ts';
import { ApiKeyCache, type CachedApiKey } from './api-key-cache.ts';
import { auditContextOf } from './audit-context.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route needs, as `resource.action` (src/access/route-access.ts); every route declares it. */
    access?: RouteAccess;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export const SESSION_COOKIE = 'scanhub_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** `last_used_at` is a hint, not an audit log: write it at most once a minute per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function csrfTokenFor(secretKey: string, sessionId: string): string {
  return hmacHex(secretKey, `csrf:${sessionId}`);
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The API key a request carries, from `X-Api-Key` or `Authorization: Bearer`. */
export function apiKeyFrom(request: FastifyRequest): string | undefined {
  const header = headerValue(request, 'x-api-key');
  if (header) return header.trim();
  const authorization = headerValue(request, 'authorization');
  const match = authorization && /^Bearer\s+(\S+)$/i.exec(authorization);
  return match ? match[1] : undefined;
}

async function lookUpApiKey(db: Kysely<DB>, keyHash: string): Promise<CachedApiKey | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select([
      'api_keys.id as key_id',
      'api_keys.expires_at',
      'api_keys.last_used_at',
      'api_keys.read_only',
      'users.id',
      'users.email',
      'users.name',
      'users.role',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', new Date())]))
    .where('users.disabled', '=', false)
    .executeTakeFirst();
  if (!row) return undefined;
  const { id, email, name, role } = row;
  return {
    keyId: row.key_id,
    // Shared by every request of the key while cached: frozen, so no request can change another's.
    principal: Object.freeze({
      kind: 'user',
      id,
      email,
      name,
      role,
      via: 'api_key',
      keyId: row.key_id,
      ...(row.read_only ? { readOnly: true } : {}),
    }),
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
  };
}

/**
 * Stamps `last_used_at`; the first use of a key on a (UTC) day is a sign-in for the audit trail
 * (`auth.api_key_used`), written with the stamp. The conditional update decides which request is
 * first when several servers see the key at once: one row per key and day.
 */
async function stampKeyUse(
  db: Kysely<DB>,
  request: FastifyRequest,
  key: CachedApiKey,
  now: Date,
): Promise<void> {
  const previous = key.lastUsedAt;
  key.lastUsedAt = now;
  const startOfDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  if (previous && previous.getTime() >= startOfDay.getTime()) {
    await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', key.keyId).execute();
    return;
  }
  await db.transaction().execute(async (trx) => {
    const first = await trx
      .updateTable('api_keys')
      .set({ last_used_at: now })
      .where('id', '=', key.keyId)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', startOfDay)]))
      .returning('name')
      .executeTakeFirst();
    if (!first) {
      await trx.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', key.keyId).execute();
      return;
    }
    await recordAudit(trx, auditContextOf(request, key.principal), {
      action: 'auth.api_key_used',
      target: { type: 'api_key', id: key.keyId, label: first.name },
      details: { method: 'api_key', first_use_on: startOfDay.toISOString().slice(0, 10) },
    });
  });
}

async function userByApiKey(
  db: Kysely<DB>,
  cache: ApiKeyCache,
  rawKey: string,
  request: FastifyRequest,
): Promise<UserPrincipal | null> {
  const keyHash = sha256Hex(rawKey);
  const now = new Date();
  let key = cache.find(keyHash, now);
  if (!key) {
    const version = cache.version;
    key = await lookUpApiKey(db, keyHash);
    if (!key) return null;
    cache.remember(keyHash, key, version);
  }
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await stampKeyUse(db, request, key, now);
  }
  return key.principal;
}

async function userBySession(db: Kysely<DB>, rawSession: string): Promise<UserPrincipal | null> {
  const sessionId = sha256Hex(rawSession);
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(['users.id', 'users.email', 'users.name', 'users.role'])
    .where('sessions.id', '=', sessionId)
    .where('sessions.expires_at', '>', new Date())
    .where('users.disabled', '=', false)
    .executeTakeFirst();
  return row ? { kind: 'user', ...row, via: 'session', sessionId } : null;
}

async function applicationByToken(db: Kysely<DB>, rawToken: string): Promise<Principal | null> {
  const row = await db
    .selectFrom('applications')
    .select(['id', 'api_token_hash'])
    .where('api_token_hash', '=', sha256Hex(rawToken))
    .executeTakeFirst();
  // The index lookup finds the row; the constant-time compare keeps the check itself timing-safe.
  if (!row || !constantTimeEqual(row.api_token_hash, sha256Hex(rawToken))) return null;
  return { kind: 'application_token', applicationId: row.id };
}

/**
 * Authenticates every request once and enforces each route's `auth` requirement. Presented but
 * invalid credentials are a 401 even where anonymous access would do, so a typo'd key is noticed.
 */
export function registerAuthentication(
  app: FastifyInstance,
  db: Kysely<DB>,
  secretKey: string,
  changeNotices: ChangeNotices,
  rateLimit: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('audit', null as never);
  const apiKeys = new ApiKeyCache(changeNotices);
  app.addHook('onClose', async () => apiKeys.stopListening());

  app.addHook('onRequest', async (request, reply) => {
    try {
      await authenticate(request);
      // Derived once, here; routes hand it to the services that write audit rows.
      request.audit = auditContextOf(request);
    } catch (error) {
      // A refused request never reaches the route's limit: count it here, against the verified
      // principal if any, else the address, so guessing credentials spends the same budget.
      await rateLimit(request, reply);
      throw error;
    }
  });

  async function authenticate(request: FastifyRequest): Promise<void> {
    // Unknown routes get their 404 whoever asks.
    const access = request.is404 ? 'public' : request.routeOptions.config.access;
    // A route without a declaration cannot be registered (app.ts); 'user' is the safe reading anyway.
    const requirement = access ? accessRule(access).authentication : 'user';
    // The scraper's and SCIM's bearer tokens are not API keys: their routes check them themselves.
    if (requirement === 'metrics_token' || requirement === 'scim_token') return;
    const apiKey = apiKeyFrom(request);
    const appToken = headerValue(request, 'x-api-token');
    const session = request.cookies[SESSION_COOKIE];

    if (
      requirement === 'application_token' ||
      (requirement === 'user_or_application_token' && appToken && !apiKey)
    ) {
      if (!appToken) throw unauthorized('X-Api-Token header with the application API token required');
      request.principal = await applicationByToken(db, appToken);
      if (!request.principal) throw unauthorized('Invalid application API token');
      return;
    }

    if (apiKey) {
      request.principal = await userByApiKey(db, apiKeys, apiKey, request);
      if (!request.principal) throw unauthorized('Invalid, expired or revoked API key');
    } else if (session) {
      request.principal = await userBySession(db, session);
    }
    if (requirement === 'public') return;

    const user = request.principal;
    if (!user || user.kind !== 'user') {
      throw unauthorized(
        appToken
          ? "An application token only uploads (POST /api/ingest) and reads its own application's scans, findings and version comparisons"
          : undefined,
      );
    }
    // Enforced here, for every route at once: a read-only key changes nothing, whatever the route.
    if (user.readOnly && !SAFE_METHODS.has(request.method)) {
      throw new AppError(
        403,
        'read_only_key',
        'This API key is read-only: it may read (GET, HEAD) but not change anything',
      );
    }
    if (user.sessionId && !SAFE_METHODS.has(request.method)) {
      const presented = headerValue(request, 'x-csrf-token') ?? '';
      if (!constantTimeEqual(presented, csrfTokenFor(secretKey, user.sessionId))) {
        throw new AppError(
          403,
          'csrf_failed',
          'Missing or invalid X-CSRF-Token header (GET /api/csrf-token)',
        );
      }
    }
    if (requirement === 'admin' && !isAdmin(user)) {
      const permission = access && delegablePermission(access);
      if (!permission || !(await holdsAdminPermission(db, user, permission))) {
        throw new AppError(
          403,
          'admin_required',
          permission
            ? `This action needs the admin role or the permission ${permission}`
            : 'This action needs the admin role',
        );
      }
    }
  }
}

/** The caller of a route an application token may also call: a signed-in user or the token. */
export function currentPrincipal(request: FastifyRequest): Principal {
  const principal = request.principal;
  if (!principal) throw unauthorized();
  return principal;
}

/** The signed-in user of a route that requires one (a declaration whose authentication is a user). */
export function currentUser(request: FastifyRequest): UserPrincipal {
  const principal = request.principal;
  if (!principal || principal.kind !== 'user') throw unauthorized();
  return principal;
}
