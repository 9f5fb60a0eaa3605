import { Type } from 'typebox';
import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { tryDefinition, tryPolicy } from './dry-run.service.ts';
import {
  CreatePolicyBody,
  DryRunBody,
  DryRunSchema,
  PatchPolicyBody,
  PolicyRunSchema,
  PolicySchema,
  RunsQuery,
} from './policies.schema.ts';
import {
  createPolicy,
  deletePolicy,
  getPolicy,
  listPolicies,
  listRuns,
  patchPolicy,
  replacePolicy,
} from './policies.service.ts';

const tags = ['policies'];

export function policyRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/policies',
    {
      config: { access: 'policies.list' },
      schema: {
        operationId: 'listPolicies',
        description: 'Global policies and those scoped to applications or groups the caller can read.',
        tags,
        summary: 'Policies the caller can see',
        response: { 200: Type.Array(PolicySchema) },
      },
    },
    async (request) => listPolicies(db, currentUser(request)),
  );

  app.post(
    '/api/policies',
    {
      config: { access: 'policy.create' },
      schema: {
        operationId: 'createPolicy',
        description:
          'Creates a policy in either spec shape (current: `event_types`, `conditions` as `{field, op, value}`, `actions` as `{type, target}`; earlier: `trigger`, `conditions` as `{field: [values]}`, `actions` as `{type, params}`); it is stored and returned normalized. Every field, op, pattern, action and user is checked here, never at run time.',
        tags,
        summary: 'Create a policy (either spec shape; stored and returned normalized)',
        body: CreatePolicyBody,
        response: { 201: PolicySchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createPolicy(db, currentUser(request), request.body, request.audit)),
  );

  app.post(
    '/api/policies/test',
    {
      config: { access: 'policy.create' },
      schema: {
        operationId: 'dryRunPolicyDefinition',
        description:
          'Evaluates a policy body against existing findings in its scope and lists what would match and what each action would do, changing nothing.',
        tags,
        summary: 'Dry run of a policy body: what it would match and do now, changing nothing',
        body: DryRunBody,
        response: { 200: DryRunSchema },
      },
    },
    async (request) => tryDefinition(db, currentUser(request), request.body),
  );

  app.get(
    '/api/policies/:id',
    {
      config: { access: 'policy.read' },
      schema: {
        operationId: 'getPolicy',
        description: 'A policy in its normalized form.',
        tags,
        summary: 'A policy',
        params: IdParams,
        response: { 200: PolicySchema },
      },
    },
    async (request) => getPolicy(resourceOf(request, 'policy')),
  );

  app.put(
    '/api/policies/:id',
    {
      config: { access: 'policy.write' },
      schema: {
        operationId: 'replacePolicy',
        description: 'Replaces a policy with a whole new body (either shape).',
        tags,
        summary: 'Replace a policy',
        params: IdParams,
        body: CreatePolicyBody,
        response: { 200: PolicySchema },
      },
    },
    async (request) =>
      replacePolicy(db, currentUser(request), resourceOf(request, 'policy'), request.body, request.audit),
  );

  app.patch(
    '/api/policies/:id',
    {
      config: { access: 'policy.write' },
      schema: {
        operationId: 'updatePolicy',
        description: 'Changes some of a policy: name, enabled, event types, conditions or actions.',
        tags,
        summary: 'Change a policy: name, enabled, event types, conditions or actions',
        params: IdParams,
        body: PatchPolicyBody,
        response: { 200: PolicySchema },
      },
    },
    async (request) => patchPolicy(db, resourceOf(request, 'policy'), request.body, request.audit),
  );

  app.delete(
    '/api/policies/:id',
    {
      config: { access: 'policy.write' },
      schema: {
        operationId: 'deletePolicy',
        description: 'Deletes a policy and its run log.',
        tags,
        summary: 'Delete a policy and its run log',
        params: IdParams,
      },
    },
    async (request, reply) => {
      await deletePolicy(db, resourceOf(request, 'policy'), request.audit);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/policies/:id/runs',
    {
      config: { access: 'policy.read' },
      schema: {
        operationId: 'listPolicyRuns',
        description:
          'Runs of a policy, newest first: the event, depth, findings evaluated and acted on, actions and errors; `finding_id` filters to one finding.',
        tags,
        summary:
          'Runs of a policy, newest first: one row per finding it acted on, one summary per evaluation',
        params: IdParams,
        querystring: RunsQuery,
        response: { 200: Type.Array(PolicyRunSchema) },
      },
    },
    async (request) => listRuns(db, resourceOf(request, 'policy'), request.query),
  );

  app.post(
    '/api/policies/:id/test',
    {
      config: { access: 'policy.write' },
      schema: {
        operationId: 'dryRunPolicy',
        description:
          'Evaluates a saved policy against existing findings in its scope and lists what would match and what would happen, changing nothing.',
        tags,
        summary: 'Dry run of a saved policy: what it would match and do now, changing nothing',
        params: IdParams,
        response: { 200: DryRunSchema },
      },
    },
    async (request) => tryPolicy(db, resourceOf(request, 'policy')),
  );
}
