import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { verifyAuditChain } from '../../events/audit-chain.ts';
import { AuditEventPageSchema, ChainReportSchema, ListAuditEventsQuery } from './audit.schema.ts';
import {
  AUDIT_EXPORT_FORMATS,
  exportAuditEvents,
  listAuditEvents,
  recordAuditExport,
} from './audit.service.ts';

export function auditRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/audit-events',
    {
      config: { access: 'audit.read' },
      schema: {
        operationId: 'listAuditEvents',
        description:
          'The audit trail: who did what, when, from where (sign-ins, users, teams, permissions, keys and tokens, uploads, triage, webhooks, policies, trackers, exports). Filters: actor, action (`user.*` for a family), target, application, time range. A page newest first with `next_cursor`; with `format=ndjson` or `format=csv` (or `Accept`), every matching event oldest first, streamed without a cap. Secrets are masked when written. Each event carries its chain hashes (`GET /api/audit-events/verify`).',
        tags: ['audit'],
        summary: 'Audit events (admin, or permission audit.read)',
        querystring: ListAuditEventsQuery,
        response: {
          200: {
            description: 'A page of audit events, or an export in the media type asked for',
            content: {
              'application/json': { schema: AuditEventPageSchema },
              'application/x-ndjson': { schema: Type.String({ description: 'One audit event a line' }) },
              'text/csv': { schema: Type.String({ description: 'RFC 4180 CSV, one header row' }) },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const accept = request.headers.accept ?? '';
      const format =
        request.query.format === 'json'
          ? undefined
          : (request.query.format ??
            (accept.includes('application/x-ndjson')
              ? 'ndjson'
              : accept.includes('text/csv')
                ? 'csv'
                : undefined));
      if (!format) return listAuditEvents(db, request.query);
      await recordAuditExport(db, request.audit, request.query, format);
      return reply
        .type(AUDIT_EXPORT_FORMATS[format])
        .header('content-disposition', `attachment; filename="audit-events.${format}"`)
        .send(Readable.from(exportAuditEvents(db, request.query, format)) as never);
    },
  );

  app.get(
    '/api/audit-events/verify',
    {
      config: { access: 'audit.read' },
      schema: {
        operationId: 'verifyAuditChain',
        description:
          'Walks the audit chain from its anchor (the first row retention kept) to its head and reports the first broken link: a missing row, a row whose content no longer gives its hash, or one that does not chain to the row before. `scanhub audit verify` does the same at the server.',
        tags: ['audit'],
        summary: 'Verify the audit chain (admin, or permission audit.read)',
        response: { 200: ChainReportSchema },
      },
    },
    async () => verifyAuditChain(db),
  );
}
