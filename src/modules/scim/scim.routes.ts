import type { FastifyRequest } from 'fastify';
import type { App, AppContext } from '../../app-context.ts';
import { auditContextOf, withActor } from '../../http/audit-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import {
  resourceTypeById,
  resourceTypes,
  schemaById,
  schemas,
  serviceProviderConfig,
} from './scim-discovery.ts';
import { SCIM_MEDIA_TYPE, ScimError, scimNotFound, sendScimError, toScimError } from './scim-errors.ts';
import {
  createScimGroup,
  deleteScimGroup,
  getScimGroup,
  listScimGroups,
  patchScimGroup,
  replaceScimGroup,
} from './scim-groups.service.ts';
import { createScimToken, listScimTokens, revokeScimToken, verifyScimToken } from './scim-tokens.service.ts';
import {
  createScimUser,
  deleteScimUser,
  getScimUser,
  listScimUsers,
  patchScimUser,
  replaceScimUser,
} from './scim-users.service.ts';
import {
  CreatedScimTokenSchema,
  ScimGroupBody,
  ScimIdParams,
  ScimListQuery,
  ScimPatchBody,
  ScimTokenBody,
  ScimTokenSchema,
  ScimUserBody,
} from './scim.schema.ts';
import { Type } from 'typebox';
import { DeletedSchema } from '../../http/schemas.ts';

export const SCIM_PREFIX = '/scim/v2';

