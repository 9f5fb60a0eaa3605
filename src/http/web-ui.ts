import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { App } from '../app-context.ts';
import { PACKAGE_ROOT } from '../package-root.ts';
import { sendProblem } from './errors.ts';

/** Where `npm run web:build` (run by `npm install`'s prepare step) writes the browser UI. */
export const WEB_DIST = join(PACKAGE_ROOT, 'web', 'dist');

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>scanhub</title></head>
<body><main><h1>scanhub</h1>
<p>The web UI is not built. Run <code>npm run web:build</code> (it also runs on <code>npm install</code>)
and restart the server. The API is served under <a href="/api/docs">/api</a>.</p></main></body></html>
`;

/** The app's policy; the API docs page (openapi.ts) is served under the same one. */
export const SHELL_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

/** Headers for the HTML shell: no caching (it names the hashed assets), no framing, no sniffing. */
const SHELL_HEADERS = {
  'cache-control': 'no-cache',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'content-security-policy': SHELL_CSP,
};

/** The API's paths, and SCIM's (src/modules/scim/): never the browser UI's page. */
const isApiPath = (url: string): boolean =>
  url === '/api' || url.startsWith('/api/') || url.startsWith('/api?') || url.startsWith('/scim/');

/**
 * Serves the browser UI from `web/dist` at `/`: hashed assets under `/assets/` (cached for a year),
 * the few top-level files by name, and `index.html` for every other GET (the client-side router's
 * URLs), so a shared link opens the page it names. `/api/*` stays the API: an unknown API path is
 * still a 404 problem. Without a build, `/` answers a page saying how to build it.
 */
export async function registerWebUi(app: App, dist: string = WEB_DIST): Promise<void> {
  const built = existsSync(resolve(dist, 'index.html'));
  if (built) await app.register(fastifyStatic, { root: dist, serve: false, index: false });
  const topLevelFiles = new Set(
    built
      ? readdirSync(dist, { withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => e.name)
      : [],
  );

  app.get('/assets/*', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const file = (request.params as { '*': string })['*'];
    if (!built || file.includes('..'))
      return sendProblem(reply, 404, 'not_found', `No asset ${request.url.split('?')[0]}`);
    return reply.sendFile(`assets/${file}`, { immutable: true, maxAge: '365d' });
  });

  app.get('/*', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (isApiPath(path)) return sendProblem(reply, 404, 'not_found', `No route ${request.method} ${path}`);
    if (!built) return reply.headers(SHELL_HEADERS).type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
    const name = path.slice(1);
    if (topLevelFiles.has(name) && name !== 'index.html') return reply.sendFile(name, { maxAge: '1h' });
    return reply.headers(SHELL_HEADERS).sendFile('index.html', { cacheControl: false });
  });
}
