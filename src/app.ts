import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyRequest } from 'fastify';
import { isRouteAccess } from './access/route-access.ts';
import { registerResourceAccess } from './access/route-hook.ts';
import type { App, AppContext } from './app-context.ts';
import type { Config } from './config.ts';
import { registerAuthentication } from './http/auth.ts';
import { registerErrorHandling, sendFrameworkError, sendProblem } from './http/errors.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerTwinFolding } from './http/camel-case-twins.ts';
import { registerStrictQuery } from './http/strict-query.ts';
import { registerNulByteGuard, registerRequestTargetGuard, schemaController } from './http/validation.ts';
import { registerWebUi } from './http/web-ui.ts';
import { scimRoutes } from './modules/scim/scim.routes.ts';
import { loggableError } from './lib/loggable-error.ts';
import { apiKeyRoutes } from './modules/api-keys/api-keys.routes.ts';
import { applicationRoutes } from './modules/applications/applications.routes.ts';
import { assigneeRoutes } from './modules/applications/assignees.routes.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { dashboardRoutes } from './modules/dashboard/dashboard.routes.ts';
import { metricsRoutes } from './modules/metrics/metrics.routes.ts';
import { postureRoutes } from './modules/metrics/posture.routes.ts';
import { directoryRoutes } from './modules/directory/directory.routes.ts';
import { findingRoutes } from './modules/findings/findings.routes.ts';
import { groupRoutes } from './modules/groups/groups.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { ingestRoutes } from './modules/ingest/ingest.routes.ts';
import { issueTrackerRoutes } from './modules/issue-trackers/issue-trackers.routes.ts';
import { accessListRoutes } from './modules/permissions/access-list.routes.ts';
import { permissionRoutes } from './modules/permissions/permissions.routes.ts';
import { policyRoutes } from './modules/policies/policies.routes.ts';
import { acceptanceRoutes } from './modules/acceptances/acceptances.routes.ts';
import { scannerTypeRoutes } from './modules/scanner-types/scanner-types.routes.ts';
import { scanRoutes } from './modules/scans/scans.routes.ts';
import { slaRoutes } from './modules/sla/sla.routes.ts';
import { componentRoutes } from './modules/components/components.routes.ts';
import { vexRoutes } from './modules/vex/vex.routes.ts';
import { licensePolicyRoutes } from './modules/license-policies/license-policies.routes.ts';
import { ssoRoutes } from './modules/sso/sso.routes.ts';
import { teamRoutes } from './modules/teams/teams.routes.ts';
import { userRoutes } from './modules/users/users.routes.ts';
import { compareRoutes } from './modules/versions/compare.routes.ts';
import { versionRoutes } from './modules/versions/versions.routes.ts';
import { webhookRoutes } from './modules/webhooks/webhooks.routes.ts';
import { workerRoutes } from './modules/workers/workers.routes.ts';
import { auditRoutes } from './modules/audit/audit.routes.ts';
import { enrichmentRoutes } from './modules/enrichment/enrichment.routes.ts';

/** Every module's routes, in registration order. */
const ROUTE_MODULES: ((app: App, context: AppContext) => void)[] = [
  healthRoutes,
  authRoutes,
  ssoRoutes,
  userRoutes,
  apiKeyRoutes,
  teamRoutes,
  groupRoutes,
  applicationRoutes,
  compareRoutes,
  versionRoutes,
  permissionRoutes,
  scannerTypeRoutes,
  findingRoutes,
  ingestRoutes,
  scanRoutes,
  componentRoutes,
  vexRoutes,
  licensePolicyRoutes,
  dashboardRoutes,
  metricsRoutes,
  postureRoutes,
  webhookRoutes,
  policyRoutes,
  slaRoutes,
  acceptanceRoutes,
  issueTrackerRoutes,
  workerRoutes,
  auditRoutes,
  enrichmentRoutes,
  accessListRoutes,
  assigneeRoutes,
  directoryRoutes,
  scimRoutes,
];

/**
 * Query parameter names whose values are credentials (a tracker's webhook URL carries `?secret=`; an
 * OpenID callback carries the authorization `code` and the `state` that binds it to a browser).
 */
const SECRET_PARAMETER = /secret|token|password|api[-_]?key|^code$|^state$/;

