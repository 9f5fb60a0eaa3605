import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startJobs } from '../../src/jobs/jobs.ts';
import { jobMap } from '../../src/wiring.ts';
import { makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';
import { eventually, startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

let t: TestApp;
let admin: TestUser;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  t = await createTestApp({
    outbound: { allowPrivate: true },
    webhooks: { timeoutMs: 1500, retryLimit: 5, retryDelaySeconds: 1 },
  });
  admin = await makeUser(t, { role: 'admin' });
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
afterAll(() => t.close());

const SECRET = 'shared-secret-for-signatures';

async function receiver(behaviour?: Parameters<typeof startReceiver>[0]) {
  const started = await startReceiver(behaviour);
  receivers.push(started);
  return started;
}

async function subscribe(applicationId: number, url: string, events: string | string[], secret?: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: `/api/applications/${applicationId}/webhooks`,
    headers: admin.headers,
    payload: { url, events, ...(secret ? { secret } : {}) },
  });
  expect(response.statusCode).toBe(201);
  return response.json() as { id: number };
}

const deliveriesOf = (applicationId: number, webhookId: number) =>
  t.app
    .inject({
      method: 'GET',
      url: `/api/applications/${applicationId}/webhooks/${webhookId}/deliveries`,
      headers: admin.headers,
    })
    .then(
      (response) =>
        response.json() as {
          id: number;
          status: string;
          attempts: number;
          attempt_log: { status_code: number | null; error: string | null }[];
        }[],
    );

const setStatus = (findingId: number, status: string) =>
  t.app.inject({
    method: 'PATCH',
    url: `/api/findings/${findingId}/status`,
    headers: admin.headers,
    payload: { status },
  });

