import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentPrincipal } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { commentRoutes } from './comments.routes.ts';
import {
  FindingDetailSchema,
  FindingListSchema,
  FindingSchema,
  ListFindingsQuery,
  TimelineEntrySchema,
  VersionFindingsParams,
  VersionFindingsQuery,
} from './findings.schema.ts';
import { getFinding, getTimeline, listFindings, listVersionFindings } from './findings.service.ts';
import { EXPORT_FORMATS, exportFindings, exportFormatOf, recordFindingsExport } from './export.service.ts';
import { triageRoutes } from './triage.routes.ts';

/** Findings: list, detail, timeline, a version's findings, triage and comments. */
export function findingRoutes(app: App, context: AppContext): void {
  const { db } = context;

  app.get(
    '/api/findings',
    {
      config: { access: 'findings.list' },
      schema: {
        operationId: 'listFindings',
        tags: ['findings'],
        summary: 'Findings of the applications the caller may read, filtered, sorted and paged',
        description:
          'A page of findings as JSON (`per_page` at most 200; `status=closed` means fixed or false positive; `assigned_to=me` is the caller). With `Accept: text/csv`, `Accept: application/sarif+json` or ' +
          '`Accept: application/x-ndjson` (or `format=csv|sarif|ndjson`) the response is instead an ' +
          'export of every matching finding (no page, no 200 cap), streamed in id order: CSV per RFC 4180 ' +
          "with every text cell quoted and every formula-like cell or `;`/`,`/tab-separated part of one prefixed by `'`; SARIF 2.1.0 with one run per tool (open and confirmed " +
          'findings unless `status` is given), fit for GitHub code scanning; NDJSON, one finding a line. ' +
          'Application tokens export their own application.',
        querystring: ListFindingsQuery,
        response: {
          200: {
            description: 'A page of findings, or an export in the media type asked for',
            content: {
              'application/json': { schema: FindingListSchema },
              'text/csv': { schema: Type.String({ description: 'RFC 4180 CSV, one header row' }) },
              [EXPORT_FORMATS.sarif]: {
                schema: Type.Object(
                  { version: Type.Literal('2.1.0'), runs: Type.Array(Type.Object({})) },
                  { description: 'SARIF 2.1.0 log, one run per tool', additionalProperties: true },
                ),
              },
              [EXPORT_FORMATS.ndjson]: { schema: Type.String({ description: 'One finding record a line' }) },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const format = exportFormatOf(request.headers.accept, request.query.format);
      if (!format) return listFindings(db, currentPrincipal(request), request.query);
      const chunks = exportFindings(db, currentPrincipal(request), request.query, format);
      await recordFindingsExport(db, request.audit, request.query, format);
      return (
        reply
          .type(EXPORT_FORMATS[format])
          .header('content-disposition', `attachment; filename="findings.${format}"`)
          // A stream skips the JSON serializer; the schema's type describes only the paged list.
          .send(Readable.from(chunks) as never)
      );
    },
  );

  app.get(
    '/api/findings/:id',
    {
      config: { access: 'finding.read' },
      schema: {
        operationId: 'getFinding',
        description:
          'A finding with every field, the parts of its risk score (so the number can be explained) and its timeline.',
        tags: ['findings'],
        summary: 'A finding with every field, its risk parts and its timeline',
        params: IdParams,
        response: { 200: FindingDetailSchema },
      },
    },
    async (request) => getFinding(db, resourceOf(request, 'finding')),
  );

  app.get(
    '/api/findings/:id/timeline',
    {
      config: { access: 'finding.read' },
      schema: {
        operationId: 'getFindingTimeline',
        description:
          'Every change of a finding, oldest first: creation, status changes (by whom or which policy), reassignments, severity changes.',
        tags: ['findings'],
        summary: 'History of a finding, oldest first, starting with its creation',
        params: IdParams,
        response: { 200: Type.Array(TimelineEntrySchema) },
      },
    },
    async (request) => getTimeline(db, resourceOf(request, 'finding')),
  );

  app.get(
    '/api/applications/:id/versions/:versionId/findings',
    {
      config: { access: 'version.read' },
      schema: {
        operationId: 'listVersionFindings',
        description: 'Findings of one version, highest risk first.',
        tags: ['findings', 'versions'],
        summary: 'Findings of a version (id or name), highest risk first',
        params: VersionFindingsParams,
        querystring: VersionFindingsQuery,
        response: { 200: Type.Array(FindingSchema) },
      },
    },
    async (request) =>
      listVersionFindings(db, currentPrincipal(request), resourceOf(request, 'version'), request.query),
  );

  triageRoutes(app, context);
  commentRoutes(app, context);
}
