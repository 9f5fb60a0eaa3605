import { Type } from 'typebox';
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
        description:
          'Findings of the applications the caller may read, filtered, sorted and paginated (`perPage` at most 200). `status=closed` means fixed or false positive; `assignedTo=me` is the caller.',
        tags: ['findings'],
        summary: 'Findings of the applications the caller may read, filtered, sorted and paged',
        querystring: ListFindingsQuery,
        response: { 200: FindingListSchema },
      },
    },
    async (request) => listFindings(db, currentPrincipal(request), request.query),
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
    async (request) => getFinding(db, currentPrincipal(request), request.params.id),
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
    async (request) => getTimeline(db, currentPrincipal(request), request.params.id),
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
      listVersionFindings(
        db,
        currentPrincipal(request),
        request.params.id,
        request.params.versionId,
        request.query,
      ),
  );

  triageRoutes(app, context);
  commentRoutes(app, context);
}
