import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { distIsFresh } from '../../bin/dist-freshness.js';
import { TEMPLATE_DIR } from '../../src/db/pglite-template.ts';
import { WEB_DIST } from '../../src/http/web-ui.ts';
import { PACKAGE_ROOT } from '../../src/package-root.ts';
import { createApplication, createGroup, signIn } from '../../bench/server.ts';
import { buildSarif, manyResults } from '../support/sarif-builder.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { multipartBody } from '../support/upload.ts';

/**
 * What `npm start` runs is a bundle (scripts/build-server.ts), not the sources: the paths its code
 * finds beside itself and what it leaves to node_modules are proven on the build itself.
 */
const REPO_ROOT = join(import.meta.dirname, '..', '..');

describe('paths the code finds from where it runs', () => {
  it('resolves the package root, the PGlite template and the web UI from the sources', () => {
    expect(PACKAGE_ROOT).toBe(REPO_ROOT);
    expect(TEMPLATE_DIR).toBe(join(REPO_ROOT, 'dist', 'pglite-template'));
    expect(WEB_DIST).toBe(join(REPO_ROOT, 'web', 'dist'));
  });
});

describe.skipIf(!distIsFresh())('the built server (dist/)', () => {
  const builtCode = () => {
    const files = [
      join(REPO_ROOT, 'dist', 'main.js'),
      ...readdirSync(join(REPO_ROOT, 'dist', 'chunks'))
        .filter((name) => name.endsWith('.js'))
        .map((name) => join(REPO_ROOT, 'dist', 'chunks', name)),
    ];
    return files.map((file) => readFileSync(file, 'utf8')).join('\n');
  };

  it('carries its dependencies inside it, except those that read files beside their own modules', () => {
    const code = builtCode();
    const importsFromNodeModules = (name: string) =>
      new RegExp(
        `(\\bfrom\\s*|\\b__require\\(|\\bimport\\()["']${name.replace('/', '\\/')}(\\/[^"']*)?["']`,
      ).test(code);
    // Loaded one file at a time they were ~1,400 of a start's ~1,500 modules.
    for (const bundled of [
      'typebox',
      'kysely',
      'fastify',
      'ajv',
      'pg',
      'pg-boss',
      'prom-client',
      'yaml',
      '@fastify/swagger-ui',
      '@fastify/static',
      'pino',
    ])
      expect(importsFromNodeModules(bundled), bundled).toBe(false);
    for (const external of ['@electric-sql/pglite', '@node-rs/argon2', 'cookie'])
      expect(importsFromNodeModules(external), external).toBe(true);
  });

  let server: ServerProcess | undefined;
  // Made by the test that uses it: a suite skipped (dist/ stale) runs no afterAll to remove it.
  let dataDir: string | undefined;
  afterAll(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it.skipIf(Boolean(process.env.TEST_DATABASE_URL))(
    'starts on a new data dir from the template and serves the API, its docs and the web UI',
    async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'scanhub-built-'));
      server = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info' }, { build: true });
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      // Bodies are read to the end: a connection still sending one would hold the server's close.
      const document = await fetch(`${server.url}/api/openapi.json`);
      expect(document.status).toBe(200);
      expect(await document.json()).toMatchObject({ openapi: '3.1.0' });
      // The docs UI is bundled and finds its assets in node_modules (src/http/openapi.ts).
      const docs = await fetch(`${server.url}/api/docs`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('<html');
      const docsAsset = await fetch(`${server.url}/api/docs/static/swagger-ui.css`);
      expect(docsAsset.status).toBe(200);
      expect((await docsAsset.text()).length).toBeGreaterThan(10_000);
      expect(await (await fetch(`${server.url}/api/docs/yaml`)).text()).toMatch(/^openapi: 3\.1\.0$/m);
      const page = await fetch(`${server.url}/`);
      expect(page.status).toBe(200);
      // The web UI is found (when built) wherever the bundler put the code that looks for it.
      if (existsSync(join(WEB_DIST, 'index.html'))) expect(await page.text()).not.toContain('not built');
      // The readiness check waits for what the start finishes after listening.
      await expect.poll(async () => (await fetch(`${server!.url}/readyz`)).status).toBe(200);
      expect(server.output()).toContain('start: database created from the build template');
    },
    60_000,
  );

  it.skipIf(Boolean(process.env.TEST_DATABASE_URL))(
    'parses an upload in its worker thread (dist/stage-worker.js) when told to for every upload',
    async () => {
      const workerDataDir = mkdtempSync(join(tmpdir(), 'scanhub-built-worker-'));
      const admin = { email: 'built-admin@scanhub.local', password: 'built-admin-password-1' };
      let workerServer: ServerProcess | undefined;
      try {
        workerServer = await startServerProcess(
          {
            DATA_DIR: workerDataDir,
            INGEST_WORKER_MIN_BYTES: '0',
            SCANHUB_ADMIN_EMAIL: admin.email,
            SCANHUB_ADMIN_PASSWORD: admin.password,
          },
          { build: true },
        );
        const api = await signIn(workerServer.url, admin.email, admin.password);
        const app = await createApplication(api, await createGroup(api, 'built'), 'built-worker');
        const { body, contentType } = multipartBody({ file: buildSarif({ results: manyResults(300) }) });
        const response = await fetch(`${workerServer.url}/api/ingest`, {
          method: 'POST',
          headers: { 'x-api-token': app.token, 'content-type': contentType },
          body,
        });
        expect(response.status).toBe(201);
        expect(await response.json()).toMatchObject({ findings_count: 300, new_findings_count: 300 });
      } finally {
        await workerServer?.stop();
        rmSync(workerDataDir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
