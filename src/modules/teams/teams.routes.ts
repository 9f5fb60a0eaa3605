import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { AddMemberBody, CreateTeamBody, MemberParams, TeamMemberSchema, TeamSchema } from './teams.schema.ts';
import { addTeamMember, createTeam, getTeam, listTeams, removeTeamMember } from './teams.service.ts';

export function teamRoutes(app: App, { db }: AppContext): void {
  app.post(
    '/api/teams',
    {
      config: { auth: 'admin', permission: 'teams.create' },
      schema: {
        tags: ['teams'],
        summary: 'Create a team (admin, or permission teams.create)',
        body: CreateTeamBody,
        response: { 201: TeamSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await createTeam(db, request.body.name)),
  );

  app.get(
    '/api/teams',
    {
      schema: {
        tags: ['teams'],
        summary: 'Teams (admins: all; members: their own)',
        response: { 200: Type.Array(TeamSchema) },
      },
    },
    async (request) => listTeams(db, currentUser(request)),
  );

  app.get(
    '/api/teams/:id',
    {
      schema: {
        tags: ['teams'],
        summary: 'A team with its members',
        params: IdParams,
        response: { 200: TeamSchema },
      },
    },
    async (request) => getTeam(db, currentUser(request), request.params.id),
  );

  app.post(
    '/api/teams/:id/members',
    {
      config: { auth: 'admin', permission: 'teams.update' },
      schema: {
        tags: ['teams'],
        summary: 'Add a member (admin, or permission teams.update)',
        params: IdParams,
        body: AddMemberBody,
        response: { 201: TeamMemberSchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await addTeamMember(db, request.params.id, request.body)),
  );

  app.delete(
    '/api/teams/:id/members/:userId',
    {
      config: { auth: 'admin', permission: 'teams.update' },
      schema: {
        tags: ['teams'],
        summary: 'Remove a member (admin, or permission teams.update)',
        params: MemberParams,
      },
    },
    async (request, reply) => {
      await removeTeamMember(db, request.params.id, request.params.userId);
      return reply.status(204).send();
    },
  );
}