describe('delivery of ingest events', () => {
  it('one signed finding.created per new finding and one scan.completed, verifiable with node:crypto and standardwebhooks', async () => {
    const app = await makeApplication(t, admin);
    const hook = await receiver();
    await subscribe(app.id, hook.url, '*', SECRET);
    const sarif = buildSarif({
      results: [
        { ruleId: 'xss', path: 'src/a.ts', line: 3, level: 'error' },
        { ruleId: 'sqli', path: 'src/b.ts', line: 9, level: 'warning' },
      ],
    });
    const response = await upload(t, `/api/applications/${app.id}/ingest`, admin.headers, {
      file: sarif,
      fileName: 'r.sarif',
    });
    expect(response.statusCode).toBe(201);
    const requests = await hook.waitFor(3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.requests).toHaveLength(3);

    const events = requests.map((request) => request.headers['x-service-event']).sort();
    expect(events).toEqual(['finding.created', 'finding.created', 'scan.completed']);
    const standard = new Webhook(Buffer.from(SECRET).toString('base64'));
    for (const request of requests) {
      const expected = `sha256=${createHmac('sha256', SECRET).update(request.body).digest('hex')}`;
      expect(request.headers['x-service-signature']).toBe(expected);
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
      );
      expect(() => standard.verify(request.body, headers)).not.toThrow();
      const payload = JSON.parse(request.body);
      expect(payload.id).toBe(request.headers['x-service-delivery']);
      expect(payload.id).toBe(request.headers['webhook-id']);
      expect(payload.event).toBe(request.headers['x-service-event']);
      expect(Date.parse(payload.occurred_at)).not.toBeNaN();
      expect(payload.application).toEqual({ id: app.id, slug: app.slug, group_id: app.group_id });
    }
    const created = requests
      .filter((request) => request.headers['x-service-event'] === 'finding.created')
      .map((request) => JSON.parse(request.body).data);
    expect(created.map((finding: { rule_id: string }) => finding.rule_id).sort()).toEqual(['sqli', 'xss']);
    const scanId = response.json().scan.id;
    for (const finding of created) expect(finding).toMatchObject({ scan_id: scanId, application_id: app.id });
    expect(created[0].version_id).toBeTypeOf('number');
    const scan = requests.find((request) => request.headers['x-service-event'] === 'scan.completed');
    expect(JSON.parse(scan?.body ?? '{}').data).toMatchObject({ id: scanId, status: 'completed' });

    // A tampered body fails both checks.
    const tampered = requests[0]?.body.replace('"event"', '"evenT"') ?? '';
    const headers = Object.fromEntries(
      Object.entries(requests[0]?.headers ?? {}).map(([k, v]) => [k, String(v)]),
    );
    expect(() => standard.verify(tampered, headers)).toThrow();
  });

  it('an upload of 1,200 new findings is dispatched in slices: each finding sent exactly once', async () => {
    const app = await makeApplication(t, admin);
    const hook = await receiver();
    await subscribe(app.id, hook.url, 'finding.created');
    const results = Array.from({ length: 1200 }, (_, index) => ({
      ruleId: `rule-${index % 7}`,
      path: `src/file-${index}.ts`,
      line: 1 + (index % 50),
      level: 'warning' as const,
    }));
    const response = await upload(t, `/api/applications/${app.id}/ingest`, admin.headers, {
      file: buildSarif({ results }),
      fileName: 'many.sarif',
    });
    expect(response.statusCode).toBe(201);
    const requests = await hook.waitFor(1200, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // One message per finding. A receiver that answers late under load (the suite on two busy cores)
    // gets that message again after its timeout — a retry, with the same delivery id — so the
    // dispatch is counted by distinct message ids, and every id must carry a distinct finding.
    const messageIds = new Set(hook.requests.map((request) => request.headers['webhook-id']));
    expect(messageIds.size).toBe(1200);
    const findingIds = new Set(requests.map((request) => JSON.parse(request.body).data.id));
    expect(findingIds.size).toBe(1200);
    const findingOfMessage = new Map<unknown, unknown>();
    for (const request of hook.requests) {
      const findingId = JSON.parse(request.body).data.id;
      expect(findingOfMessage.get(request.headers['webhook-id']) ?? findingId).toBe(findingId);
      findingOfMessage.set(request.headers['webhook-id'], findingId);
    }
    const event = await t.db
      .selectFrom('events')
      .select(['processed_at', 'dispatch_cursor'])
      .where('application_id', '=', app.id)
      .where('type', '=', 'finding.created')
      .executeTakeFirstOrThrow();
    expect(event.processed_at).not.toBeNull();
    expect(event.dispatch_cursor).not.toBeNull(); // it took more than one slice
  });

  it('a subscription receives only its events; finding.updated covers status changes and reassignments', async () => {
    const app = await makeApplication(t, admin);
    const onlyScans = await receiver();
    const updates = await receiver();
    await subscribe(app.id, onlyScans.url, 'scan.completed');
    await subscribe(app.id, updates.url, ['finding.updated']);
    const finding = await makeFinding(t, app.id);
    expect((await setStatus(finding.id, 'confirmed')).statusCode).toBe(200);
    const assign = await t.app.inject({
      method: 'PATCH',
      url: `/api/findings/${finding.id}/assign`,
      headers: admin.headers,
      payload: { user_id: admin.id },
    });
    expect(assign.statusCode).toBe(200);
    const received = await updates.waitFor(2);
    const byEvent = Object.fromEntries(
      received.map((request) => [request.headers['x-service-event'], JSON.parse(request.body)]),
    );
    expect(byEvent['finding.status_changed'].data).toMatchObject({
      id: finding.id,
      status: expect.any(String),
      change: { from: 'open', to: 'confirmed' },
    });
    expect(byEvent['finding.reassigned'].data.id).toBe(finding.id);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(onlyScans.requests).toHaveLength(0);
    expect(received.every((request) => request.headers['x-service-signature'] === undefined)).toBe(true);
  });
});

