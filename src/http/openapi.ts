import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { App } from '../app-context.ts';

/** OpenAPI 3.1 generated from the route schemas: `/api/openapi.json`, browsable at `/api/docs`. */
export async function registerOpenApi(app: App): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'scanhub API',
        version: '2.4.3',
        description:
          'Security findings manager: ingest scanner results, deduplicate, score and triage findings.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
          bearer: { type: 'http', scheme: 'bearer' },
          applicationToken: { type: 'apiKey', in: 'header', name: 'X-Api-Token' },
          session: { type: 'apiKey', in: 'cookie', name: 'scanhub_session' },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }, { session: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}
