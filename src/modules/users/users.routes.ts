import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { resetPassword } from './passwords.service.ts';
import {
  CreateUserBody,
  PasswordChangedSchema,
  ResetPasswordBody,
  UpdateUserBody,
  UserSchema,
} from './users.schema.ts';
import { createUser, getUser, listUsers, updateUser } from './users.service.ts';

export function userRoutes(app: App, { db }: AppContext): void {
  app.post(
    '/api/users',
    {
      config: { access: 'users.create', problems: [409] },
      schema: {
        operationId: 'createUser',
        description:
          'Creates a member or admin account. Admin only: not delegable, since it could raise privileges.',
        tags: ['users'],
        summary: 'Create a user (admin)',
        body: CreateUserBody,
        response: { 201: UserSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await createUser(db, request.body, request.audit)),
  );

  app.get(
    '/api/users',
    {
      config: { access: 'users.read' },
      schema: {
        operationId: 'listUsers',
        description: 'Every account, for assigning findings and granting access.',
        tags: ['users'],
        summary: 'List users (admin, or permission users.read)',
        response: { 200: Type.Array(UserSchema) },
      },
    },
    async () => listUsers(db),
  );

  app.get(
    '/api/users/:id',
    {
      config: { access: 'account.read' },
      schema: {
        operationId: 'getUser',
        description: 'Admins may read any user; members only themselves (anyone else is a 404).',
        tags: ['users'],
        summary: 'A user (admins: anyone; members: themselves)',
        params: IdParams,
        response: { 200: UserSchema },
      },
    },
    async (request) => getUser(db, currentUser(request), request.params.id),
  );

  app.patch(
    '/api/users/:id',
    {
      config: { access: 'account.write', problems: [409] },
      schema: {
        operationId: 'updateUser',
        description:
          'Members may change their own name; admins also role, disabled flag and email. The last active admin cannot be demoted or disabled (409).',
        tags: ['users'],
        summary: 'Change a user (members: their own name; admins: also role, disabled, email)',
        params: IdParams,
        body: UpdateUserBody,
        response: { 200: UserSchema },
      },
    },
    async (request) => updateUser(db, currentUser(request), request.params.id, request.body, request.audit),
  );

  app.post(
    '/api/users/:id/password',
    {
      config: { access: 'users.update' },
      schema: {
        operationId: 'setUserPassword',
        description:
          "Sets another user's password and ends all of that user's sessions; with `revoke_api_keys` also revokes all of that user's API keys. Admin only.",
        tags: ['users'],
        summary: "Set a user's password (admin); ends that user's sessions",
        params: IdParams,
        body: ResetPasswordBody,
        response: { 200: PasswordChangedSchema },
      },
    },
    async (request) =>
      resetPassword(db, currentUser(request), request.params.id, request.body, request.audit),
  );
}
