import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { resourceOf } from '../../access/route-hook.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { AccessListSchema, GroupGrantBody } from './access-list.schema.ts';
import { applicationAccessList, groupAccessList, groupGrant } from './access-list.service.ts';
import { PermissionSchema } from './permissions.schema.ts';
import { addGrant, removeGrant } from './permissions.service.ts';

const RemovedSchema = Type.Intersect([PermissionSchema, Type.Object({ deleted: Type.Boolean() })]);

/** Who has access to an application or group and from where, and grants on groups. */
export function accessListRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/applications/:id/access',
    {
      config: { access: 'grants.read' },
      schema: {
        operationId: 'listApplicationAccess',
        description:
          'Every read and write grant that reaches the application, with the user’s or team’s name and where it comes from: the application itself (`direct`), its group (`group`) or every application (`everything`).',
        tags: ['permissions'],
        summary: 'Who can read or write an application, and from where',
        params: IdParams,
        response: { 200: AccessListSchema },
      },
    },
    async (request) => applicationAccessList(db, currentUser(request), resourceOf(request, 'application')),
  );

  app.get(
    '/api/groups/:id/access',
    {
      config: { access: 'group-grants.read' },
      schema: {
        operationId: 'listGroupAccess',
        description:
          'Every read and write grant on the group (`direct`) or on every application (`everything`), with names.',
        tags: ['permissions'],
        summary: 'Who can read or write a group’s applications, and from where',
        params: IdParams,
        response: { 200: AccessListSchema },
      },
    },
    async (request) => groupAccessList(db, currentUser(request), resourceOf(request, 'group')),
  );

  app.post(
    '/api/groups/:id/permissions',
    {
      config: { access: 'group-grants.write', problems: [409] },
      schema: {
        operationId: 'grantGroupAccess',
        description:
          'Grants `read` or `write` on the group, and so on every application in it, to `user:<id>` or `team:<id>`.',
        tags: ['permissions'],
        summary: 'Grant read or write on a group to a user or team',
        params: IdParams,
        body: GroupGrantBody,
        response: { 201: PermissionSchema },
      },
    },
    async (request, reply) => {
      const grant = groupGrant(resourceOf(request, 'group'), request.body);
      return reply.status(201).send(await addGrant(db, currentUser(request), grant, request.audit));
    },
  );

  app.delete(
    '/api/groups/:id/permissions',
    {
      config: { access: 'group-grants.write' },
      schema: {
        operationId: 'revokeGroupAccess',
        description: 'Removes a grant from the group.',
        tags: ['permissions'],
        summary: 'Remove a grant from a group',
        params: IdParams,
        body: GroupGrantBody,
        response: { 200: RemovedSchema },
      },
    },
    async (request) => removeGrant(db, groupGrant(resourceOf(request, 'group'), request.body), request.audit),
  );
}
