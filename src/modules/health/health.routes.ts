import type { App, AppContext } from '../../app-context.ts';
import { pendingMigrations } from '../../db/database.ts';
import { constantTimeEqual } from '../../lib/secrets.ts';
import { sendProblem } from '../../http/errors.ts';
import { loggableError } from '../../lib/loggable-error.ts';
import { exposition } from '../../observability/metrics.ts';

export function healthRoutes(app: App, { db, config, metrics, startup }: AppContext): void {
  app.get(
    '/healthz',
    {
      config: { access: 'public', rateLimit: false },
      schema: {
        operationId: 'getHealth',
        description: 'Liveness: answers 200 while the process runs, without touching the database.',
        tags: ['health'],
        summary: 'The process is up',
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      config: { access: 'public', rateLimit: false },
      schema: {
        operationId: 'getReadiness',
        description:
          'Readiness: 200 when the start is complete (the server listens before its last step, starting the job workers) and the database answers with every migration applied; 503 problem+json otherwise.',
        tags: ['health'],
        summary: 'Started, and the database answers',
      },
    },
    async (request, reply) => {
      if (!startup.complete) return sendProblem(reply, 503, 'starting', 'The server is finishing its start');
      try {
        const pending = await pendingMigrations(db);
        if (pending.length > 0) {
          return sendProblem(
            reply,
            503,
            'migrations_pending',
            `Migrations not applied: ${pending.join(', ')}`,
          );
        }
        return { status: 'ready' };
      } catch (error) {
        request.log.warn({ err: loggableError(error) }, 'readiness check failed');
        return sendProblem(reply, 503, 'database_unavailable', 'The database does not answer');
      }
    },
  );

  app.get(
    '/metrics',
    {
      config: { access: 'metrics.read', rateLimit: false },
      schema: {
        operationId: 'getMetrics',
        description:
          'Prometheus text exposition: HTTP request durations by route and status, ingest duration, bytes and findings by format, background jobs by queue and state, webhook deliveries by outcome, database pool or PGlite session statistics, and the process defaults. With `METRICS_TOKEN` set, send it as `Authorization: Bearer <token>`.',
        tags: ['health'],
        summary: 'Metrics for Prometheus',
        produces: ['text/plain'],
        response: { 200: { description: 'Prometheus text format 0.0.4', type: 'string' } },
      },
    },
    async (request, reply) => {
      if (config.metricsToken) {
        const presented = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
        if (!constantTimeEqual(presented, config.metricsToken)) {
          return sendProblem(
            reply,
            401,
            'unauthorized',
            'Send the metrics token as Authorization: Bearer <token>',
          );
        }
      }
      return reply.type(metrics.registry.contentType).send(await exposition(metrics.registry));
    },
  );
}
