import { sql } from 'kysely';
import type { App, AppContext } from '../../app-context.ts';
import { sendProblem } from '../../http/errors.ts';
import { loggableError } from '../../lib/loggable-error.ts';

export function healthRoutes(app: App, { db }: AppContext): void {
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
        description: 'Readiness: 200 when the database answers, 503 problem+json otherwise.',
        tags: ['health'],
        summary: 'The database answers',
      },
    },
    async (request, reply) => {
      try {
        await sql`select 1`.execute(db);
        return { status: 'ready' };
      } catch (error) {
        request.log.warn({ err: loggableError(error) }, 'readiness check failed');
        return sendProblem(reply, 503, 'database_unavailable', 'The database does not answer');
      }
    },
  );
}
