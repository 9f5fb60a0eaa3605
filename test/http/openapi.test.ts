import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The OpenAPI document is a product for API users: it must lint clean with Redocly's recommended
 * rules and generate a typed client that a small script (test/openapi-client/use-client.ts)
 * compiles against.
 */

const run = promisify(execFile);
const here = import.meta.dirname;
const clientDir = join(here, '..', 'openapi-client');
const workDir = join(here, '..', '..', '.tmp', `openapi-${process.pid}`);

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: unknown[];
  responses: Record<string, { $ref?: string }>;
  'x-required-permission'?: string;
}
interface Document {
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; responses: Record<string, unknown> };
}

let t: TestApp;
let document: Document;
const operations = (): [string, Operation][] =>
  Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(
      ([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as [string, Operation],
    ),
  );

beforeAll(async () => {
  t = await createTestApp();
  document = (await t.app.inject({ url: '/api/openapi.json' })).json();
  mkdirSync(workDir, { recursive: true });
});
afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  rmSync(join(clientDir, 'scanhub-api.d.ts'), { force: true });
  await t.close();
});

describe('the OpenAPI document', () => {
  it("carries the package's version, not the interface description's", () => {
    const pkg = JSON.parse(readFileSync(join(here, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(document.info.version).toBe(pkg.version);
  });

  it('names, summarizes, describes and guards every operation', () => {
    const ids = new Set<string>();
    for (const [label, operation] of operations()) {
      expect(operation.operationId, label).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(operation.operationId ?? ''), `${label}: duplicate operationId`).toBe(false);
      ids.add(operation.operationId ?? '');
      expect(operation.summary, label).toBeTruthy();
      expect(operation.description?.length ?? 0, label).toBeGreaterThan(20);
      expect(operation['x-required-permission'], label).toMatch(/^(public|[a-z-]+\.[a-z]+)$/);
    }
    expect(ids.size).toBeGreaterThan(70);
  });

  it('documents the problem answers each route can give, by reference', () => {
    for (const [label, operation] of operations()) {
      const statuses = Object.keys(operation.responses);
      expect(statuses, label).toContain('401');
      const unlimited = ['GET /healthz', 'GET /readyz', 'GET /metrics'].includes(label);
      expect(statuses.includes('429'), `${label} 429`).toBe(!unlimited);
      for (const status of statuses.filter((code) => code.startsWith('4'))) {
        expect(operation.responses[status]?.$ref, `${label} ${status}`).toMatch(
          /^#\/components\/responses\//,
        );
      }
    }
    const [, changeStatus] =
      operations().find(([label]) => label === 'PATCH /api/findings/{id}/status') ?? [];
    expect(Object.keys(changeStatus?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '409']),
    );
    const [, ingest] = operations().find(([label]) => label === 'POST /api/ingest') ?? [];
    expect(ingest?.security).toEqual([{ applicationToken: [] }]);
    expect(Object.keys(ingest?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '202', '413', '415', '422']),
    );
    const [, health] = operations().find(([label]) => label === 'GET /healthz') ?? [];
    expect(health?.security).toEqual([]);
  });

  it('documents the multipart ingest form field by field', () => {
    const form = (
      document.paths['/api/ingest']?.post as unknown as {
        requestBody: {
          content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }>;
        };
      }
    ).requestBody.content['multipart/form-data']?.schema;
    expect(form?.required).toEqual(['file']);
    expect(Object.keys(form?.properties ?? {})).toEqual(
      expect.arrayContaining(['file', 'version', 'branch', 'category']),
    );
  });

  it('keeps the records in components, referenced by name', () => {
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['Finding', 'Application', 'Scan', 'Webhook', 'Policy', 'Problem']),
    );
    expect(JSON.stringify(document.paths)).toContain('"#/components/schemas/Finding"');
  });

  it('passes redocly lint with the recommended rules: no error, no warning', async () => {
    const file = join(workDir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const bin = join(here, '..', '..', 'node_modules', '.bin', 'redocly');
    const result = await run(bin, ['lint', file, '--format=json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((error: { stdout: string }) => error);
    const report = JSON.parse(result.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { message: string }[];
    };
    expect(report.problems.map((problem) => problem.message)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('generates a typed client that a script using it compiles against', async () => {
    const types = astToString(await openapiTS(document as never));
    writeFileSync(join(clientDir, 'scanhub-api.d.ts'), types);
    const tsc = join(here, '..', '..', 'node_modules', '.bin', 'tsc');
    const result = await run(tsc, [
      '--noEmit',
      '--strict',
      '--target',
      'ES2023',
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--skipLibCheck',
      '--types',
      'node',
      '--lib',
      'ES2023,DOM',
      join(clientDir, 'use-client.ts'),
    ]).catch((error: { stdout: string }) => error);
    expect(result.stdout).toBe('');
  }, 120_000);
});

describe('the browsable docs at /api/docs', () => {
  it('serves the page, its assets, its logo and the document in JSON and YAML, without signing in', async () => {
    const page = await t.app.inject({ url: '/api/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const asset = await t.app.inject({ url: '/api/docs/static/swagger-ui-bundle.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.body.length).toBeGreaterThan(100_000);
    const initializer = await t.app.inject({ url: '/api/docs/static/swagger-initializer.js' });
    // The logo is read from the assets' directory at start and inlined in the page's script.
    expect(initializer.body).toContain('data:image/svg+xml;base64,');
    expect((await t.app.inject({ url: '/api/docs/json' })).json()).toMatchObject({ openapi: '3.1.0' });
    // The assets' own index.html lacks the generated initializer: its address leads to the docs.
    const typed = await t.app.inject({ url: '/api/docs/index.html' });
    expect(typed.statusCode).toBe(302);
    expect(new URL(typed.headers.location ?? '', 'http://scanhub/api/docs/index.html').pathname).toBe(
      '/api/docs/',
    );
    const yaml = await t.app.inject({ url: '/api/docs/yaml' });
    expect(yaml.statusCode).toBe(200);
    expect(yaml.body).toMatch(/^openapi: 3\.1\.0$/m);
  });

  it('is not framed, and runs under the content security policy of the app (issue 52 item 9)', async () => {
    for (const url of ['/api/docs', '/api/docs/', '/api/docs/static/swagger-initializer.js']) {
      const response = await t.app.inject({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['x-frame-options'], url).toBe('DENY');
      const csp = String(response.headers['content-security-policy']);
      expect(csp, url).toMatch(/frame-ancestors 'none'/);
      expect(csp, url).toMatch(/script-src 'self';/);
    }
    // Every script the page loads is a file of its own: the policy needs no inline script.
    const page = await t.app.inject({ url: '/api/docs/' });
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('serves no file outside the docs assets', async () => {
    // Encoded slashes: the client does not resolve these dots away, the server must refuse them.
    for (const url of ['/api/docs/..%2f..%2fpackage.json', '/api/docs/static/..%2f..%2f..%2fpackage.json']) {
      const response = await t.app.inject({ url });
      expect(response.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(response.body, url).not.toContain('"dependencies"');
    }
  });
});
