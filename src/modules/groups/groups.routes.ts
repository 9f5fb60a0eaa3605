import { Type } from 'typebox';
import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { BodyObject, IdParams, Timestamp } from '../../http/schemas.ts';
import { createGroup, listGroups, presentGroup } from './groups.service.ts';

const GroupSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  path: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const CreateGroupBody = BodyObject({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  /** URL path segment(s): lowercase letters, digits, `-`, `_`, `.`, and `/` between segments. */
  path: Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$',
  }),
});

export function groupRoutes(app: App, { db }: AppContext): void {
  app.post(
    '/api/groups',
    {
      config: { access: 'group.create', problems: [409] },
      schema: {
        operationId: 'createGroup',
        description: 'Creates a group; a member who creates one gets write on it.',
        tags: ['groups'],
        summary: 'Create a group',
        body: CreateGroupBody,
        response: { 201: GroupSchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createGroup(db, currentUser(request), request.body, request.audit)),
  );

  app.get(
    '/api/groups',
    {
      config: { access: 'groups.list' },
      schema: {
        operationId: 'listGroups',
        description: 'Groups the caller holds a grant on, directly or through one of their applications.',
        tags: ['groups'],
        summary: 'Groups the caller can see',
        response: { 200: Type.Array(GroupSchema) },
      },
    },
    async (request) => listGroups(db, currentUser(request)),
  );

  app.get(
    '/api/groups/:id',
    {
      config: { access: 'group.read' },
      schema: {
        operationId: 'getGroup',
        description: 'A group by numeric id or by path.',
        tags: ['groups'],
        summary: 'A group by id or path',
        params: IdParams,
        response: { 200: GroupSchema },
      },
    },
    async (request) => presentGroup(resourceOf(request, 'group')),
  );
}
