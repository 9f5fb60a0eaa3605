import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { forwardAuditEvents } from '../../src/modules/webhooks/audit-forwarding.ts';
import { grant, makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * Issue 49: the audit trail streamed to a webhook subscribed to `audit.*` (a SIEM), through the
 * webhook deliveries: every event after the subscription exactly once, signed like every delivery,
 * secrets masked; only whoever may read the trail may set one up, change it or read what it sent.
 */

let t: TestApp;
let admin: TestUser;
let member: TestUser;
const receivers: WebhookReceiver[] = [];
const SECRET = 'audit-stream-signing-secret';

beforeAll(async () => {
  t = await createTestApp({
    outbound: { allowPrivate: true },
    webhooks: { timeoutMs: 1500, retryLimit: 3, retryDelaySeconds: 1 },
  });
  admin = await makeUser(t, { role: 'admin' });
  member = await makeUser(t);
}, 120_000);
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
afterAll(() => t.close());

async function receiver() {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

const send = (user: TestUser, method: string, url: string, payload?: object) =>
  t.app.inject({ method: method as 'POST', url, headers: user.headers, ...(payload ? { payload } : {}) });

const auditIdsAfter = async (cursor: string) =>
  (
    await t.db
      .selectFrom('audit_events')
      .select(sql<string>`audit_events.id::text`.as('id'))
      .where('audit_events.id', '>', cursor as never)
      .orderBy('audit_events.id')
      .execute()
  ).map((row) => row.id);

const cursorOf = async (webhookId: number) =>
  String(
    (
      await t.db
        .selectFrom('webhooks')
        .select('audit_cursor')
        .where('id', '=', webhookId)
        .executeTakeFirstOrThrow()
    ).audit_cursor,
  );

describe('streaming the audit trail', () => {
  it('every event after the subscription, exactly once, signed, secrets masked', async () => {
    const app = await makeApplication(t, admin);
    const hook = await receiver();
    const subscribed = await send(admin, 'POST', `/api/applications/${app.id}/webhooks`, {
      url: hook.url,
      events: 'audit.*',
      secret: SECRET,
    });
    expect(subscribed.statusCode, subscribed.body).toBe(201);
    const webhookId = subscribed.json().id as number;
    const own = await t.db
      .selectFrom('audit_events')
      .select(sql<string>`(id - 1)::text`.as('before'))
      .where('action', '=', 'webhook.created')
      .where('target_id', '=', String(webhookId))
      .executeTakeFirstOrThrow();
    const start = own.before; // the stream starts with its own webhook.created

    // Some audited work, with secrets in it.
    const password = 'streamed user password never sent';
    expect(
      (await send(admin, 'POST', '/api/users', { email: 'streamed@example.test', password })).statusCode,
    ).toBe(201);
    const rawKey = 'other webhook secret never sent';
    const other = await send(admin, 'POST', `/api/applications/${app.id}/webhooks`, {
      url: 'http://127.0.0.1:9/other',
      events: 'finding.created',
      secret: rawKey,
    });
    expect(other.statusCode, other.body).toBe(201);

    // Two forwarders at once, and the job's own runs besides: still once per event.
    await Promise.all([forwardAuditEvents(t), forwardAuditEvents(t)]);
    const expected = await auditIdsAfter(start);
    expect(expected.length).toBeGreaterThanOrEqual(3);
    const requests = await hook.waitFor(expected.length);
    await forwardAuditEvents(t);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await auditIdsAfter(start)).toEqual(expected); // nothing audited meanwhile
    expect(requests).toHaveLength(expected.length);

    const bodies = requests.map((request) => JSON.parse(request.body));
    expect(bodies.map((body) => body.data.id).sort((a, b) => Number(a) - Number(b))).toEqual(expected);
    const actions = bodies.map((body) => body.data.action);
    expect(actions.filter((action) => action === 'webhook.created')).toHaveLength(2);
    expect(actions).toContain('user.created');
    for (const body of bodies) expect(body.event).toBe(`audit.${body.data.action}`);
    const first = bodies.find((body) => body.data.id === expected[0]);
    expect(first.data).toMatchObject({ action: 'webhook.created', target: { id: String(webhookId) } });
    expect(first.data.changes.secret).toEqual({ before: null, after: '[masked]' });

    const standard = new Webhook(Buffer.from(SECRET).toString('base64'));
    for (const request of requests) {
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
      );
      expect(() => standard.verify(request.body, headers)).not.toThrow();
      expect(request.headers['x-service-event']).toBe(JSON.parse(request.body).event);
      for (const secret of [password, rawKey, SECRET]) expect(request.body.includes(secret)).toBe(false);
    }
    expect(await cursorOf(webhookId)).toBe(expected.at(-1));
    const rows = await t.db
      .selectFrom('webhook_deliveries')
      .select(['event', 'status'])
      .where('webhook_id', '=', webhookId)
      .execute();
    expect(rows).toHaveLength(expected.length);
  });

  it('a webhook switched off keeps its place and catches up when switched on', async () => {
    const app = await makeApplication(t, admin);
    const hook = await receiver();
    const subscribed = await send(admin, 'POST', `/api/applications/${app.id}/webhooks`, {
      url: hook.url,
      events: ['audit.*'],
    });
    const webhookId = subscribed.json().id as number;
    await forwardAuditEvents(t);
    await hook.waitFor(1);
    const off = await send(admin, 'PATCH', `/api/applications/${app.id}/webhooks/${webhookId}`, {
      active: false,
    });
    expect(off.statusCode).toBe(200);
    const paused = await cursorOf(webhookId);
    expect(
      (await send(admin, 'POST', '/api/teams', { name: `streamed-team-${Date.now()}` })).statusCode,
    ).toBe(201);
    await forwardAuditEvents(t);
    expect(await cursorOf(webhookId)).toBe(paused);
    const on = await send(admin, 'PATCH', `/api/applications/${app.id}/webhooks/${webhookId}`, {
      active: true,
    });
    expect(on.statusCode).toBe(200);
    await forwardAuditEvents(t);
    const missed = await auditIdsAfter(paused);
    const requests = await hook.waitFor(1 + missed.length);
    const actions = requests.map((request) => JSON.parse(request.body).data.action);
    expect(actions).toEqual(expect.arrayContaining(['webhook.updated', 'team.created']));
  });

  it('the job streams by itself: an event reaches the receiver without anyone calling the forwarder', async () => {
    const app = await makeApplication(t, admin);
    const hook = await receiver();
    const subscribed = await send(admin, 'POST', `/api/applications/${app.id}/webhooks`, {
      url: hook.url,
      events: 'audit.*',
    });
    expect(subscribed.statusCode).toBe(201);
    const requests = await hook.waitFor(1, 30_000);
    expect(JSON.parse(requests[0]!.body).data.action).toBe('webhook.created');
  });
});