/** A parameter name as the query parser reads it: percent-decoded, `+` a space, `[…]` suffix dropped. */
function parameterName(raw: string): string {
  let name = raw.replaceAll('+', ' ');
  try {
    name = decodeURIComponent(name);
  } catch {
    // Malformed escapes stay as written; the parser will not read them as a secret's name either.
  }
  return name.replace(/\[.*$/s, '').trim().toLowerCase();
}

/**
 * A URL as logged: the value of every query parameter named like a credential replaced, however
 * the name is spelled (`?%73ecret=`, `?secret[]=`, `?SECRET%5B0%5D=`).
 */
export function withoutQuerySecrets(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const query = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair;
      const name = pair.slice(0, equals);
      return SECRET_PARAMETER.test(parameterName(name)) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, start)}?${query.join('&')}`;
}

/**
 * Rate-limit bucket: the principal authentication verified (the limit runs after it, see
 * registerAuthentication), else the client address. Never a credential as presented: a random
 * cookie or key would be a fresh bucket each time.
 */
function rateLimitKey(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal?.kind === 'user') return `user:${principal.id}`;
  if (principal?.kind === 'application_token') return `application:${principal.applicationId}`;
  return `ip:${request.ip}`;
}

/**
 * TRUST_PROXY for Fastify. A hop count is passed as a function: this Fastify treats a bare number as
 * "trust nothing". With n hops the socket's peer and the n − 1 addresses before it are proxies, so the
 * client is the n-th address of `X-Forwarded-For` from the right.
 */
function fastifyTrustProxy(
  trust: Config['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust;
  return (_address, hop) => hop < trust;
}

export interface BuildAppOptions {
  logger?: boolean;
  /** Where log lines go (default stdout); tests capture the log here to prove what it never holds. */
  logStream?: { write(line: string): void };
}

/** Builds the HTTP application over an opened, migrated database. Does not listen. */
export async function buildApp(context: AppContext, options: BuildAppOptions = {}): Promise<App> {
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: context.config.logLevel,
            redact: {
              paths: [
                'req.headers.authorization',
                'req.headers["x-api-key"]',
                'req.headers["x-api-token"]',
                'req.headers.cookie',
                'res.headers["set-cookie"]',
              ],
              censor: '[redacted]',
            },
            // Any error logged anywhere goes through the whitelist (no SQL parameters, no bodies).
            serializers: {
              err: (error) => loggableError(error),
              // Fastify's request fields, with secrets passed in the query (a tracker's webhook URL) cut out.
              req: (request: FastifyRequest) => ({
                method: request.method,
                url: withoutQuerySecrets(request.url),
                host: request.host,
                remoteAddress: request.ip,
                remotePort: request.socket?.remotePort,
              }),
            },
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    trustProxy: fastifyTrustProxy(context.config.trustProxy),
    bodyLimit: 1024 * 1024,
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
    schemaController,
    frameworkErrors: sendFrameworkError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Every route declares what it needs; one without a declaration is a bug caught at start, not a
  // route that falls back to some default. The docs UI plugin's routes are public documentation.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/api/docs')) route.config = { ...route.config, access: 'public' };
    if (!isRouteAccess(route.config?.access)) {
      throw new Error(
        `${String(route.method)} ${route.url} declares no access (config.access: 'resource.action')`,
      );
    }
  });

  // Duration by route pattern (never the raw URL: ids would make every request a new series).
  app.addHook('onResponse', async (request, reply) => {
    context.metrics.httpRequestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });

  registerErrorHandling(app);
  // JSON everywhere (and multipart for ingest): a text/plain body is a 415, not a string to validate.
  app.removeContentTypeParser('text/plain');
  registerRequestTargetGuard(app);
  registerNulByteGuard(app);
  registerTwinFolding(app);
  registerStrictQuery(app);
  await app.register(cookie);
  await app.register(multipart, {
    limits: { fileSize: context.config.uploadLimitBytes, files: 1, fields: 20, fieldSize: 64 * 1024 },
  });
  await app.register(rateLimit, {
    global: true,
    max: context.config.rateLimit.perMinute,
    timeWindow: 60_000,
    keyGenerator: rateLimitKey,
    errorResponseBuilder: (_request, context) => {
      const error = new Error(`Rate limit exceeded; retry in ${Math.ceil(context.ttl / 1000)} s`) as Error & {
        statusCode: number;
      };
      error.statusCode = 429;
      return error;
    },
  });
  // Route-level, the limit runs after this instance-level hook; a request it refuses is counted here.
  registerAuthentication(app, context.db, context.secretKey, context.database.changeNotices, app.rateLimit());
  registerResourceAccess(app, context.db);
  await registerOpenApi(app);
  for (const register of ROUTE_MODULES) register(app, context);
  await registerWebUi(app);

  app.setNotFoundHandler({ preHandler: app.rateLimit() }, (request, reply) =>
    sendProblem(reply, 404, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}`),
  );
  return app;
}
