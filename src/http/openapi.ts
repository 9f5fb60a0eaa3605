import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { SHELL_CSP } from './web-ui.ts';
import type { TSchema } from 'typebox';
import type { App } from '../app-context.ts';
import { PACKAGE_VERSION } from '../package-root.ts';
import { ACCESS_KEY, completeDocument, PROBLEMS_KEY, RATE_LIMITED_KEY } from './openapi-document.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The multipart form a route reads itself (`request.parts()`): documented as its request body,
     * never validated by Fastify (the body is a stream when the handler runs).
     */
    multipartForm?: TSchema;
    /** Problem answers beyond those the access declaration implies (409, 413, 415, 422, 503), for the document. */
    problems?: readonly (404 | 409 | 413 | 415 | 422 | 503)[];
  }
}

/** OpenAPI 3.1 generated from the route schemas: `/api/openapi.json`, browsable at `/api/docs`. */
export async function registerOpenApi(app: App): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'scanhub API',
        license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
        version: PACKAGE_VERSION,
        description:
          'Security findings manager: ingest scanner results, deduplicate, score and triage findings. ' +
          'Every snake_case body and query field is also accepted in camelCase (`due_date` or `dueDate`); ' +
          'sending both with different values is a 400. A query parameter an operation does not declare is a 400 ' +
          '(`unknown_query_parameter`) naming it and listing the accepted ones.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
          bearer: { type: 'http', scheme: 'bearer' },
          applicationToken: { type: 'apiKey', in: 'header', name: 'X-Api-Token' },
          session: { type: 'apiKey', in: 'cookie', name: 'scanhub_session' },
          metricsToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'METRICS_TOKEN, when the server sets one',
          },
        },
      },
      servers: [{ url: '/', description: 'The server that serves this document' }],
    },
    transform: ({ schema, url, route }) => {
      const form = route.config?.multipartForm;
      const documented = {
        ...schema,
        ...(form === undefined ? {} : { body: form }),
        [ACCESS_KEY]: route.config?.access,
        [RATE_LIMITED_KEY]: route.config?.rateLimit !== false,
        ...(route.config?.problems ? { [PROBLEMS_KEY]: route.config.problems } : {}),
      };
      return { schema: documented, url };
    },
    transformObject: (documentObject) =>
      'openapiObject' in documentObject
        ? (completeDocument(
            documentObject.openapiObject as Record<string, unknown>,
          ) as typeof documentObject.openapiObject)
        : documentObject.swaggerObject,
  });
  // The docs UI is bundled into dist/ like the other dependencies (its own copies of @fastify/static
  // and yaml were ~110 module files read at every start), so it is told where its assets are
  // instead of finding them beside its own code.
  const assets = join(dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui')), 'static');
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    baseDir: assets,
    logo: { type: 'image/svg+xml', content: readFileSync(join(assets, 'logo.svg')) },
    // The docs page runs the API with the reader's session: not framed by anyone (clickjacking),
    // and held to the app's own policy (its scripts are files, none inline).
    staticCSP: SHELL_CSP,
    uiHooks: {
      onRequest: (_request, reply, done) => {
        reply.header('x-frame-options', 'DENY');
        done();
      },
    },
  });
  // With baseDir the plugin also serves the assets' directory as files, and its index.html there
  // lacks the initializer the plugin generates: that address, as people type it, goes to the docs.
  app.get('/api/docs/index.html', { schema: { hide: true } }, (_request, reply) => reply.redirect('./'));
  app.get('/api/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}