describe('who may stream the trail', () => {
  it('write on the application is not enough: subscribing, changing, deleting, reading deliveries need audit.read', async () => {
    const app = await makeApplication(t, admin);
    await grant(t, member, app.id, 'write');
    const hook = await receiver();
    const refused = await send(member, 'POST', `/api/applications/${app.id}/webhooks`, {
      url: hook.url,
      events: 'finding.created,audit.*',
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(
      await t.db.selectFrom('webhooks').select('id').where('application_id', '=', app.id).execute(),
    ).toEqual([]);

    // A member's `*` webhook gets the application's events, never the trail.
    const everything = await send(member, 'POST', `/api/applications/${app.id}/webhooks`, {
      url: hook.url,
      events: '*',
    });
    expect(everything.statusCode).toBe(201);
    const cursor = await t.db
      .selectFrom('webhooks')
      .select('audit_cursor')
      .where('id', '=', everything.json().id)
      .executeTakeFirstOrThrow();
    expect(cursor.audit_cursor).toBeNull();
    const upgrade = await send(
      member,
      'PATCH',
      `/api/applications/${app.id}/webhooks/${everything.json().id}`,
      {
        events: ['*', 'audit.*'],
      },
    );
    expect(upgrade.statusCode).toBe(403);

    const stream = await send(admin, 'POST', `/api/applications/${app.id}/webhooks`, {
      url: hook.url,
      events: 'audit.*',
    });
    expect(stream.statusCode).toBe(201);
    const base = `/api/applications/${app.id}/webhooks/${stream.json().id}`;
    await forwardAuditEvents(t);
    await hook.waitFor(1);
    expect((await send(member, 'GET', `/api/applications/${app.id}/webhooks`)).statusCode).toBe(200);
    expect((await send(member, 'GET', `${base}/deliveries`)).statusCode).toBe(403);
    expect((await send(member, 'PATCH', base, { url: 'http://127.0.0.1:9/elsewhere' })).statusCode).toBe(403);
    expect((await send(member, 'DELETE', base)).statusCode).toBe(403);
    expect((await send(admin, 'GET', `${base}/deliveries`)).statusCode).toBe(200);

    await forwardAuditEvents(t);
    const trailToMember = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', everything.json().id)
      .where('event', 'like', 'audit.%')
      .execute();
    expect(trailToMember).toEqual([]);
  });
});
