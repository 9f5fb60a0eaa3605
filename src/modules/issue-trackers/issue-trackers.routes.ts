import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { resourceOf } from '../../access/route-hook.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { receiveTrackerWebhook } from './inbound.service.ts';
import {
  ConnectionResultSchema,
  InboundParams,
  InboundQuery,
  InboundResultSchema,
  TrackerIssueSchema,
  TrackerSchema,
  UpsertTrackerBody,
} from './issue-trackers.schema.ts';
import {
  createIssueForFinding,
  deleteTracker,
  getTracker,
  listTrackerIssues,
  testTrackerConnection,
  upsertTracker,
} from './issue-trackers.service.ts';

const tags = ['issue-trackers'];
/** The exact bytes of each inbound webhook request (GitHub signs them). */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();

export function issueTrackerRoutes(app: App, context: AppContext): void {
  const { db, secrets, jobs } = context;

  app.get(
    '/api/applications/:id/issue-tracker',
    {
      config: { access: 'tracker.read' },
      schema: {
        operationId: 'getIssueTracker',
        description:
          'The application’s issue-tracker configuration: provider, target, threshold and flags. The token is never returned (`token_set`, `token_last4`).',
        tags,
        summary: 'The application’s issue tracker',
        params: IdParams,
        response: { 200: TrackerSchema },
      },
    },
    async (request) => getTracker(db, resourceOf(request, 'application')),
  );

  app.post(
    '/api/applications/:id/issue-tracker',
    {
      config: { access: 'tracker.write' },
      schema: {
        operationId: 'upsertIssueTracker',
        description:
          'Creates or replaces the application’s issue tracker (Jira, GitHub or GitLab). A field the provider needs and is missing is a 400 naming it. The token is sealed at rest; a webhook secret for inbound events is generated when none is given and shown in the creating answer only.',
        tags,
        summary: 'Configure the issue tracker (201 created, 200 updated); the token is never returned',
        params: IdParams,
        body: UpsertTrackerBody,
        response: { 200: TrackerSchema, 201: TrackerSchema },
      },
    },
    async (request, reply) => {
      const result = await upsertTracker(
        { db, secrets },
        currentUser(request),
        resourceOf(request, 'application'),
        request.body,
        request.audit,
      );
      return reply.status(result.created ? 201 : 200).send(result.tracker);
    },
  );

  app.delete(
    '/api/applications/:id/issue-tracker',
    {
      config: { access: 'tracker.write' },
      schema: {
        operationId: 'deleteIssueTracker',
        description: 'Removes the tracker and its links; issues already filed stay in the tracker.',
        tags,
        summary: 'Remove the issue tracker and its links',
        params: IdParams,
      },
    },
    async (request, reply) => {
      await deleteTracker(db, resourceOf(request, 'application'), request.audit);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/applications/:id/issue-tracker/issues',
    {
      config: { access: 'tracker.read' },
      schema: {
        operationId: 'listTrackerIssues',
        description: 'Every finding’s linked issue: provider, key, URL, state, last sync and last error.',
        tags,
        summary: 'Issues linked to findings, with their state and last error',
        params: IdParams,
        response: { 200: Type.Array(TrackerIssueSchema) },
      },
    },
    async (request) => listTrackerIssues(db, resourceOf(request, 'application')),
  );

  app.post(
    '/api/applications/:id/issue-tracker/test',
    {
      config: { access: 'tracker.write' },
      schema: {
        operationId: 'testIssueTracker',
        description:
          'Calls the provider with the stored credentials: 200 when it answers, 400 with its reason when it refuses or cannot be reached.',
        tags,
        summary: 'Test the connection (400 with the provider’s reason when it fails)',
        params: IdParams,
        response: { 200: ConnectionResultSchema },
      },
    },
    async (request) => testTrackerConnection(context, resourceOf(request, 'application')),
  );

  app.post(
    '/api/findings/:id/issue',
    {
      config: { access: 'finding.write' },
      schema: {
        operationId: 'fileFindingIssue',
        description:
          'Files an issue for the finding in the application’s tracker (201), or returns the link it already has (200). The provider call runs as a job; the link shows its state.',
        tags,
        summary: 'File an issue for this finding (201), or get the one it has (200)',
        params: IdParams,
        response: { 200: TrackerIssueSchema, 201: TrackerIssueSchema },
      },
    },
    async (request, reply) => {
      const result = await createIssueForFinding(
        { db, jobs },
        currentUser(request),
        resourceOf(request, 'finding'),
      );
      return reply.status(result.created ? 201 : 200).send(result.issue);
    },
  );

  // The provider's webhook: public, authenticated by its signature over the exact bytes received,
  // so this scope keeps the raw body instead of Fastify's parsed JSON.
  app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    scope.removeAllContentTypeParsers();
    // Kept beside the request, not as its body: the NUL guard walks bodies, and a Buffer walked
    // byte by byte is slow. The service checks the parsed JSON instead.
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
      rawBodies.set(request, body as Buffer);
      done(null, undefined);
    });
    scope.post(
      '/api/integrations/:provider/webhook/:trackerId',
      {
        config: { access: 'tracker.inbound', problems: [404] },
        schema: {
          operationId: 'receiveTrackerWebhook',
          description:
            'Receives a tracker’s webhook: GitHub signs the body (`X-Hub-Signature-256`), GitLab sends the secret as `X-Gitlab-Token`, Jira as `?secret=` or `X-Scanhub-Secret`. A closed issue moves its finding to the configured status, a reopened one reopens it, and comments join the finding’s thread. A wrong signature or secret is a 401.',
          tags,
          summary: 'Inbound webhook of a tracker (GitHub signature, GitLab token, or Jira secret)',
          params: InboundParams,
          querystring: InboundQuery,
          response: { 200: InboundResultSchema },
        },
      },
      async (request) =>
        receiveTrackerWebhook(
          { db, secrets },
          {
            provider: request.params.provider,
            trackerRef: request.params.trackerId,
            headers: request.headers,
            raw: rawBodies.get(request),
            querySecret: request.query.secret,
          },
        ),
    );
  });
}
