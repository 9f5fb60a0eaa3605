import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeCast, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;
let writer: TestUser;
let reader: TestUser;
let outsider: TestUser;
let applicationId: number;
let base: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, writer, reader, outsider, applicationId } = await makeCast(t));
  base = `/api/applications/${applicationId}/webhooks`;
});
afterAll(() => t.close());

const SECRET = 'webhook-secret-do-not-leak-4711';

function call(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  user: TestUser | null,
  url: string,
  payload?: object,
) {
  return t.app.inject({
    method,
    url,
    ...(payload ? { payload } : {}),
    ...(user ? { headers: user.headers } : {}),
  });
}

const webhookRows = () =>
  t.db.selectFrom('webhooks').selectAll().where('application_id', '=', applicationId).execute();

describe('POST /api/applications/{id}/webhooks', () => {
  const valid = {
    url: 'https://hooks.example.test/scanhub',
    events: 'finding.created,scan.completed',
    secret: SECRET,
  };

  it('401 without credentials, 404 for an outsider, 403 for a reader; nothing stored', async () => {
    expect((await call('POST', null, base, valid)).statusCode).toBe(401);
    expect((await call('POST', outsider, base, valid)).statusCode).toBe(404);
    expect((await call('POST', reader, base, valid)).statusCode).toBe(403);
    expect(await webhookRows()).toHaveLength(0);
  });

  it.each([
    ['a URL that is not one', { ...valid, url: 'not a url' }, '/url'],
    ['a scheme other than http(s)', { ...valid, url: 'ftp://example.test/x' }, '/url'],
    ['an unknown event', { ...valid, events: 'finding.created,finding.exploded' }, '/events'],
    ['an empty event list', { ...valid, events: [] }, '/events'],
    ['events of the wrong type', { ...valid, events: 42 }, '/events'],
    ['a secret of the wrong type', { ...valid, secret: 123 }, '/secret'],
    ['an unknown field', { ...valid, owner: 'me' }, '/owner'],
  ])('400 for %s, naming the field', async (_name, body, path) => {
    const response = await call('POST', writer, base, body);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(JSON.stringify(response.json())).toContain(path.slice(1));
    expect(await webhookRows()).toHaveLength(0);
  });

  it('201 for a writer: both forms of events, the secret sealed and never returned', async () => {
    const response = await call('POST', writer, base, valid);
    expect(response.statusCode).toBe(201);
    const webhook = response.json();
    expect(webhook).toMatchObject({
      application_id: applicationId,
      url: valid.url,
      events: 'finding.created,scan.completed',
      event_list: ['finding.created', 'scan.completed'],
      secret_set: true,
      active: true,
      state: 'ok',
    });
    expect(response.body).not.toContain(SECRET);
    const [row] = await webhookRows();
    expect(row?.secret_sealed).toBeTruthy();
    expect(row?.secret_sealed).not.toContain(SECRET);
    expect(t.secrets.open(row?.secret_sealed ?? '')).toBe(SECRET);

    const arrayForm = await call('POST', writer, base, {
      url: 'http://hooks.example.test/b',
      events: ['finding.updated'],
    });
    expect(arrayForm.statusCode).toBe(201);
    expect(arrayForm.json()).toMatchObject({ events: 'finding.updated', secret_set: false });
    const star = await call('POST', admin, base, { url: 'http://hooks.example.test/c', events: '*' });
    expect(star.json().event_list).toEqual(['*']);
  });
});

describe('reading, changing and deleting a webhook', () => {
  let webhookId: number;
  beforeAll(async () => {
    webhookId = (
      await call('POST', writer, base, { url: 'https://h.example.test/one', events: 'scan.completed' })
    ).json().id;
  });

  it('list and GET need write (a callback URL can be a credential): reader 403, outsider 404', async () => {
    expect((await call('GET', reader, base)).statusCode).toBe(403);
    expect((await call('GET', outsider, base)).statusCode).toBe(404);
    expect((await call('GET', reader, `${base}/${webhookId}`)).statusCode).toBe(403);
    const list = await call('GET', writer, base);
    expect(list.statusCode).toBe(200);
    expect(list.json().map((webhook: { id: number }) => webhook.id)).toContain(webhookId);
    expect(list.body).not.toContain(SECRET);
  });

  it('404 for an unknown, malformed or foreign webhook id', async () => {
    const otherApp = await makeApplication(t, admin);
    const foreign = await call('POST', admin, `/api/applications/${otherApp.id}/webhooks`, {
      url: 'https://h.example.test/x',
      events: '*',
    });
    for (const id of ['999999', 'abc', String(foreign.json().id)]) {
      expect((await call('GET', writer, `${base}/${id}`)).statusCode).toBe(404);
      expect((await call('PATCH', writer, `${base}/${id}`, { active: false })).statusCode).toBe(404);
    }
  });

  it('PATCH changes url, events, secret and active; 400 on a bad value changes nothing', async () => {
    const bad = await call('PATCH', writer, `${base}/${webhookId}`, { active: 'false' });
    expect(bad.statusCode).toBe(400);
    expect((await call('PATCH', writer, `${base}/${webhookId}`, {})).statusCode).toBe(400);
    const response = await call('PATCH', writer, `${base}/${webhookId}`, {
      url: 'https://h.example.test/two',
      events: ['finding.status_changed', 'finding.reassigned'],
      secret: SECRET,
      active: false,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      url: 'https://h.example.test/two',
      events: 'finding.status_changed,finding.reassigned',
      secret_set: true,
      active: false,
    });
    expect(response.body).not.toContain(SECRET);
    const removed = await call('PATCH', writer, `${base}/${webhookId}`, { secret: null });
    expect(removed.json().secret_set).toBe(false);
  });

  it('DELETE: reader 403, writer 204, then 404', async () => {
    expect((await call('DELETE', reader, `${base}/${webhookId}`)).statusCode).toBe(403);
    expect((await call('DELETE', writer, `${base}/${webhookId}`)).statusCode).toBe(204);
    expect((await call('DELETE', writer, `${base}/${webhookId}`)).statusCode).toBe(404);
    expect((await webhookRows()).map((row) => row.id)).not.toContain(webhookId);
  });
});