describe('retries and failure', () => {
  it('a 500 then a 200: delivered on the second attempt, both attempts listed', async () => {
    const app = await makeApplication(t, admin);
    const hook = await receiver((index) => (index === 0 ? { status: 500, body: 'boom' } : 204));
    const webhook = await subscribe(app.id, hook.url, 'finding.status_changed');
    const finding = await makeFinding(t, app.id);
    await setStatus(finding.id, 'confirmed');
    const requests = await hook.waitFor(2);
    expect(requests[1]?.headers['x-service-delivery']).toBe(requests[0]?.headers['x-service-delivery']);
    expect(requests[1]?.body).toBe(requests[0]?.body);
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(app.id, webhook.id);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(delivery?.attempts).toBe(2);
    expect(delivery?.attempt_log.map((attempt) => attempt.status_code)).toEqual([500, 204]);
    expect(delivery?.attempt_log[0]?.error).toContain('500');
  });

  it('a receiver that hangs is cut at the timeout and retried', async () => {
    const app = await makeApplication(t, admin);
    const hook = await receiver((index) => (index === 0 ? 'hang' : 200));
    const webhook = await subscribe(app.id, hook.url, 'finding.status_changed');
    const finding = await makeFinding(t, app.id);
    await setStatus(finding.id, 'confirmed');
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(app.id, webhook.id);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(delivery?.attempt_log).toHaveLength(2);
    expect(delivery?.attempt_log[0]?.error).toMatch(/timed out/);
    expect(delivery?.attempt_log[0]?.status_code).toBeNull();
  });

  it('a redirect is an answer, not followed', async () => {
    const app = await makeApplication(t, admin);
    const target = await receiver();
    const hook = await receiver(() => ({ status: 302, location: target.url }));
    const webhook = await subscribe(app.id, hook.url, 'finding.status_changed');
    const finding = await makeFinding(t, app.id);
    await setStatus(finding.id, 'confirmed');
    await hook.waitFor(1);
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(app.id, webhook.id);
      return list[0]?.attempts ? list : undefined;
    });
    expect(delivery?.attempt_log[0]?.status_code).toBe(302);
    expect(delivery?.status).not.toBe('delivered');
    expect(target.requests).toHaveLength(0);
  });
});

describe('restart', () => {
  it('an event committed while no worker runs is delivered once workers start again', async () => {
    const restartable = await createTestApp({
      outbound: { allowPrivate: true },
      webhooks: { timeoutMs: 1500, retryLimit: 5, retryDelaySeconds: 1 },
    });
    try {
      const owner = await makeUser(restartable, { role: 'admin' });
      const app = await makeApplication(restartable, owner);
      const hook = await receiver();
      await restartable.app.inject({
        method: 'POST',
        url: `/api/applications/${app.id}/webhooks`,
        headers: owner.headers,
        payload: { url: hook.url, events: 'finding.status_changed' },
      });
      const finding = await makeFinding(restartable, app.id);
      await restartable.jobs.stop();
      const changed = await restartable.app.inject({
        method: 'PATCH',
        url: `/api/findings/${finding.id}/status`,
        headers: owner.headers,
        payload: { status: 'false_positive' },
      });
      expect(changed.statusCode).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(hook.requests).toHaveLength(0);

      const log = { info: () => {}, warn: () => {}, error: () => {} };
      const again = await startJobs(restartable, jobMap(restartable.config), {
        work: true,
        expireInSeconds: 60,
        log,
      });
      try {
        const [request] = await hook.waitFor(1);
        expect(JSON.parse(request?.body ?? '{}').data).toMatchObject({
          id: finding.id,
          status: 'false_positive',
        });
      } finally {
        await again.stop();
      }
    } finally {
      await restartable.close();
    }
  });
});

