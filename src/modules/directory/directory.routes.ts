import type { App, AppContext } from '../../app-context.ts';
import { DirectoryQuery, DirectoryTeamPageSchema, DirectoryUserPageSchema } from './directory.schema.ts';
import { searchTeams, searchUsers } from './directory.service.ts';

/**
 * The directory: who exists, by name and email, for any signed-in user (to grant access or assign a
 * finding without the admin's `GET /api/users`, which also tells roles and sign-in times).
 */
export function directoryRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/directory/users',
    {
      config: { access: 'directory.read' },
      schema: {
        operationId: 'searchDirectoryUsers',
        description:
          'Active users whose name or email contains `q` (case-insensitive), one page at a time: only id, name and email.',
        tags: ['directory'],
        summary: 'Search people by name or email (names and emails only)',
        querystring: DirectoryQuery,
        response: { 200: DirectoryUserPageSchema },
      },
    },
    async (request) => searchUsers(db, request.query),
  );

  app.get(
    '/api/directory/teams',
    {
      config: { access: 'directory.read' },
      schema: {
        operationId: 'searchDirectoryTeams',
        description:
          'Teams whose name contains `q` (case-insensitive), one page at a time: only id and name.',
        tags: ['directory'],
        summary: 'Search teams by name (names only)',
        querystring: DirectoryQuery,
        response: { 200: DirectoryTeamPageSchema },
      },
    },
    async (request) => searchTeams(db, request.query),
  );
}
