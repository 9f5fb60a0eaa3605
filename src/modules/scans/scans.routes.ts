import { Type } from 'typebox';
import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentPrincipal } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { ScanListQuery, ScanSchema } from './scans.schema.ts';
import { getScan, listScans } from './scans.service.ts';

export function scanRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/scans',
    {
      config: { access: 'scans.list' },
      schema: {
        operationId: 'listScans',
        description:
          'Scans of the applications the caller may read (an application token: its own), newest first.',
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
      config: { access: 'scan.read' },
      schema: {
        operationId: 'getScan',
        description:
          'A scan with its status (`pending`, `processing`, `completed`, `failed` with `error`) and its counts; CI polls it after an async upload.',
        tags: ['scans'],
        summary: 'A scan with its counts and status',
        params: IdParams,
        response: { 200: ScanSchema },
      },
    },
    async (request) => getScan(db, resourceOf(request, 'scan')),
  );
}
