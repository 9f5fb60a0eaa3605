import { Type } from 'typebox';
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
    { schema: { tags, summary: 'Policies the caller can see', response: { 200: Type.Array(PolicySchema) } } },
    async (request) => listPolicies(db, currentUser(request)),
  );

  app.post(
    '/api/policies',
    {
      schema: {
        tags,
        summary: 'Create a policy (either spec shape; stored and returned normalized)',
        body: CreatePolicyBody,
        response: { 201: PolicySchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createPolicy(db, currentUser(request), request.body)),
  );

  app.post(
    '/api/policies/test',
    {
      schema: {
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
    { schema: { tags, summary: 'A policy', params: IdParams, response: { 200: PolicySchema } } },
    async (request) => getPolicy(db, currentUser(request), request.params.id),
  );

  app.put(
    '/api/policies/:id',
    {
      schema: {
        tags,
        summary: 'Replace a policy',
        params: IdParams,
        body: CreatePolicyBody,
        response: { 200: PolicySchema },
      },
    },
    async (request) => replacePolicy(db, currentUser(request), request.params.id, request.body),
  );

  app.patch(
    '/api/policies/:id',
    {
      schema: {
        tags,
        summary: 'Change a policy: name, enabled, event types, conditions or actions',
        params: IdParams,
        body: PatchPolicyBody,
        response: { 200: PolicySchema },
      },
    },
    async (request) => patchPolicy(db, currentUser(request), request.params.id, request.body),
  );

  app.delete(
    '/api/policies/:id',
    { schema: { tags, summary: 'Delete a policy and its run log', params: IdParams } },
    async (request, reply) => {
      await deletePolicy(db, currentUser(request), request.params.id);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/policies/:id/runs',
    {
      schema: {
        tags,
        summary:
          'Runs of a policy, newest first: one row per finding it acted on, one summary per evaluation',
        params: IdParams,
        querystring: RunsQuery,
        response: { 200: Type.Array(PolicyRunSchema) },
      },
    },
    async (request) => listRuns(db, currentUser(request), request.params.id, request.query),
  );

  app.post(
    '/api/policies/:id/test',
    {
      schema: {
        tags,
        summary: 'Dry run of a saved policy: what it would match and do now, changing nothing',
        params: IdParams,
        response: { 200: DryRunSchema },
      },
    },
    async (request) => tryPolicy(db, currentUser(request), request.params.id),
  );
}
