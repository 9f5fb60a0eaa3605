import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { getDelivery, listDeliveries, ping, redeliver } from './deliveries.service.ts';
import {
  CreateWebhookBody,
  DeliveryDetailSchema,
  DeliveryParams,
  DeliveryQuery,
  DeliverySchema,
  UpdateWebhookBody,
  WebhookParams,
  WebhookSchema,
} from './webhooks.schema.ts';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, updateWebhook } from './webhooks.service.ts';

const tags = ['webhooks'];

export function webhookRoutes(app: App, { db, secrets, jobs }: AppContext): void {
  app.get(
    '/api/applications/:id/webhooks',
    {
      schema: {
        tags,
        summary: 'Webhooks of an application (needs write: callback URLs are often credentials)',
        params: IdParams,
        response: { 200: Type.Array(WebhookSchema) },
      },
    },
    async (request) => listWebhooks(db, currentUser(request), request.params.id),
  );

  app.post(
    '/api/applications/:id/webhooks',
    {
      schema: {
        tags,
        summary: 'Subscribe a URL to events (`events`: a name, a comma list, `*`, or an array)',
        params: IdParams,
        body: CreateWebhookBody,
        response: { 201: WebhookSchema },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await createWebhook(db, secrets, currentUser(request), request.params.id, request.body)),
  );

  app.get(
    '/api/applications/:id/webhooks/:webhookId',
    { schema: { tags, summary: 'A webhook', params: WebhookParams, response: { 200: WebhookSchema } } },
    async (request) => getWebhook(db, currentUser(request), request.params.id, request.params.webhookId),
  );

  app.patch(
    '/api/applications/:id/webhooks/:webhookId',
    {
      schema: {
        tags,
        summary: 'Change the URL, events, secret (null removes it) or active flag',
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: WebhookSchema },
      },
    },
    async (request) =>
      updateWebhook(
        db,
        secrets,
        currentUser(request),
        request.params.id,
        request.params.webhookId,
        request.body,
      ),
  );

  app.delete(
    '/api/applications/:id/webhooks/:webhookId',
    { schema: { tags, summary: 'Delete a webhook and its delivery log', params: WebhookParams } },
    async (request, reply) => {
      await deleteWebhook(db, currentUser(request), request.params.id, request.params.webhookId);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/applications/:id/webhooks/:webhookId/deliveries',
    {
      schema: {
        tags,
        summary: 'Deliveries of a webhook, newest first, with every attempt',
        params: WebhookParams,
        querystring: DeliveryQuery,
        response: { 200: Type.Array(DeliverySchema) },
      },
    },
    async (request) =>
      listDeliveries(db, currentUser(request), request.params.id, request.params.webhookId, request.query),
  );

  app.get(
    '/api/applications/:id/webhooks/:webhookId/deliveries/:deliveryId',
    {
      schema: {
        tags,
        summary: 'A delivery with the body it sent',
        params: DeliveryParams,
        response: { 200: DeliveryDetailSchema },
      },
    },
    async (request) =>
      getDelivery(
        db,
        currentUser(request),
        request.params.id,
        request.params.webhookId,
        request.params.deliveryId,
      ),
  );

  app.post(
    '/api/applications/:id/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    {
      schema: {
        tags,
        summary: 'Send a delivery again (same body and message id, new delivery record)',
        params: DeliveryParams,
        response: { 202: DeliverySchema },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(
          await redeliver(
            db,
            jobs,
            currentUser(request),
            request.params.id,
            request.params.webhookId,
            request.params.deliveryId,
          ),
        ),
  );

  app.post(
    '/api/applications/:id/webhooks/:webhookId/ping',
    {
      schema: {
        tags,
        summary: 'Send a `ping` event to the webhook',
        params: WebhookParams,
        response: { 202: DeliverySchema },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(await ping(db, jobs, currentUser(request), request.params.id, request.params.webhookId)),
  );
}
