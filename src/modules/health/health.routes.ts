import { sql } from 'kysely';
import type { App, AppContext } from '../../app-context.ts';
import { sendProblem } from '../../http/errors.ts';
import { loggableError } from '../../lib/loggable-error.ts';

export function healthRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/healthz',
    {
      config: { auth: 'public', rateLimit: false },
      schema: { tags: ['health'], summary: 'The process is up' },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      config: { auth: 'public', rateLimit: false },
      schema: { tags: ['health'], summary: 'The database answers' },
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
