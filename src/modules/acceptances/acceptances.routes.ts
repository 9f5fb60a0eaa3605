import { Type } from 'typebox';
import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import {
  approveFromRequest,
  createFromRequest,
  extendFromRequest,
  getAcceptance,
  listAcceptances,
  rejectFromRequest,
  revokeFromRequest,
} from './acceptance-requests.service.ts';
import { getAcceptanceSettings, putAcceptanceSettings } from './acceptance-settings.service.ts';
import {
  AcceptanceListQuery,
  AcceptanceSchema,
  AcceptanceSettingsBody,
  AcceptanceSettingsSchema,
  CreateAcceptanceBody,
  DecisionBody,
  ExtendBody,
} from './acceptances.schema.ts';

const tags = ['acceptances'];

/** Acceptances: risk decisions over findings that end (issue 46), and their settings. */
export function acceptanceRoutes(app: App, { db, jobs }: AppContext): void {
  app.get(
    '/api/acceptances',
    {
      config: { access: 'acceptances.list' },
      schema: {
        operationId: 'listAcceptances',
        description:
          'Acceptances of applications and groups the caller can read, newest first (at most 1,000). `status=expiring`: active ones ending within their notice days.',
        tags,
        summary: 'Acceptances the caller can see',
        querystring: AcceptanceListQuery,
        response: { 200: Type.Array(AcceptanceSchema) },
      },
    },
    async (request) => listAcceptances(db, currentUser(request), request.query),
  );

  app.post(
    '/api/acceptances',
    {
      config: { access: 'acceptance.create' },
      schema: {
        operationId: 'createAcceptance',
        description:
          'Accepts findings named by `finding_ids`, or those a rule matches (`cve`, `rule_id`, `package`, optional `path_prefix`), in an application (`application_id`) or every application of a group (`group_id`). `accepted_risk` (the default reason) needs `expires_at`, within the settings’ maximum for the worst severity matched. Active at once (its findings become `false_positive` with the reason), or `pending` when the group asks for four-eyes approval. Findings that match later, in any version, are covered while it is active.',
        tags,
        summary: 'Accept a risk over findings or a rule, until an expiry',
        body: CreateAcceptanceBody,
        response: { 201: AcceptanceSchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createFromRequest(db, currentUser(request), request.body, request.audit)),
  );

  app.get(
    '/api/acceptances/:id',
    {
      config: { access: 'acceptance.read' },
      schema: {
        operationId: 'getAcceptance',
        description: 'An acceptance, with how many findings it covers now.',
        tags,
        summary: 'An acceptance',
        params: IdParams,
        response: { 200: AcceptanceSchema },
      },
    },
    async (request) => getAcceptance(db, resourceOf(request, 'acceptance')),
  );

  const decision = (action: 'approve' | 'reject', run: typeof approveFromRequest) =>
    app.post(
      `/api/acceptances/:id/${action}`,
      {
        config: { access: 'acceptance.write', problems: [409] },
        schema: {
          operationId: `${action}Acceptance`,
          description:
            action === 'approve'
              ? 'Four-eyes approval of a pending acceptance by someone with write access who is not its author (403 `four_eyes`); it covers its findings at once. A timeline entry on each finding it matches and `acceptance.approved`.'
              : 'Rejects a pending acceptance; it changed no finding and never will. A timeline entry on each finding it matches and `acceptance.rejected`.',
          tags,
          summary: action === 'approve' ? 'Approve a pending acceptance' : 'Reject a pending acceptance',
          params: IdParams,
          body: DecisionBody,
          response: { 200: AcceptanceSchema },
        },
      },
      async (request) =>
        run(db, currentUser(request), resourceOf(request, 'acceptance'), request.body ?? {}, request.audit),
    );
  decision('approve', approveFromRequest);
  decision('reject', rejectFromRequest);

  app.post(
    '/api/acceptances/:id/extend',
    {
      config: { access: 'acceptance.write', problems: [409] },
      schema: {
        operationId: 'extendAcceptance',
        description:
          'Moves the expiry of a pending or active acceptance later, within the settings’ maximum from now; `acceptance.extended`.',
        tags,
        summary: 'Extend an acceptance',
        params: IdParams,
        body: ExtendBody,
        response: { 200: AcceptanceSchema },
      },
    },
    async (request) => extendFromRequest(db, resourceOf(request, 'acceptance'), request.body, request.audit),
  );

  app.post(
    '/api/acceptances/:id/revoke',
    {
      config: { access: 'acceptance.write', problems: [409] },
      schema: {
        operationId: 'revokeAcceptance',
        description:
          'Ends an acceptance now: its findings still reported are `open` again (SLA due date restarted), those no longer reported `fixed`; timeline `acceptance_revoked`, `finding.status_changed` and `acceptance.revoked`.',
        tags,
        summary: 'Revoke an acceptance',
        params: IdParams,
        response: { 200: AcceptanceSchema },
      },
    },
    async (request) =>
      revokeFromRequest(db, jobs, currentUser(request), resourceOf(request, 'acceptance'), request.audit),
  );

  app.get(
    '/api/acceptance-settings',
    {
      config: { access: 'acceptance-settings.read' },
      schema: {
        operationId: 'getGlobalAcceptanceSettings',
        description:
          'The global acceptance settings: four-eyes approval, maximum days per severity, notice days.',
        tags,
        summary: 'Global acceptance settings',
        response: { 200: AcceptanceSettingsSchema },
      },
    },
    async () => getAcceptanceSettings(db, null),
  );

  app.put(
    '/api/acceptance-settings',
    {
      config: { access: 'acceptance-settings.write' },
      schema: {
        operationId: 'putGlobalAcceptanceSettings',
        description: 'Sets the global acceptance settings (the fields given).',
        tags,
        summary: 'Set the global acceptance settings',
        body: AcceptanceSettingsBody,
        response: { 200: AcceptanceSettingsSchema },
      },
    },
    async (request) => putAcceptanceSettings(db, currentUser(request), null, request.body, request.audit),
  );

  app.get(
    '/api/groups/:id/acceptance-settings',
    {
      config: { access: 'group-settings.read' },
      schema: {
        operationId: 'getGroupAcceptanceSettings',
        description: 'A group’s acceptance settings (null: the global value) and the values in force.',
        tags,
        summary: 'A group’s acceptance settings',
        params: IdParams,
        response: { 200: AcceptanceSettingsSchema },
      },
    },
    async (request) => getAcceptanceSettings(db, resourceOf(request, 'group').id),
  );

  app.put(
    '/api/groups/:id/acceptance-settings',
    {
      config: { access: 'group-settings.write' },
      schema: {
        operationId: 'putGroupAcceptanceSettings',
        description:
          'Overrides the global acceptance settings for a group (the fields given; null: back to the global value).',
        tags,
        summary: 'Set a group’s acceptance settings',
        params: IdParams,
        body: AcceptanceSettingsBody,
        response: { 200: AcceptanceSettingsSchema },
      },
    },
    async (request) =>
      putAcceptanceSettings(
        db,
        currentUser(request),
        resourceOf(request, 'group').id,
        request.body,
        request.audit,
      ),
  );
}
