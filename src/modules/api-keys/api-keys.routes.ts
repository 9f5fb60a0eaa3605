import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import {
  ApiKeySchema,
  CreateApiKeyBody,
  CreatedApiKeySchema,
  RevokedApiKeySchema,
} from './api-keys.schema.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.service.ts';

export function apiKeyRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        summary: "The caller's active API keys",
        response: { 200: Type.Array(ApiKeySchema) },
      },
    },
    async (request) => listApiKeys(db, currentUser(request)),
  );

  app.post(
    '/api/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'Create an API key; the raw key is in this response only',
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKeySchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createApiKey(db, currentUser(request), request.body)),
  );

  app.delete(
    '/api/api-keys/:id',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'Revoke an API key',
        params: IdParams,
        response: { 200: RevokedApiKeySchema },
      },
    },
    async (request) => revokeApiKey(db, currentUser(request), request.params.id),
  );
}
