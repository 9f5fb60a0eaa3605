import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { currentPrincipal } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { ScanListQuery, ScanSchema } from './scans.schema.ts';
import { getScan, listScans } from './scans.service.ts';

export function scanRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/scans',
    {
      config: { auth: 'user_or_application_token' },
      schema: {
        tags: ['scans'],
        summary: 'Scans of readable applications, newest first',
        querystring: ScanListQuery,
        response: { 200: Type.Array(ScanSchema) },
      },
    },
    async (request) => {
      const query = request.query;
      return listScans(db, currentPrincipal(request), {
        applicationId: query.application_id,
        versionId: query.version_id,
        status: query.status,
        limit: query.limit,
      });
    },
  );

  app.get(
    '/api/scans/:id',
    {
      config: { auth: 'user_or_application_token' },
      schema: {
        tags: ['scans'],
        summary: 'A scan with its counts and status',
        params: IdParams,
        response: { 200: ScanSchema },
      },
    },
    async (request) => getScan(db, currentPrincipal(request), request.params.id),
  );
}
