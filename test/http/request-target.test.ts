import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../support/raw-http.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Request targets that are not a path: the asterisk form (`GET * HTTP/1.1`, meaningful only for a
 * server-wide OPTIONS) and anything else that is neither a path nor an absolute URL is a 400
 * problem, not the web app's page (a bare `api/health` Node's own parser refuses with a 400). Sent on a raw socket: HTTP clients will not send them.
 */
let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(() => t.close());

const send = (target: string, method = 'GET') =>
  rawRequest(
    port,
    Buffer.from(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
  );

describe('request targets', () => {
  it.each([
    ['GET', '*'],
    ['OPTIONS', '*'],
    ['HEAD', '*'],
    ['GET', '*/api/health'],
  ])('%s %s is a 400 problem', async (method, target) => {
    const response = await send(target, method);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toContain('application/problem+json');
    if (method !== 'HEAD') {
      expect(JSON.parse(response.body)).toMatchObject({ status: 400, code: 'invalid_request_target' });
      expect(response.body).not.toMatch(/<html/i);
    }
  });

  it("a target Node's parser refuses (neither path nor URL) is its plain 400", async () => {
    expect((await send('api/health')).status).toBe(400);
  });

  it('a path is served as before', async () => {
    expect((await send('/healthz')).status).toBe(200);
    expect((await send('/')).status).toBe(200);
  });
});