describe('a receiver that stays down', () => {
  it('the delivery fails after its retries, the webhook is marked failing, a redelivery and a ping reach it once it is back', async () => {
    const strict = await createTestApp({
      outbound: { allowPrivate: true },
      webhooks: { timeoutMs: 1500, retryLimit: 1, retryDelaySeconds: 1 },
    });
    try {
      const owner = await makeUser(strict, { role: 'admin' });
      const app = await makeApplication(strict, owner);
      let up = false;
      const hook = await receiver(() => (up ? 200 : 503));
      const created = await strict.app.inject({
        method: 'POST',
        url: `/api/applications/${app.id}/webhooks`,
        headers: owner.headers,
        payload: { url: hook.url, events: 'finding.status_changed', secret: SECRET },
      });
      const webhookUrl = `/api/applications/${app.id}/webhooks/${created.json().id}`;
      const finding = await makeFinding(strict, app.id);
      await strict.app.inject({
        method: 'PATCH',
        url: `/api/findings/${finding.id}/status`,
        headers: owner.headers,
        payload: { status: 'confirmed' },
      });
      const get = (url: string) =>
        strict.app.inject({ method: 'GET', url, headers: owner.headers }).then((r) => r.json());
      const failed = await eventually(async () => {
        const [delivery] = await get(`${webhookUrl}/deliveries`);
        return delivery?.status === 'failed' ? delivery : undefined;
      });
      expect(failed.attempts).toBe(2);
      expect(hook.requests).toHaveLength(2);
      expect(await get(webhookUrl)).toMatchObject({
        state: 'failing',
        consecutive_failures: 1,
        last_status_code: 503,
      });
      expect((await get(`${webhookUrl}/deliveries?status=failed`)).map((d: { id: number }) => d.id)).toEqual([
        failed.id,
      ]);
      const detail = await get(`${webhookUrl}/deliveries/${failed.id}`);
      expect(JSON.parse(detail.request_body).data.id).toBe(finding.id);

      // A failing webhook is still sent new events (README: nothing is dropped).
      await strict.app.inject({
        method: 'PATCH',
        url: `/api/findings/${finding.id}/status`,
        headers: owner.headers,
        payload: { status: 'false_positive' },
      });
      const [, , newEvent] = await hook.waitFor(3);
      expect(JSON.parse(newEvent?.body ?? '{}').data.change).toMatchObject({ to: 'false_positive' });
      await eventually(async () => {
        const list: { status: string }[] = await get(`${webhookUrl}/deliveries`);
        return list.length === 2 && list.every((delivery) => delivery.status === 'failed') ? true : undefined;
      });
      expect(hook.requests).toHaveLength(4);
      expect(await get(webhookUrl)).toMatchObject({ state: 'failing', consecutive_failures: 2 });

      up = true;
      const again = await strict.app.inject({
        method: 'POST',
        url: `${webhookUrl}/deliveries/${failed.id}/redeliver`,
        headers: owner.headers,
      });
      expect(again.statusCode).toBe(202);
      expect(again.json()).toMatchObject({ redelivery_of: failed.id, message_id: failed.message_id });
      const [, , , , redelivered] = await hook.waitFor(5);
      expect(redelivered?.body).toBe(hook.requests[0]?.body);
      expect(redelivered?.headers['webhook-id']).toBe(failed.message_id);
      await eventually(async () => ((await get(webhookUrl)).state === 'ok' ? true : undefined));

      const pinged = await strict.app.inject({
        method: 'POST',
        url: `${webhookUrl}/ping`,
        headers: owner.headers,
      });
      expect(pinged.statusCode).toBe(202);
      const [, , , , , ping] = await hook.waitFor(6);
      expect(ping?.headers['x-service-event']).toBe('ping');
      expect(ping?.headers['x-service-signature']).toBe(
        `sha256=${createHmac('sha256', SECRET)
          .update(ping?.body ?? '')
          .digest('hex')}`,
      );
      const unknown = await strict.app.inject({
        method: 'POST',
        url: `${webhookUrl}/deliveries/999999/redeliver`,
        headers: owner.headers,
      });
      expect(unknown.statusCode).toBe(404);
    } finally {
      await strict.close();
    }
  });
});

