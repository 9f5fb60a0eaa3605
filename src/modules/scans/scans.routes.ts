import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { ScanListQuery, ScanSchema } from './scans.schema.ts';
import { getScan, listScans } from './scans.service.ts';

export function scanRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/scans',
    {
      schema: {
        tags: ['scans'],
        summary: 'Scans of readable applications, newest first',
        querystring: ScanListQuery,
        response: { 200: Type.Array(ScanSchema) },
      },
    },
    async (request) => {
      const query = request.query;
      return listScans(db, currentUser(request), {
        applicationId: query.applicationId ?? query.application_id,
        versionId: query.versionId ?? query.version_id,
        status: query.status,
        limit: query.limit,
      });
    },
  );

  app.get(
    '/api/scans/:id',
    {
      schema: {
        tags: ['scans'],
        summary: 'A scan with its counts and status',
        params: IdParams,
        response: { 200: ScanSchema },
      },
    },
    async (request) => getScan(db, currentUser(request), request.params.id),
  );
}
