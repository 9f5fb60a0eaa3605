import type { FastifyRequest } from 'fastify';
import type { Principal } from '../access/principal.ts';
import type { AuditActor, AuditContext } from '../events/audit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Who is acting and from where, for the audit trail: derived once, when the request is
     * authenticated (auth.ts), and handed to the services that record audit rows.
     */
    audit: AuditContext;
  }
}

const USER_AGENT_LENGTH = 500;

/** The audit actor a principal stands for: the user (signed in, or by one of their API keys) or an application's token. */
export function auditActorOf(principal: Principal | null): AuditActor {
  if (!principal) return { type: 'anonymous', id: null, label: null };
  if (principal.kind === 'application_token') {
    return {
      type: 'application_token',
      id: String(principal.applicationId),
      label: `application ${principal.applicationId}`,
    };
  }
  if (principal.via === 'api_key') {
    return {
      type: 'api_key',
      id: String(principal.id),
      label: principal.keyId ? `${principal.email} (API key ${principal.keyId})` : principal.email,
    };
  }
  return { type: 'user', id: String(principal.id), label: principal.email };
}

/** The audit context of a request: its principal as actor, its id, address (per TRUST_PROXY) and user agent. */
export function auditContextOf(request: FastifyRequest, principal = request.principal): AuditContext {
  const agent = request.headers['user-agent'];
  return {
    actor: auditActorOf(principal),
    requestId: String(request.id),
    ip: request.ip ?? null,
    userAgent: typeof agent === 'string' ? agent.slice(0, USER_AGENT_LENGTH) : null,
  };
}

/** The same request's context with another actor: whom a sign-in just proved, or an identity provider. */
export function withActor(context: AuditContext, actor: AuditActor): AuditContext {
  return { ...context, actor };
}
