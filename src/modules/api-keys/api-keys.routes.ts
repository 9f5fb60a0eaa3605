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
      config: { access: 'account.read' },
      schema: {
        operationId: 'listApiKeys',
        description:
          "The caller's API keys that are not revoked, with prefixes only: raw keys are never shown again after creation.",
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
      config: { access: 'account.write' },
      schema: {
        operationId: 'createApiKey',
        description:
          'Creates an API key for the caller (`X-Api-Key` or `Authorization: Bearer`). The raw key is in this response only; it is stored as a hash. Needs a signed-in session: a request made with an API key is refused (403 `session_required`). A key may expire (`expires_at`) and may be read-only (`read_only`: every POST, PUT, PATCH and DELETE made with it is refused, 403 `read_only_key`).',
        tags: ['api-keys'],
        summary: 'Create an API key; the raw key is in this response only',
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKeySchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createApiKey(db, currentUser(request), request.body, request.audit)),
  );

  app.delete(
    '/api/api-keys/:id',
    {
      config: { access: 'account.write' },
      schema: {
        operationId: 'revokeApiKey',
        description: "Revokes one of the caller's API keys; it stops working at once.",
        tags: ['api-keys'],
        summary: 'Revoke an API key',
        params: IdParams,
        response: { 200: RevokedApiKeySchema },
      },
    },
    async (request) => revokeApiKey(db, currentUser(request), request.params.id, request.audit),
  );
}