describe('the outbound guard', () => {
  it('with private addresses refused, a loopback receiver is never called and the attempt says why', async () => {
    const guarded = await createTestApp({
      outbound: { allowPrivate: false },
      webhooks: { timeoutMs: 1500, retryLimit: 5, retryDelaySeconds: 1 },
    });
    try {
      const owner = await makeUser(guarded, { role: 'admin' });
      const app = await makeApplication(guarded, owner);
      const hook = await receiver();
      const created = await guarded.app.inject({
        method: 'POST',
        url: `/api/applications/${app.id}/webhooks`,
        headers: owner.headers,
        payload: { url: hook.url.replace('127.0.0.1', 'localhost'), events: '*' },
      });
      const finding = await makeFinding(guarded, app.id);
      await guarded.app.inject({
        method: 'PATCH',
        url: `/api/findings/${finding.id}/status`,
        headers: owner.headers,
        payload: { status: 'confirmed' },
      });
      const delivery = await eventually(async () => {
        const response = await guarded.app.inject({
          method: 'GET',
          url: `/api/applications/${app.id}/webhooks/${created.json().id}/deliveries`,
          headers: owner.headers,
        });
        const [first] = response.json();
        return first?.attempts > 0 ? first : undefined;
      });
      // The class of address, never what `localhost` resolved to (the review's name-resolution leak).
      expect(delivery.attempt_log[0].error).toBe(
        'the address is not allowed (private, loopback, link-local or reserved)',
      );
      const webhook = await guarded.app.inject({
        url: `/api/applications/${app.id}/webhooks/${created.json().id}`,
        headers: owner.headers,
      });
      expect(JSON.stringify(webhook.json())).not.toMatch(/127\.0\.0\.1|family/);
      expect(hook.requests).toHaveLength(0);
    } finally {
      await guarded.close();
    }
  });
});

describe('a webhook secret stays with the origin it was saved for', () => {
  it('a URL on another origin needs the secret again; the same origin does not; a row moved behind the API is never signed for', async () => {
    const owner = await makeUser(t);
    const app = await makeApplication(t, owner);
    const saved = await receiver();
    const elsewhere = await receiver();
    const created = await subscribe(app.id, saved.url, '*', SECRET);
    const webhookUrl = `/api/applications/${app.id}/webhooks/${created.id}`;
    const patch = (payload: Record<string, unknown>) =>
      t.app.inject({ method: 'PATCH', url: webhookUrl, headers: admin.headers, payload });

    const moved = await patch({ url: elsewhere.url });
    expect(moved.statusCode, moved.body).toBe(400);
    expect(moved.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(moved.json().errors).toEqual([expect.objectContaining({ path: '/secret' })]);
    expect((await patch({ url: `${saved.url}/v2`, events: 'finding.created' })).statusCode).toBe(200);

    // Behind the API (an old row, a restored dump): the delivery is refused and nothing is sent.
    await t.db.updateTable('webhooks').set({ url: elsewhere.url }).where('id', '=', created.id).execute();
    const pinged = await t.app.inject({ method: 'POST', url: `${webhookUrl}/ping`, headers: admin.headers });
    expect(pinged.statusCode).toBe(202);
    const [delivery] = await eventually(async () => {
      const deliveries = await deliveriesOf(app.id, created.id);
      return deliveries[0]?.status === 'failed' ? deliveries : undefined;
    });
    expect(delivery?.attempt_log[0]?.error).toMatch(/set it again/);
    expect(elsewhere.requests).toEqual([]);

    // Given again with the move, it signs for the new host.
    const resaved = await patch({ url: elsewhere.url, secret: 'a-secret-for-the-new-host' });
    expect(resaved.statusCode, resaved.body).toBe(200);
    const again = await t.app.inject({ method: 'POST', url: `${webhookUrl}/ping`, headers: admin.headers });
    expect(again.statusCode).toBe(202);
    const [received] = await elsewhere.waitFor(1);
    expect(received?.headers['x-service-signature']).toBeDefined();
  });
});
