import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app-context.ts';
import { registerWebUi } from '../../src/http/web-ui.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/** The browser UI is served at `/` beside the API, which keeps its 404 problems. */

let t: TestApp;
const dist = mkdtempSync(join(tmpdir(), 'scanhub-web-dist-'));

async function webOnly(root: string): Promise<App> {
  const app = Fastify() as unknown as App;
  await registerWebUi(app, root);
  return app;
}

beforeAll(async () => {
  t = await createTestApp();
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>scanhub</title><div id="root"></div>');
  writeFileSync(join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
});
afterAll(async () => {
  rmSync(dist, { recursive: true, force: true });
  await t.close();
});

describe('the web UI routes of the real app', () => {
  it('keeps unknown API paths a 404 problem, for GET too', async () => {
    for (const url of ['/api/nothing-here', '/api/findings/1/nothing', '/api']) {
      const response = await t.app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).toContain('application/problem+json');
      expect(response.json().code).toBe('not_found');
    }
  });

  it('answers client-side routes with an HTML page, built or not', async () => {
    const response = await t.app.inject({ url: '/findings?severity=high&page=2' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('scanhub');
  });

  it('still refuses an unknown API key, as every route does', async () => {
    const response = await t.app.inject({ url: '/', headers: { 'x-api-key': 'shk_not-a-key' } });
    expect(response.statusCode).toBe(401);
  });
});

describe('with a build', () => {
  it('serves index.html for any page URL, uncached and unframeable', async () => {
    const app = await webOnly(dist);
    for (const url of ['/', '/findings', '/applications/checkout/settings?tab=webhooks']) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.body).toContain('<div id="root">');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    }
    await app.close();
  });

  it('serves hashed assets for a year and top-level files by name; a missing asset is a 404', async () => {
    const app = await webOnly(dist);
    const asset = await app.inject({ url: '/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    expect(asset.body).toBe('console.log(1)');
    const icon = await app.inject({ url: '/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toContain('image/svg');
    const missing = await app.inject({ url: '/assets/nothing.js' });
    expect(missing.statusCode).toBe(404);
    const escape = await app.inject({ url: '/assets/..%2f..%2fpackage.json' });
    expect(escape.statusCode).toBe(404);
    await app.close();
  });
});

describe('without a build', () => {
  it('still starts, and / says how to build the UI', async () => {
    const app = await webOnly(join(dist, 'absent'));
    const response = await app.inject({ url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('npm run web:build');
    const asset = await app.inject({ url: '/assets/index.js' });
    expect(asset.statusCode).toBe(404);
    await app.close();
  });
});
