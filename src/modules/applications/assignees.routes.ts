import type { App, AppContext } from '../../app-context.ts';
import { resourceOf } from '../../access/route-hook.ts';
import { IdParams } from '../../http/schemas.ts';
import { DirectoryQuery, DirectoryUserPageSchema } from '../directory/directory.schema.ts';
import { listAssignees } from './assignees.service.ts';

export function assigneeRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/applications/:id/assignees',
    {
      config: { access: 'assignees.read' },
      schema: {
        operationId: 'listApplicationAssignees',
        description:
          'The active users who can read the application, and so can be assigned its findings (names and emails only), optionally those whose name or email contains `q`.',
        tags: ['applications'],
        summary: 'People a finding of this application can be assigned to',
        params: IdParams,
        querystring: DirectoryQuery,
        response: { 200: DirectoryUserPageSchema },
      },
    },
    async (request) => listAssignees(db, resourceOf(request, 'application'), request.query),
  );
}
