import { Type } from 'typebox';
import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import {
  AdminGrantBody,
  AdminListQuery,
  ApplicationGrantBody,
  LegacyGrantBody,
  PermissionSchema,
} from './permissions.schema.ts';
import {
  addGrant,
  applicationGrant,
  legacyGrant,
  listAllGrants,
  listApplicationGrants,
  parseResource,
  parseSubject,
  removeGrant,
} from './permissions.service.ts';

const RemovedSchema = Type.Intersect([PermissionSchema, Type.Object({ deleted: Type.Boolean() })]);

export function permissionRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/applications/:id/permissions',
    {
      config: { access: 'grants.read' },
      schema: {
        operationId: 'listApplicationGrants',
        description: 'Read and write grants on the application, to users and teams.',
        tags: ['permissions'],
        summary: 'Grants on an application',
        params: IdParams,
        response: { 200: Type.Array(PermissionSchema) },
      },
    },
    async (request) => listApplicationGrants(db, resourceOf(request, 'application')),
  );

  app.post(
    '/api/applications/:id/permissions',
    {
      config: { access: 'grants.write', problems: [409] },
      schema: {
        operationId: 'grantApplicationAccess',
        description: 'Grants `read` or `write` on the application to `user:<id>` or `team:<id>`.',
        tags: ['permissions'],
        summary: 'Grant read or write on an application to a user or team',
        params: IdParams,
        body: ApplicationGrantBody,
        response: { 201: PermissionSchema },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      const grant = applicationGrant(resourceOf(request, 'application'), request.body);
      return reply.status(201).send(await addGrant(db, user, grant, request.audit));
    },
  );

  app.delete(
    '/api/applications/:id/permissions',
    {
      config: { access: 'grants.write' },
      schema: {
        operationId: 'revokeApplicationAccess',
        description: 'Removes a grant from the application.',
        tags: ['permissions'],
        summary: 'Remove a grant from an application',
        params: IdParams,
        body: ApplicationGrantBody,
        response: { 200: RemovedSchema },
      },
    },
    async (request) =>
      removeGrant(db, applicationGrant(resourceOf(request, 'application'), request.body), request.audit),
  );

  app.post(
    '/api/permissions/applications',
    {
      config: { access: 'grants.write', problems: [409] },
      schema: {
        operationId: 'grantApplicationAccessLegacy',
        description:
          'The earlier shape of `grantApplicationAccess`: `{application_id, user_id or team_id, permission}`.',
        tags: ['permissions'],
        summary: 'Grant a user read or write on an application (older shape)',
        body: LegacyGrantBody,
        response: { 201: PermissionSchema },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      return reply
        .status(201)
        .send(
          await addGrant(
            db,
            user,
            legacyGrant(resourceOf(request, 'application'), request.body),
            request.audit,
          ),
        );
    },
  );

  app.get(
    '/api/admin/permissions',
    {
      config: { access: 'permissions.read' },
      schema: {
        operationId: 'listPermissionPolicies',
        description:
          'Every permission policy (subject, resource, action), optionally filtered by subject prefix: an audit view.',
        tags: ['admin'],
        summary:
          'All permission policies, optionally by subject prefix (admin, or permission permissions.read)',
        querystring: AdminListQuery,
        response: { 200: Type.Array(PermissionSchema) },
      },
    },
    async (request) => listAllGrants(db, request.query.subject),
  );

  app.post(
    '/api/admin/permissions',
    {
      config: { access: 'permissions.write', problems: [409] },
      schema: {
        operationId: 'createPermissionPolicy',
        description:
          'Adds a permission policy. Resources are `application:<id>`, `group:<id>`, `*` (read/write) or an administrative area whose action a member may then perform.',
        tags: ['admin'],
        summary: 'Add a permission policy (subject, resource, action)',
        body: AdminGrantBody,
        response: { 201: PermissionSchema },
      },
    },
    async (request, reply) => {
      const { subject, resource, action } = request.body;
      const grant = { ...parseSubject(subject), ...parseResource(resource, action) };
      return reply.status(201).send(await addGrant(db, currentUser(request), grant, request.audit));
    },
  );

  app.delete(
    '/api/admin/permissions',
    {
      config: { access: 'permissions.write' },
      schema: {
        operationId: 'deletePermissionPolicy',
        description: 'Removes a permission policy.',
        tags: ['admin'],
        summary: 'Remove a permission policy',
        body: AdminGrantBody,
        response: { 200: RemovedSchema },
      },
    },
    async (request) => {
      const { subject, resource, action } = request.body;
      return removeGrant(db, { ...parseSubject(subject), ...parseResource(resource, action) }, request.audit);
    },
  );
}
