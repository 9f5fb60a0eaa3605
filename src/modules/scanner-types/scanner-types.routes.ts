import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { BodyObject, IdParams, Timestamp } from '../../http/schemas.ts';
import { listScannerTypes, setScannerTypeEnabled } from './scanner-types.service.ts';

const ScannerTypeSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  display_name: Type.String(),
  enabled: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export function scannerTypeRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/scanner-types',
    {
      schema: {
        tags: ['scanner-types'],
        summary: 'Scanner formats scanhub reads, and whether each is enabled',
        response: { 200: Type.Array(ScannerTypeSchema) },
      },
    },
    async () => listScannerTypes(db),
  );

  const setEnabled = {
    config: { auth: 'admin', permission: 'scanner-types.update' },
    schema: {
      tags: ['admin'],
      summary: 'Enable or disable a scanner type by id or name (admin, or permission scanner-types.update)',
      params: IdParams,
      body: BodyObject({ enabled: Type.Boolean() }),
      response: { 200: ScannerTypeSchema },
    },
  } as const;
  app.put('/api/admin/scanner-types/:id', setEnabled, async (request) =>
    setScannerTypeEnabled(db, request.params.id, request.body.enabled),
  );
  // The same change where the resource lives, for clients that PATCH the record they listed.
  app.patch('/api/scanner-types/:id', setEnabled, async (request) =>
    setScannerTypeEnabled(db, request.params.id, request.body.enabled),
  );
}
