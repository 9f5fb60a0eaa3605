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
      config: { access: 'scanner-types.read' },
      schema: {
        operationId: 'listScannerTypes',
        description:
          'Every format scanhub reads (SARIF and the native formats) and whether uploads in it are accepted.',
        tags: ['scanner-types'],
        summary: 'Scanner formats scanhub reads, and whether each is enabled',
        response: { 200: Type.Array(ScannerTypeSchema) },
      },
    },
    async () => listScannerTypes(db),
  );

  const setEnabled = (operationId: string, description: string) =>
    ({
      config: { access: 'scanner-types.update' },
      schema: {
        operationId,
        description,
        tags: ['admin'],
        summary: 'Enable or disable a scanner type by id or name (admin, or permission scanner-types.update)',
        params: IdParams,
        body: BodyObject({ enabled: Type.Boolean() }),
        response: { 200: ScannerTypeSchema },
      },
    }) as const;
  app.put(
    '/api/admin/scanner-types/:id',
    setEnabled(
      'setScannerTypeEnabled',
      'Enables or disables a scanner type by id or name; an upload in a disabled format is a 400 `scanner_type_disabled`.',
    ),
    async (request) => setScannerTypeEnabled(db, request.params.id, request.body.enabled, request.audit),
  );
  // The same change where the resource lives, for clients that PATCH the record they listed.
  app.patch(
    '/api/scanner-types/:id',
    setEnabled('updateScannerType', "The same change as `setScannerTypeEnabled`, on the record's own path."),
    async (request) => setScannerTypeEnabled(db, request.params.id, request.body.enabled, request.audit),
  );
}
