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
      config: { access: 'teams.create', problems: [409] },
      schema: {
        operationId: 'createTeam',
        description: 'Creates a team. Grants to the team reach every member.',
        tags: ['teams'],
        summary: 'Create a team (admin, or permission teams.create)',
        body: CreateTeamBody,
        response: { 201: TeamSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await createTeam(db, request.body.name, request.audit)),
  );

  app.get(
    '/api/teams',
    {
      config: { access: 'teams.read' },
      schema: {
        operationId: 'listTeams',
        description: 'All teams to admins; to members, the teams they belong to.',
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
      config: { access: 'teams.read' },
      schema: {
        operationId: 'getTeam',
        description:
          'A team with its members. Members may read only teams they belong to (others are a 404).',
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
      config: { access: 'teams.update', problems: [409] },
      schema: {
        operationId: 'addTeamMember',
        description: 'Adds a user to a team.',
        tags: ['teams'],
        summary: 'Add a member (admin, or permission teams.update)',
        params: IdParams,
        body: AddMemberBody,
        response: { 201: TeamMemberSchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await addTeamMember(db, request.params.id, request.body, request.audit)),
  );

  app.delete(
    '/api/teams/:id/members/:userId',
    {
      config: { access: 'teams.update' },
      schema: {
        operationId: 'removeTeamMember',
        description: 'Removes a user from a team.',
        tags: ['teams'],
        summary: 'Remove a member (admin, or permission teams.update)',
        params: MemberParams,
      },
    },
    async (request, reply) => {
      await removeTeamMember(db, request.params.id, request.params.userId, request.audit);
      return reply.status(204).send();
    },
  );
}
