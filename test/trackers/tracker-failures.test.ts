import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { startFakeTracker, type FakeTracker } from '../support/fake-trackers.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { eventually } from '../support/webhook-receiver.ts';

/**
 * Tracker failures: a refusal is final and recorded (`failed`, `last_error`, listed), a 5xx is
 * retried and recorded while it lasts, a refused link is filed again on request; inbound bodies
 * that are not JSON or carry NUL characters are refused.
 */

const TOKEN = 'ghp_failures-token-never-shown-01';
const SECRET = 'failures-webhook-secret-012345678';
let t: TestApp;
let admin: TestUser;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  t = await createTestApp({
    outbound: { allowPrivate: true },
    trackers: { timeoutMs: 1000, retryLimit: 1, retryDelaySeconds: 1 },
  });
  admin = await makeUser(t, { role: 'admin' });
});
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});
afterAll(() => t.close());

async function configure(baseUrl: string, token = TOKEN) {
  const app = await makeApplication(t, admin);
  const response = await t.app.inject({
    method: 'POST',
    url: `/api/applications/${app.id}/issue-tracker`,
    headers: admin.headers,
    payload: { provider: 'github', token, base_url: baseUrl, repository: 'acme/app', webhook_secret: SECRET },
  });
  expect(response.statusCode).toBe(201);
  return { app, tracker: response.json() as { id: number } };
}

const fileIssue = (findingId: number) =>
  t.app.inject({ method: 'POST', url: `/api/findings/${findingId}/issue`, headers: admin.headers });

describe('tracker failures', () => {
  it('a 401 is final: the link is failed with the reason, listed, and filed again on request once fixed', async () => {
    const fake: FakeTracker = await startFakeTracker('github', `token ${TOKEN}`);
    stops.push(fake.stop);
    const { app } = await configure(fake.url, 'ghp_not-the-right-token-000000');
    const finding = await makeFinding(t, app.id);
    expect((await fileIssue(finding.id)).statusCode).toBe(201);
    const failed = await eventually(async () => {
      const response = await t.app.inject({
        url: `/api/applications/${app.id}/issue-tracker/issues`,
        headers: admin.headers,
      });
      const [link] = response.json();
      return link?.state === 'failed' ? link : undefined;
    });
    expect(failed.last_error).toBe('github: answered 401: Bad credentials');
    expect(failed.external_key).toBeNull();
    expect(fake.issues).toHaveLength(0);

    await t.app.inject({
      method: 'POST',
      url: `/api/applications/${app.id}/issue-tracker`,
      headers: admin.headers,
      payload: { provider: 'github', token: TOKEN },
    });
    const again = await fileIssue(finding.id);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ state: 'pending', last_error: null });
    await eventually(async () => {
      const row = await t.db
        .selectFrom('tracker_issues')
        .selectAll()
        .where('finding_id', '=', finding.id)
        .executeTakeFirst();
      return row?.state === 'open' ? row : undefined;
    });
    expect(fake.issues).toHaveLength(1);
  });

  it('a 5xx is retried with backoff and recorded while it lasts; the link stays pending', async () => {
    const hits: string[] = [];
    const server = http.createServer((request, response) => {
      hits.push(`${request.method} ${request.url}`);
      response.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"Unavailable"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stops.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { app } = await configure(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const finding = await makeFinding(t, app.id);
    await fileIssue(finding.id);
    // The first try and one retry, each stopping at the marker search.
    await eventually(async () => (hits.length >= 2 ? true : undefined), 15_000);
    const row = await eventually(async () => {
      const link = await t.db
        .selectFrom('tracker_issues')
        .selectAll()
        .where('finding_id', '=', finding.id)
        .executeTakeFirst();
      return link?.last_error && link.lease_until === null ? link : undefined;
    });
    expect(row).toMatchObject({
      state: 'pending',
      last_error: 'github: answered 503: Unavailable',
      external_key: null,
    });
    expect(hits.every((hit) => hit.startsWith('GET /repos/acme/app/issues?labels='))).toBe(true);
  });

  it('inbound bodies that are not JSON, or carry NUL characters, are refused after the signature check', async () => {
    const { tracker } = await configure('https://github.example.test');
    const send = (body: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/integrations/github/webhook/${tracker.id}`,
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issue_comment',
          'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
        },
        payload: body,
      });
    expect((await send('{not json')).statusCode).toBe(400);
    const nul = await send(
      JSON.stringify({ action: 'created', issue: { number: 1 }, comment: { body: 'a\u0000b' } }),
    );
    expect(nul.statusCode).toBe(400);
    expect(nul.json().errors[0].path).toBe('body.comment.body');
    const ping = await send(JSON.stringify({ zen: 'Keep it logically awesome.' }));
    expect(ping.json()).toEqual({ received: true, applied: 'ignored: github issue_comment' });
  });
});
