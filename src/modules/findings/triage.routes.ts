import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { FindingDetailSchema } from './findings.schema.ts';
import { AssignBody, BulkBody, BulkResultSchema, ReviewBody, StatusBody } from './triage.schema.ts';
import { assignFinding } from './assign.service.ts';
import { bulkUpdate, triageFindingStatus, reviewFinding } from './triage.service.ts';

/** Status, review, assignment and bulk changes; all need write access to the application. */
export function triageRoutes(app: App, { db }: AppContext): void {
  app.patch(
    '/api/findings/:id/status',
    {
      config: { access: 'finding.write', accessReport: 'ids', problems: [409] },
      schema: {
        operationId: 'changeFindingStatus',
        description:
          'Moves a finding through its lifecycle; the same status is a 200 without change, anything the lifecycle forbids is a 409 `invalid_transition` listing the allowed ones. Writes a timeline entry and emits `finding.status_changed`.',
        tags: ['findings'],
        summary: 'Move a finding through its lifecycle (409 invalid_transition lists the allowed statuses)',
        params: IdParams,
        body: StatusBody,
        response: { 200: FindingDetailSchema },
      },
    },
    async (request) =>
      triageFindingStatus(
        db,
        currentUser(request),
        resourceOf(request, 'finding'),
        request.body,
        request.audit,
      ),
  );

  app.patch(
    '/api/findings/:id/review',
    {
      config: { access: 'finding.write', accessReport: 'ids', problems: [409] },
      schema: {
        operationId: 'reviewFinding',
        description:
          'Marks a finding reviewed, optionally moving its status under the same rules as `changeFindingStatus`.',
        tags: ['findings'],
        summary: 'Mark a finding reviewed, optionally moving its status',
        params: IdParams,
        body: ReviewBody,
        response: { 200: FindingDetailSchema },
      },
    },
    async (request) =>
      reviewFinding(db, currentUser(request), resourceOf(request, 'finding'), request.body, request.audit),
  );

  app.patch(
    '/api/findings/:id/assign',
    {
      config: { access: 'finding.write', accessReport: 'ids' },
      schema: {
        operationId: 'assignFinding',
        description:
          'Assigns the finding to a user who can read its application (or unassigns it with null) and sets its due date; emits `finding.reassigned`.',
        tags: ['findings'],
        summary: 'Assign (or unassign) a finding and set its due date',
        params: IdParams,
        body: AssignBody,
        response: { 200: FindingDetailSchema },
      },
    },
    async (request) =>
      assignFinding(db, currentUser(request), resourceOf(request, 'finding'), request.body, request.audit),
  );

  app.patch(
    '/api/findings',
    {
      config: { access: 'findings.write', problems: [409] },
      schema: {
        operationId: 'bulkUpdateFindings',
        description:
          'Changes status and/or assignee of up to 1,000 findings in one transaction: every finding must allow the change, or nothing changes.',
        tags: ['findings'],
        summary: 'Change status and/or assignee of up to 1,000 findings, all or nothing',
        body: BulkBody,
        response: { 200: BulkResultSchema },
      },
    },
    async (request) => bulkUpdate(db, currentUser(request), request.body, request.audit),
  );
}
