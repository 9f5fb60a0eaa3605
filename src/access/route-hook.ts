import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { unauthorized } from '../errors.ts';
import { authorize, type AccessReport } from './access.ts';
import { referenceOf, type PathParams, type RecordOf, type ResourceKindName } from './resources.ts';
import { accessRule } from './route-access.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How this route's resource refusals read (src/access/access.ts); `each` unless set. */
    accessReport?: AccessReport;
  }
  interface FastifyRequest {
    /** The record the route's path names, resolved and checked before the handler (null: none). */
    resource: { kind: ResourceKindName; record: unknown } | null;
  }
}

/**
 * Resolves the resource each route declares (`config.access`, src/access/route-access.ts) from its
 * path parameters and checks the declared level, through `authorize`, before the handler runs:
 * after body and query validation (a bad request is a 400 whoever sends it, as before), after
 * authentication (onRequest). Handlers read the record with `resourceOf`, never the path string.
 */
export function registerResourceAccess(app: FastifyInstance, db: Kysely<DB>): void {
  app.decorateRequest('resource', null);
  app.addHook('preHandler', async (request) => {
    const access = request.routeOptions.config.access;
    if (request.is404 || !access) return;
    const rule = accessRule(access);
    // A token-only route names its application by the token itself (POST /api/ingest).
    if (!rule.resource || rule.authentication === 'application_token') return;
    const named = referenceOf(rule.resource, {
      params: (request.params ?? {}) as PathParams,
      body: request.body,
    });
    if (!named)
      throw new Error(`${request.routeOptions.url} declares a ${rule.resource} its request does not name`);
    if (!request.principal) throw unauthorized();
    const [record] = await authorize(
      db,
      request.principal,
      named.kind,
      [named.ref as never],
      rule.level ?? 'read',
      request.routeOptions.config.accessReport,
    );
    request.resource = { kind: named.kind, record };
  });
}

/** The record of `kind` the route hook resolved for this request (the route must declare it). */
export function resourceOf<K extends ResourceKindName>(request: FastifyRequest, kind: K): RecordOf<K> {
  const resource = request.resource;
  if (resource?.kind !== kind) {
    throw new Error(`${request.routeOptions.url} reads a ${kind} but resolved ${resource?.kind ?? 'none'}`);
  }
  return resource.record as RecordOf<K>;
}
