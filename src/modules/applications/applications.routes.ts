import { Type } from 'typebox';
import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { DeletedSchema, IdParams } from '../../http/schemas.ts';
import {
  ApplicationDetailSchema,
  ApplicationSchema,
  CreateApplicationBody,
  CreatedApplicationSchema,
  RegeneratedTokenSchema,
  UpdateApplicationBody,
} from './applications.schema.ts';
import {
  createApplication,
  deleteApplication,
  getApplication,
  listApplications,
  regenerateToken,
  updateApplication,
} from './applications.service.ts';

export function applicationRoutes(app: App, { db, secrets, jobs }: AppContext): void {
  app.get(
    '/api/applications',
    {
      config: { access: 'applications.list' },
      schema: {
        operationId: 'listApplications',
        description:
          'Every application the caller may read, with its group and criticality. API tokens are never shown.',
        tags: ['applications'],
        summary: 'Applications the caller may read',
        response: { 200: Type.Array(ApplicationSchema) },
      },
    },
    async (request) => listApplications(db, currentUser(request)),
  );

  app.post(
    '/api/applications',
    {
      config: { access: 'application.create', problems: [409] },
      schema: {
        operationId: 'createApplication',
        description:
          'Creates an application in a group, with its default version `default` and an API token for CI. The token is in this response only.',
        tags: ['applications'],
        summary: 'Create an application (with its default version and API token)',
        body: CreateApplicationBody,
        response: { 201: CreatedApplicationSchema },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await createApplication(db, secrets, currentUser(request), request.body, request.audit)),
  );

  app.get(
    '/api/applications/:id',
    {
      config: { access: 'application.read', problems: [409] },
      schema: {
        operationId: 'getApplication',
        description:
          'An application by id or by slug (409 when the slug is used in several groups: use the id or the group route).',
        tags: ['applications'],
        summary: 'An application (id or unique slug) with its default version',
        params: IdParams,
        response: { 200: ApplicationDetailSchema },
      },
    },
    async (request) => getApplication(db, resourceOf(request, 'application')),
  );

  app.put(
    '/api/applications/:id',
    {
      config: { access: 'application.write', problems: [409] },
      schema: {
        operationId: 'updateApplication',
        description:
          "Changes the name, slug, repository URL or asset criticality, or moves the application to another group (`group_id`: write needed there too, the slug free in it). A criticality change re-scores the application's findings; a move recomputes their due dates (the new group's SLA chain) and evaluates its versions against the licence policies again.",
        tags: ['applications'],
        summary: 'Update name, slug, repository URL, asset criticality or group',
        params: IdParams,
        body: UpdateApplicationBody,
        response: { 200: ApplicationSchema },
      },
    },
    async (request) =>
      updateApplication(
        { db, jobs },
        currentUser(request),
        resourceOf(request, 'application'),
        request.body,
        request.audit,
      ),
  );

  app.delete(
    '/api/applications/:id',
    {
      config: { access: 'application.write' },
      schema: {
        operationId: 'deleteApplication',
        description:
          'Deletes the application with its versions, scans, findings, webhooks and grants, in one transaction.',
        tags: ['applications'],
        summary: 'Delete an application and everything it owns',
        params: IdParams,
        response: { 200: DeletedSchema },
      },
    },
    async (request) => deleteApplication(db, resourceOf(request, 'application'), request.audit),
  );

  app.post(
    '/api/applications/:id/regenerate-token',
    {
      config: { access: 'application.write' },
      schema: {
        operationId: 'regenerateApplicationToken',
        description:
          'Issues a new API token; the old one stops working at once. The new token is in this response only.',
        tags: ['applications'],
        summary: 'Replace the API token; the old one stops working at once',
        params: IdParams,
        response: { 200: RegeneratedTokenSchema },
      },
    },
    async (request) => regenerateToken(db, secrets, resourceOf(request, 'application'), request.audit),
  );
}
