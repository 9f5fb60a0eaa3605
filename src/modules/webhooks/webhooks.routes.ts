import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { parseId } from '../../access/access.ts';
import { resourceOf } from '../../access/route-hook.ts';
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
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  requireAuditReaderOfDeliveries,
  updateWebhook,
} from './webhooks.service.ts';

const tags = ['webhooks'];

export function webhookRoutes(app: App, { db, secrets, jobs }: AppContext): void {
  app.get(
    '/api/applications/:id/webhooks',
    {
      config: { access: 'webhook.read' },
      schema: {
        operationId: 'listWebhooks',
        description:
          'Webhooks of an application with their state (`failing` after a delivery used up its retries). Secrets are never returned.',
        tags,
        summary: 'Webhooks of an application (needs write: callback URLs are often credentials)',
        params: IdParams,
        response: { 200: Type.Array(WebhookSchema) },
      },
    },
    async (request) => listWebhooks(db, resourceOf(request, 'application')),
  );

  app.post(
    '/api/applications/:id/webhooks',
    {
      config: { access: 'webhook.write' },
      schema: {
        operationId: 'createWebhook',
        description:
          'Subscribes a URL to events. Deliveries are signed (`X-Service-Signature` and Standard Webhooks headers) when a secret is set, retried with backoff, and each attempt is recorded.',
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
        .send(
          await createWebhook(
            db,
            secrets,
            currentUser(request),
            resourceOf(request, 'application'),
            request.body,
            request.audit,
          ),
        ),
  );

  app.get(
    '/api/applications/:id/webhooks/:webhookId',
    {
      config: { access: 'webhook.read' },
      schema: {
        operationId: 'getWebhook',
        description: 'A webhook; `secret_set` says whether it signs.',
        tags,
        summary: 'A webhook',
        params: WebhookParams,
        response: { 200: WebhookSchema },
      },
    },
    async (request) => getWebhook(resourceOf(request, 'webhook')),
  );

  app.patch(
    '/api/applications/:id/webhooks/:webhookId',
    {
      config: { access: 'webhook.write' },
      schema: {
        operationId: 'updateWebhook',
        description:
          'Changes the URL, events, secret (null removes it) or active flag. A URL on another origin (scheme, host, port) needs the secret in the same request (or `null`): a stored secret never signs for a new host (400 naming `secret`).',
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
        resourceOf(request, 'webhook'),
        request.body,
        request.audit,
      ),
  );

  app.delete(
    '/api/applications/:id/webhooks/:webhookId',
    {
      config: { access: 'webhook.write' },
      schema: {
        operationId: 'deleteWebhook',
        description: 'Deletes the webhook and its delivery log; pending deliveries are dropped.',
        tags,
        summary: 'Delete a webhook and its delivery log',
        params: WebhookParams,
      },
    },
    async (request, reply) => {
      await deleteWebhook(db, currentUser(request), resourceOf(request, 'webhook'), request.audit);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/applications/:id/webhooks/:webhookId/deliveries',
    {
      config: { access: 'webhook.read' },
      schema: {
        operationId: 'listWebhookDeliveries',
        description:
          'Deliveries of a webhook, newest first, each with every attempt: status, duration, error and the first 4 KB of the answer.',
        tags,
        summary: 'Deliveries of a webhook, newest first, with every attempt',
        params: WebhookParams,
        querystring: DeliveryQuery,
        response: { 200: Type.Array(DeliverySchema) },
      },
    },
    async (request) => {
      const webhook = resourceOf(request, 'webhook');
      await requireAuditReaderOfDeliveries(db, currentUser(request), webhook.record);
      return listDeliveries(db, webhook, request.query);
    },
  );

  app.get(
    '/api/applications/:id/webhooks/:webhookId/deliveries/:deliveryId',
    {
      config: { access: 'webhook.read' },
      schema: {
        operationId: 'getWebhookDelivery',
        description: 'A delivery with the exact body it sent and its attempts.',
        tags,
        summary: 'A delivery with the body it sent',
        params: DeliveryParams,
        response: { 200: DeliveryDetailSchema },
      },
    },
    async (request) => {
      const webhook = resourceOf(request, 'webhook');
      await requireAuditReaderOfDeliveries(db, currentUser(request), webhook.record);
      return getDelivery(db, webhook, parseId(request.params.deliveryId));
    },
  );

  app.post(
    '/api/applications/:id/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    {
      config: { access: 'webhook.write' },
      schema: {
        operationId: 'redeliverWebhookDelivery',
        description: 'Sends a delivery again with the same body and message id, as a new delivery record.',
        tags,
        summary: 'Send a delivery again (same body and message id, new delivery record)',
        params: DeliveryParams,
        response: { 202: DeliverySchema },
      },
    },
    async (request, reply) => {
      const webhook = resourceOf(request, 'webhook');
      await requireAuditReaderOfDeliveries(db, currentUser(request), webhook.record);
      return reply.status(202).send(await redeliver(db, jobs, webhook, parseId(request.params.deliveryId)));
    },
  );

  app.post(
    '/api/applications/:id/webhooks/:webhookId/ping',
    {
      config: { access: 'webhook.write' },
      schema: {
        operationId: 'pingWebhook',
        description: 'Sends a `ping` event, to check the receiver and its signature verification.',
        tags,
        summary: 'Send a `ping` event to the webhook',
        params: WebhookParams,
        response: { 202: DeliverySchema },
      },
    },
    async (request, reply) => reply.status(202).send(await ping(db, jobs, resourceOf(request, 'webhook'))),
  );
}