/** The SCIM tokens an admin makes for the identity provider's provisioning (shown once). */
function scimTokenRoutes(app: App, { db }: AppContext): void {
  const tags = ['scim'];
  app.post(
    '/api/admin/scim-tokens',
    {
      config: { access: 'scim.manage' },
      schema: {
        operationId: 'createScimToken',
        summary: 'Make a SCIM provisioning token',
        description:
          'The bearer token an identity provider (Okta, Entra ID…) presents at `/scim/v2`. The token is in this answer only; scanhub keeps its SHA-256.',
        tags,
        body: ScimTokenBody,
        response: { 201: CreatedScimTokenSchema },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await createScimToken(db, currentUser(request), request.body.name, request.audit)),
  );
  app.get(
    '/api/admin/scim-tokens',
    {
      config: { access: 'scim.manage' },
      schema: {
        operationId: 'listScimTokens',
        summary: 'List live SCIM tokens (never their values)',
        description: 'The SCIM tokens not revoked: name, the first characters, last use. Admin only.',
        tags,
        response: { 200: Type.Array(ScimTokenSchema) },
      },
    },
    async () => listScimTokens(db),
  );
  app.delete(
    '/api/admin/scim-tokens/:id',
    {
      config: { access: 'scim.manage' },
      schema: {
        operationId: 'revokeScimToken',
        summary: 'Revoke a SCIM token at once',
        description: 'The provider’s next SCIM request with this token is a 401. Admin only.',
        tags,
        params: IdParams,
        response: { 200: DeletedSchema },
      },
    },
    async (request) => revokeScimToken(db, request.params.id, request.audit),
  );
}

/**
 * SCIM 2.0 (RFC 7644) at /scim/v2, for an identity provider's provisioning: Users and Groups (see the
 * services), the discovery documents, SCIM's media type and error shape. Every route needs a SCIM
 * token (`Authorization: Bearer scim_…`); the application-wide authentication leaves these routes to
 * this check (route-access.ts, `scim_token`).
 */
export function scimRoutes(app: App, context: AppContext): void {
  scimTokenRoutes(app, context);
  const { db, config } = context;
  const baseOf = (request: FastifyRequest) =>
    `${config.publicUrl ?? `${request.protocol}://${request.host}`}${SCIM_PREFIX}`;

  void app.register(
    async (scim: App) => {
      // Not in the OpenAPI document: SCIM is RFC 7644's interface, described by its own discovery
      // routes (/ServiceProviderConfig, /ResourceTypes, /Schemas); property names like `$ref` and
      // the extension's URN would also read as references there.
      scim.addHook('onRoute', (route) => {
        route.schema = { ...route.schema, hide: true };
      });
      scim.addContentTypeParser(
        SCIM_MEDIA_TYPE,
        { parseAs: 'string' },
        scim.getDefaultJsonParser('error', 'error'),
      );
      scim.setErrorHandler((error, request, reply) => sendScimError(reply, toScimError(error, request)));
      scim.addHook('onRequest', async (request) => {
        const token = await verifyScimToken(db, request.headers.authorization);
        if (!token)
          throw new ScimError(401, 'A valid SCIM bearer token is required (Authorization: Bearer scim_…)');
        // What a provisioning request changes is the identity provider's doing, by this token.
        request.audit = withActor(auditContextOf(request, null), {
          type: 'idp',
          id: `scim_token:${token.id}`,
          label: `SCIM token ${token.name}`,
        });
      });
      scim.addHook('onSend', async (_request, reply, payload) => {
        if (String(reply.getHeader('content-type') ?? '').startsWith('application/json'))
          void reply.type(SCIM_MEDIA_TYPE);
        return payload;
      });

      const tags = ['scim'];
      const access = { access: 'scim.provision' } as const;
      const many = { querystring: ScimListQuery };
      const one = { params: ScimIdParams, querystring: ScimListQuery };

      scim.get(
        '/ServiceProviderConfig',
        {
          config: access,
          schema: {
            operationId: 'scimServiceProviderConfig',
            summary: 'SCIM: what this server supports',
            tags,
          },
        },
        async (request) => serviceProviderConfig(baseOf(request)),
      );
      scim.get(
        '/ResourceTypes',
        {
          config: access,
          schema: { operationId: 'scimResourceTypes', summary: 'SCIM: resource types', tags },
        },
        async (request) => resourceTypes(baseOf(request)),
      );
      scim.get(
        '/ResourceTypes/:id',
        {
          config: access,
          schema: {
            operationId: 'scimResourceType',
            summary: 'SCIM: one resource type',
            tags,
            params: ScimIdParams,
          },
        },
        async (request) => {
          const found = resourceTypeById(baseOf(request), request.params.id);
          if (!found) throw scimNotFound('ResourceType', request.params.id);
          return found;
        },
      );
      scim.get(
        '/Schemas',
        { config: access, schema: { operationId: 'scimSchemas', summary: 'SCIM: schemas', tags } },
        async (request) => schemas(baseOf(request)),
      );
      scim.get(
        '/Schemas/:id',
        {
          config: access,
          schema: {
            operationId: 'scimSchema',
            summary: 'SCIM: one schema',
            tags,
            params: Type.Object({ id: Type.String({ maxLength: 128 }) }),
          },
        },
        async (request) => {
          const found = schemaById(baseOf(request), request.params.id);
          if (!found) throw scimNotFound('Schema', request.params.id);
          return found;
        },
      );

      scim.get(
        '/Users',
        {
          config: access,
          schema: {
            operationId: 'scimListUsers',
            summary: 'SCIM: list users (filter userName/externalId/emails/active eq)',
            tags,
            ...many,
          },
        },
        async (request) => listScimUsers(db, baseOf(request), request.query),
      );
      scim.post(
        '/Users',
        {
          config: access,
          schema: { operationId: 'scimCreateUser', summary: 'SCIM: create a user', tags, body: ScimUserBody },
        },
        async (request, reply) =>
          reply.status(201).send(await createScimUser(db, baseOf(request), request.body, request.audit)),
      );
      scim.get(
        '/Users/:id',
        { config: access, schema: { operationId: 'scimGetUser', summary: 'SCIM: one user', tags, ...one } },
        async (request) => getScimUser(db, baseOf(request), request.params.id, request.query),
      );
      scim.put(
        '/Users/:id',
        {
          config: access,
          schema: {
            operationId: 'scimReplaceUser',
            summary: 'SCIM: replace a user',
            tags,
            params: ScimIdParams,
            body: ScimUserBody,
          },
        },
        async (request) =>
          replaceScimUser(db, baseOf(request), request.params.id, request.body, request.audit),
      );
      scim.patch(
        '/Users/:id',
        {
          config: access,
          schema: {
            operationId: 'scimPatchUser',
            summary: 'SCIM: change a user (active: false disables it at once)',
            tags,
            params: ScimIdParams,
            body: ScimPatchBody,
          },
        },
        async (request) => patchScimUser(db, baseOf(request), request.params.id, request.body, request.audit),
      );
      scim.delete(
        '/Users/:id',
        {
          config: access,
          schema: {
            operationId: 'scimDeleteUser',
            summary: 'SCIM: delete (disable and hide) a user',
            tags,
            params: ScimIdParams,
          },
        },
        async (request, reply) => {
          await deleteScimUser(db, request.params.id, request.audit);
          return reply.status(204).send();
        },
      );

      scim.get(
        '/Groups',
        {
          config: access,
          schema: {
            operationId: 'scimListGroups',
            summary: 'SCIM: list the teams SCIM created',
            tags,
            ...many,
          },
        },
        async (request) => listScimGroups(db, baseOf(request), request.query),
      );
      scim.post(
        '/Groups',
        {
          config: access,
          schema: {
            operationId: 'scimCreateGroup',
            summary: 'SCIM: create a team',
            tags,
            body: ScimGroupBody,
          },
        },
        async (request, reply) =>
          reply.status(201).send(await createScimGroup(db, baseOf(request), request.body, request.audit)),
      );
      scim.get(
        '/Groups/:id',
        { config: access, schema: { operationId: 'scimGetGroup', summary: 'SCIM: one team', tags, ...one } },
        async (request) => getScimGroup(db, baseOf(request), request.params.id, request.query),
      );
      scim.put(
        '/Groups/:id',
        {
          config: access,
          schema: {
            operationId: 'scimReplaceGroup',
            summary: 'SCIM: replace a team',
            tags,
            params: ScimIdParams,
            body: ScimGroupBody,
          },
        },
        async (request) =>
          replaceScimGroup(db, baseOf(request), request.params.id, request.body, request.audit),
      );
      scim.patch(
        '/Groups/:id',
        {
          config: access,
          schema: {
            operationId: 'scimPatchGroup',
            summary: 'SCIM: change a team (members, name)',
            tags,
            params: ScimIdParams,
            body: ScimPatchBody,
          },
        },
        async (request) =>
          patchScimGroup(db, baseOf(request), request.params.id, request.body, request.audit),
      );
      scim.delete(
        '/Groups/:id',
        {
          config: access,
          schema: {
            operationId: 'scimDeleteGroup',
            summary: 'SCIM: delete a team',
            tags,
            params: ScimIdParams,
          },
        },
        async (request, reply) => {
          await deleteScimGroup(db, request.params.id, request.audit);
          return reply.status(204).send();
        },
      );
    },
    { prefix: SCIM_PREFIX },
  );
}
