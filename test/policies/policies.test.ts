import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grant, makeApplication, makeGroup, type TestUser, makePeople } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;
let writer: TestUser;
let reader: TestUser;
let outsider: TestUser;
let app: { id: number; group_id: number };
let otherApp: { id: number };

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, writer, reader, outsider } = await makePeople(t));
  app = await makeApplication(t, admin);
  otherApp = await makeApplication(t, admin);
  await grant(t, writer, app.id, 'write');
  await grant(t, reader, app.id, 'read');
});
afterAll(() => t.close());

function call(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
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

const policyCount = async () => (await t.db.selectFrom('policies').select('id').execute()).length;
const errorPaths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((error) => error.path);

const confirmHigh = () => ({
  name: 'confirm high',
  scope_type: 'application',
  scope_id: app.id,
  event_types: ['finding.created'],
  conditions: [{ field: 'severity', op: 'gte', value: 'high' }],
  actions: [{ type: 'change_status', target: 'confirmed' }],
});

describe('POST /api/policies', () => {
  it('401 without credentials; 404 on an application the caller cannot read; 403 to a reader; 403 to a member for global', async () => {
    expect((await call('POST', null, '/api/policies', confirmHigh())).statusCode).toBe(401);
    expect((await call('POST', outsider, '/api/policies', confirmHigh())).statusCode).toBe(404);
    expect((await call('POST', reader, '/api/policies', confirmHigh())).statusCode).toBe(403);
    const global = { ...confirmHigh(), scope_type: 'global', scope_id: undefined };
    expect((await call('POST', writer, '/api/policies', global)).statusCode).toBe(403);
    expect(await policyCount()).toBe(0);
  });

  it('a group policy needs write on the group: 404 to a member who cannot see it, 403 to one who only reads it', async () => {
    const group = await makeGroup(t, admin);
    const inGroup = await makeApplication(t, admin, { groupId: group.id });
    await grant(t, reader, inGroup.id, 'read'); // a readable application makes its group visible
    const body = { ...confirmHigh(), scope_type: 'group', scope_id: group.id };
    expect((await call('POST', outsider, '/api/policies', body)).statusCode).toBe(404);
    expect((await call('POST', reader, '/api/policies', body)).statusCode).toBe(403);
    await t.db
      .insertInto('permission_policies')
      .values({ user_id: writer.id, group_id: group.id, action: 'write' })
      .execute();
    const created = await call('POST', writer, '/api/policies', body);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ scope_type: 'group', scope_id: group.id, group_id: group.id });
    expect((await call('DELETE', writer, `/api/policies/${created.json().id}`)).statusCode).toBe(204);
  });

  it.each<[string, object, string]>([
    [
      'an unknown condition field',
      { conditions: [{ field: 'colour', op: 'eq', value: 'red' }] },
      '/conditions/0/field',
    ],
    ['an unknown op', { conditions: [{ field: 'title', op: 'like', value: 'x' }] }, '/conditions/0/op'],
    [
      'a pattern RE2 refuses',
      { conditions: [{ field: 'title', op: 'regex', value: '(?<=a)b' }] },
      '/conditions/0/value',
    ],
    [
      'an over-long pattern',
      { conditions: [{ field: 'title', op: 'regex', value: 'a'.repeat(513) }] },
      '/conditions/0/value',
    ],
    [
      'a severity that is none',
      { conditions: [{ field: 'severity', op: 'gte', value: 'huge' }] },
      '/conditions/0/value',
    ],
    [
      'a list op without a list',
      { conditions: [{ field: 'status', op: 'in', value: 'open' }] },
      '/conditions/0/value',
    ],
    [
      'gte on a text field',
      { conditions: [{ field: 'title', op: 'gte', value: 'a' }] },
      '/conditions/0/value',
    ],
    ['an unknown action type', { actions: [{ type: 'delete_everything' }] }, '/actions/0/type'],
    [
      'a status target that is none',
      { actions: [{ type: 'change_status', target: 'gone' }] },
      '/actions/0/target',
    ],
    [
      'an assignee that does not exist',
      { actions: [{ type: 'assign_to', target: 999999 }] },
      '/actions/0/target',
    ],
    ['no actions', { actions: [] }, '/actions'],
    ...[
      'file:///etc/passwd',
      'gopher://127.0.0.1:6379/_INFO',
      'dict://127.0.0.1:11211/stat',
      'javascript:alert(1)',
      'not a url',
      '/relative/hook',
    ].map((target): [string, object, string] => [
      `a webhook target ${target}`,
      { actions: [{ type: 'webhook', target }] },
      '/actions/0/target',
    ]),
    ['a webhook target that is a number', { actions: [{ type: 'webhook', target: 7 }] }, '/actions/0/target'],
    ['an unknown event', { event_types: ['finding.deleted'] }, '/event_types/0'],
    ['a missing scope id', { scope_id: undefined }, '/scope_id'],
    ['an unknown body field', { owner: 'me' }, '/owner'],
  ])('400 for %s, naming it; nothing stored', async (_name, change, path) => {
    const response = await call('POST', writer, '/api/policies', { ...confirmHigh(), ...change });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(JSON.stringify(errorPaths(response.json()))).toContain(path.slice(1));
    expect(await policyCount()).toBe(0);
  });

  it('accepts a webhook action without a target, or with an http(s) one, as a webhook accepts its url', async () => {
    for (const [target, stored] of [
      [undefined, null],
      [null, null],
      ['https://hooks.example.com/scanhub', 'https://hooks.example.com/scanhub'],
      ['HTTP://Example.com', 'http://example.com/'],
    ] as const) {
      const response = await call('POST', writer, '/api/policies', {
        ...confirmHigh(),
        actions: [{ type: 'webhook', ...(target !== undefined ? { target } : {}) }],
      });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json().actions).toEqual([{ type: 'webhook', target: stored }]);
      await call('DELETE', writer, `/api/policies/${response.json().id}`);
    }
  });

  it('400 for an assignee who cannot read the application; nothing stored', async () => {
    const response = await call('POST', writer, '/api/policies', {
      ...confirmHigh(),
      actions: [{ type: 'assign_to', target: outsider.id }],
    });
    expect(response.statusCode).toBe(400);
    expect(errorPaths(response.json())).toEqual(['/actions/0/target']);
    expect(await policyCount()).toBe(0);
  });

  it('201 in the current shape, stored and shown normalized', async () => {
    const response = await call('POST', writer, '/api/policies', {
      ...confirmHigh(),
      conditions: [
        { field: 'severity', op: 'gte', value: 'HIGH' },
        { field: 'cwe_id', op: 'in', value: ['CWE-79', 89] },
      ],
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({
      name: 'confirm high',
      scope_type: 'application',
      scope_id: app.id,
      application_id: app.id,
      event_types: ['finding.created'],
      conditions: [
        { field: 'severity', op: 'gte', value: 'high' },
        { field: 'cwe_id', op: 'in', value: [79, 89] },
      ],
      actions: [{ type: 'change_status', target: 'confirmed' }],
      enabled: true,
    });
    await call('DELETE', writer, `/api/policies/${response.json().id}`);
  });

  it('201 in the earlier shape (trigger, conditions by field, assign and comment with params), stored in the current one', async () => {
    const response = await call('POST', writer, '/api/policies', {
      name: 'legacy',
      application_id: app.id,
      trigger: 'finding.updated',
      conditions: { severity: ['critical', 'high'], scanner_type: ['sarif'] },
      actions: [
        { type: 'assign', params: { user_id: writer.id } },
        { type: 'comment', params: { text: 'Look at this' } },
      ],
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({
      scope_type: 'application',
      scope_id: app.id,
      event_types: ['finding.updated'],
      conditions: [
        { field: 'severity', op: 'in', value: ['critical', 'high'] },
        { field: 'scanner_type', op: 'in', value: ['sarif'] },
      ],
      actions: [
        { type: 'assign_to', target: writer.id },
        { type: 'comment', target: 'Look at this' },
      ],
    });
    await call('DELETE', writer, `/api/policies/${response.json().id}`);
  });
});

describe('reading, changing and deleting policies', () => {
  let appPolicy: number;
  let otherPolicy: number;
  let globalPolicy: number;
  let groupPolicy: number;
  beforeAll(async () => {
    appPolicy = (await call('POST', writer, '/api/policies', { ...confirmHigh(), enabled: false })).json().id;
    otherPolicy = (
      await call('POST', admin, '/api/policies', { ...confirmHigh(), scope_id: otherApp.id, enabled: false })
    ).json().id;
    globalPolicy = (
      await call('POST', admin, '/api/policies', {
        ...confirmHigh(),
        scope_type: 'global',
        scope_id: undefined,
        enabled: false,
      })
    ).json().id;
    groupPolicy = (
      await call('POST', admin, '/api/policies', {
        ...confirmHigh(),
        scope_type: 'group',
        scope_id: undefined,
        group_id: app.group_id,
        enabled: false,
      })
    ).json().id;
  });

  it('a member lists the global policies and those on what they can read', async () => {
    const ids = (await call('GET', reader, '/api/policies'))
      .json()
      .map((policy: { id: number }) => policy.id);
    expect(ids).toEqual(expect.arrayContaining([appPolicy, globalPolicy]));
    expect(ids).not.toContain(otherPolicy);
    const all = (await call('GET', admin, '/api/policies')).json().map((policy: { id: number }) => policy.id);
    expect(all).toEqual(expect.arrayContaining([appPolicy, otherPolicy, globalPolicy, groupPolicy]));
    expect((await call('GET', reader, `/api/policies/${otherPolicy}`)).statusCode).toBe(404);
    expect((await call('GET', reader, `/api/policies/${appPolicy}`)).statusCode).toBe(200);
    expect((await call('GET', reader, '/api/policies/abc')).statusCode).toBe(404);
  });

  it('PATCH: reader 403, member on a global policy 403, writer 200; a bad definition changes nothing', async () => {
    expect((await call('PATCH', reader, `/api/policies/${appPolicy}`, { name: 'x' })).statusCode).toBe(403);
    expect((await call('PATCH', writer, `/api/policies/${globalPolicy}`, { name: 'x' })).statusCode).toBe(
      403,
    );
    const bad = await call('PATCH', writer, `/api/policies/${appPolicy}`, {
      actions: [{ type: 'change_status', target: 'nope' }],
    });
    expect(bad.statusCode).toBe(400);
    expect((await call('GET', writer, `/api/policies/${appPolicy}`)).json().actions).toEqual([
      { type: 'change_status', target: 'confirmed' },
    ]);
    const renamed = await call('PATCH', writer, `/api/policies/${appPolicy}`, {
      name: 'renamed',
      conditions: [{ field: 'title', op: 'regex', value: '^SQL' }],
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({
      name: 'renamed',
      enabled: false,
      event_types: ['finding.created'],
      conditions: [{ field: 'title', op: 'regex', value: '^SQL' }],
    });
  });

  it('PUT replaces the whole policy; moving it to an application the caller cannot write is refused', async () => {
    const moved = await call('PUT', writer, `/api/policies/${appPolicy}`, {
      ...confirmHigh(),
      scope_id: otherApp.id,
    });
    expect(moved.statusCode).toBe(404);
    const replaced = await call('PUT', writer, `/api/policies/${appPolicy}`, {
      ...confirmHigh(),
      name: 'replaced',
      enabled: false,
      actions: [{ type: 'comment' }],
    });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toMatchObject({ name: 'replaced', actions: [{ type: 'comment', target: null }] });
  });

  it('DELETE: reader 403, writer 204, then 404', async () => {
    expect((await call('DELETE', reader, `/api/policies/${appPolicy}`)).statusCode).toBe(403);
    expect((await call('DELETE', writer, `/api/policies/${appPolicy}`)).statusCode).toBe(204);
    expect((await call('GET', writer, `/api/policies/${appPolicy}`)).statusCode).toBe(404);
    for (const id of [otherPolicy, globalPolicy, groupPolicy])
      await call('DELETE', admin, `/api/policies/${id}`);
    expect(await policyCount()).toBe(0);
  });
});
