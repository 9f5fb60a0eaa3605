import type { InjectOptions, LightMyRequestResponse, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.ts';
import { makeApplication, makeUser, type TestUser, TEST_AUDIT } from '../support/factories.ts';
import {
  endpointsOf,
  expectRefused,
  fillUrl,
  isScimUrl,
  label,
  pathParams,
  snapshotDatabase,
  type Endpoint,
  ruleOf,
} from '../support/route-walk.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Issue 10, "how to prove it": every route of the app (read from the router, as route-guard does, so
 * a new route is walked without editing this file) gets hostile input — NUL bytes, wrong types per
 * body field, oversize strings, unknown fields, 10,000-level nesting, prototype-pollution keys, bad
 * ids, bad content types — as an admin, so authorization cannot hide a validation gap. Every answer
 * must be a 4xx problem+json and the database must be exactly as before. The only table here is one
 * valid sample body per route, which is never sent as is: each case breaks one thing in it. Multipart
 * bodies (ingest) belong to the ingest suites; their path and query parameters are walked here.
 */

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  maxLength?: number;
  required?: string[];
}

const PASSWORD = 'correct horse battery staple';
/** Each walk sends hundreds of requests over every route (more with each route added): not 30 s. */
const WALK_TIMEOUT = 120_000;
const collected: RouteOptions[] = [];
let t: TestApp;
let admin: TestUser;
let member: TestUser;
/** The rows the walk addresses; ingest fills `scan` and `finding`. */
let ids: {
  application: number;
  group: number;
  version: number;
  member: number;
  team: number;
  apiKey: number;
  scannerType: number;
  scan: number;
  finding: number;
  webhook: number;
  delivery: number;
  policy: number;
  slaConfiguration: number;
  licensePolicy: number;
  acceptance: number;
  scimGroup: number;
  scimToken: number;
};
/** The SCIM token the walk presents on SCIM's routes. */
let scimToken: string;
const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const SCIM_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const SCIM_PATCH = {
  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
  Operations: [{ op: 'replace', path: 'displayName', value: 'x' }],
};
let application: { id: number; slug: string; group_id: number; api_token: string };

const schemaOf = (endpoint: Endpoint) =>
  (endpoint.route.schema ?? {}) as { body?: JsonSchema; querystring?: JsonSchema; consumes?: string[] };
const isMultipart = (endpoint: Endpoint): boolean =>
  schemaOf(endpoint).consumes?.includes('multipart/form-data') ?? false;
/** HEAD answers with GET's handler and no body; GET is walked. */
const endpoints = (): Endpoint[] => endpointsOf(collected).filter(({ method }) => method !== 'HEAD');
const bodyEndpoints = (): Endpoint[] =>
  endpoints().filter((endpoint) => schemaOf(endpoint).body && !isMultipart(endpoint));

const policySample = () => ({
  name: 'hostile policy',
  scope_type: 'application',
  scope_id: ids.application,
  event_types: ['finding.created'],
  conditions: [{ field: 'title', op: 'regex', value: '^x' }],
  actions: [{ type: 'comment', target: 'hostile' }],
  enabled: false,
});

/** One valid body per JSON-body route (checked against its schema below; never sent unchanged). */
function sampleBody(endpoint: Endpoint): Record<string, unknown> | undefined {
  const samples: Record<string, Record<string, unknown>> = {
    'POST /api/auth/login': { email: 'nobody@example.test', password: 'a password' },
    'POST /api/auth/password': { current_password: PASSWORD, new_password: 'a new long passphrase' },
    'POST /api/users': { email: 'hostile@example.test', password: 'a long enough password', name: 'Hostile' },
    'PATCH /api/users/:id': { name: 'Hostile' },
    'POST /api/users/:id/password': { new_password: 'a long enough password' },
    'POST /api/api-keys': { name: 'hostile key', expires_at: '2099-01-01T00:00:00Z' },
    'POST /api/teams': { name: 'hostile team' },
    'POST /api/teams/:id/members': { user_id: ids.member, role: 'member' },
    'POST /api/groups': { name: 'hostile', path: 'hostile' },
    'POST /api/applications': { name: 'hostile', slug: 'hostile', group_id: ids.group },
    'PUT /api/applications/:id': { name: 'hostile rename' },
    'POST /api/applications/:id/versions': { name: 'hostile-version' },
    'PATCH /api/applications/:id/versions/:versionId': { name: 'hostile-renamed' },
    'POST /api/applications/:id/permissions': { subject: `user:${ids.member}`, action: 'read' },
    'DELETE /api/applications/:id/permissions': { subject: `user:${ids.member}`, action: 'read' },
    'POST /api/groups/:id/permissions': { subject: `user:${ids.member}`, action: 'read' },
    'DELETE /api/groups/:id/permissions': { subject: `user:${ids.member}`, action: 'read' },
    'POST /api/permissions/applications': {
      application_id: ids.application,
      user_id: ids.member,
      permission: 'read',
    },
    'POST /api/admin/permissions': { subject: `user:${ids.member}`, resource: '*', action: 'read' },
    'DELETE /api/admin/permissions': { subject: `user:${ids.member}`, resource: '*', action: 'read' },
    'PUT /api/admin/scanner-types/:id': { enabled: false },
    'PATCH /api/scanner-types/:id': { enabled: false },
    'PATCH /api/findings/:id/status': { status: 'confirmed' },
    'PATCH /api/findings/:id/review': { status: 'confirmed' },
    'PATCH /api/findings/:id/assign': { user_id: ids.member },
    'POST /api/findings/:id/comments': { content: 'hostile comment' },
    'PATCH /api/findings': { ids: [ids.finding], status: 'confirmed' },
    'POST /api/applications/:id/webhooks': {
      url: 'https://hooks.example.test/x',
      events: '*',
      secret: 'a secret',
    },
    'PATCH /api/applications/:id/webhooks/:webhookId': { url: 'https://hooks.example.test/y', active: false },
    'POST /api/policies': policySample(),
    'POST /api/policies/test': policySample(),
    'PUT /api/policies/:id': policySample(),
    'PATCH /api/policies/:id': { name: 'hostile policy', enabled: false },
    'POST /api/sla-configurations': { name: 'hostile sla', severities: { critical: { days: 7 } } },
    'PATCH /api/sla-configurations/:id': { name: 'hostile sla renamed', severities: { high: { days: 30 } } },
    'PUT /api/groups/:id/sla-configuration': { sla_configuration_id: null },
    'POST /api/license-policies': {
      name: 'hostile licence policy',
      mode: 'deny',
      licenses: ['GPL-3.0-only'],
    },
    'PATCH /api/license-policies/:id': {
      name: 'hostile licence policy renamed',
      licenses: ['AGPL-3.0-only'],
    },
    'PUT /api/applications/:id/sla-configuration': { sla_configuration_id: null },
    'POST /api/sso/group-mappings': { idp_group: 'hostile-group', grants_admin: false },
    'POST /api/acceptances': { application_id: ids.application, rule_id: 'H1', reason: 'wont_fix' },
    'POST /api/acceptances/:id/approve': { comment: 'hostile approval' },
    'POST /api/acceptances/:id/reject': { comment: 'hostile rejection' },
    'POST /api/acceptances/:id/extend': { expires_at: '2099-01-01T00:00:00Z' },
    'PUT /api/acceptance-settings': { four_eyes: false },
    'PUT /api/groups/:id/acceptance-settings': { four_eyes: false },
    'POST /api/admin/scim-tokens': { name: 'hostile token' },
    'POST /api/applications/:id/vex': {
      '@context': 'https://openvex.dev/ns/v0.2.0',
      '@id': 'https://hostile.example/vex',
      author: 'hostile',
      timestamp: '2024-01-01T00:00:00Z',
      version: 1,
      statements: [{ vulnerability: { name: 'CVE-2000-0001' }, status: 'under_investigation' }],
    },
    'PATCH /api/admin/enrichment/settings': { epss_percentile_threshold: 0.9 },
    'POST /scim/v2/Users': { schemas: [SCIM_USER], userName: 'hostile@example.test', active: true },
    'PUT /scim/v2/Users/:id': { schemas: [SCIM_USER], userName: 'hostile@example.test', active: true },
    'PATCH /scim/v2/Users/:id': SCIM_PATCH,
    'POST /scim/v2/Groups': { schemas: [SCIM_GROUP], displayName: 'hostile group', members: [] },
    'PUT /scim/v2/Groups/:id': { schemas: [SCIM_GROUP], displayName: 'hostile group', members: [] },
    'PATCH /scim/v2/Groups/:id': SCIM_PATCH,
    'POST /api/applications/:id/issue-tracker': {
      provider: 'github',
      token: 'ghp_hostile',
      repository: 'acme/hostile',
      auto_create: false,
    },
  };
  return samples[label(endpoint)];
}

/** Real rows for every path parameter, so that only the hostile part can be refused. */
function pathValues(url: string): Record<string, string> {
  const byPrefix: [RegExp, number][] = [
    [/^\/api\/applications\/:id/, ids.application],
    [/^\/api\/findings\/:id/, ids.finding],
    [/^\/api\/scans\/:id/, ids.scan],
    [/^\/api\/users\/:id/, ids.member],
    [/^\/api\/teams\/:id/, ids.team],
    [/^\/api\/groups\/:id/, ids.group],
    [/^\/api\/api-keys\/:id/, ids.apiKey],
    [/^\/api\/(admin\/)?scanner-types\/:id/, ids.scannerType],
    [/^\/api\/policies\/:id/, ids.policy],
    [/^\/api\/sla-configurations\/:id/, ids.slaConfiguration],
    [/^\/api\/license-policies\/:id/, ids.licensePolicy],
    [/^\/api\/acceptances\/:id/, ids.acceptance],
    [/^\/api\/sso\/users\/:id/, ids.member],
    // Single sign-on is off in this app: every mapping route answers 404 whatever the id.
    [/^\/api\/sso\/group-mappings\/:id/, 1],
    [/^\/api\/admin\/scim-tokens\/:id/, ids.scimToken],
    [/^\/scim\/v2\/Users\/:id/, ids.member],
    [/^\/scim\/v2\/Groups\/:id/, ids.scimGroup],
  ];
  const id = byPrefix.find(([pattern]) => pattern.test(url))?.[1];
  const values: Record<string, string> = {
    versionId: String(ids.version),
    group_id: String(ids.group),
    slug: application.slug,
    userId: String(ids.member),
    webhookId: String(ids.webhook),
    deliveryId: String(ids.delivery),
    provider: 'github',
    trackerId: '1',
    '*': 'index.html',
  };
  if (id !== undefined) values.id = String(id);
  if (url.startsWith('/scim/v2/ResourceTypes/')) values.id = 'User';
  if (url.startsWith('/scim/v2/Schemas/')) values.id = encodeURIComponent(SCIM_USER);
  return values;
}

function headersFor(endpoint: Endpoint): Record<string, string> {
  const authentication = ruleOf(endpoint.route).authentication;
  if (authentication === 'scim_token') return { authorization: `Bearer ${scimToken}` };
  return authentication === 'application_token' ? { 'x-api-token': application.api_token } : admin.headers;
}

function send(
  endpoint: Endpoint,
  options: {
    path?: Record<string, string>;
    query?: string;
    body?: unknown;
    raw?: string;
    contentType?: string;
  } = {},
): Promise<LightMyRequestResponse> {
  const url = fillUrl(endpoint.url, { ...pathValues(endpoint.url), ...options.path });
  const headers: Record<string, string> = { ...headersFor(endpoint) };
  const request: InjectOptions = { method: endpoint.method as 'GET', headers };
  request.url = options.query ? `${url}?${options.query}` : url;
  if (options.raw !== undefined) {
    headers['content-type'] = options.contentType ?? 'application/json';
    request.payload = options.raw;
  } else if (options.body !== undefined) {
    if (options.contentType) {
      headers['content-type'] = options.contentType;
      request.payload = JSON.stringify(options.body);
    } else {
      request.payload = options.body as object;
    }
  }
  return t.app.inject(request);
}

/** Runs `cases` on every endpoint of `list`; the database after each endpoint equals before it. */
async function walk(list: Endpoint[], cases: (endpoint: Endpoint) => Promise<number>): Promise<number> {
  let sent = 0;
  let before = await snapshotDatabase(t);
  for (const endpoint of list) {
    sent += await cases(endpoint);
    const after = await snapshotDatabase(t);
    expect(after, `${label(endpoint)} changed the database`).toEqual(before);
    before = after;
  }
  return sent;
}

/**
 * The paths of the issues a 400 names: problem+json lists them in `errors`; SCIM's error shape has
 * no list, so its detail names them (`body.userName: must …; …`).
 */
function issuePathsOf(response: LightMyRequestResponse): string[] {
  const body = response.json() as { errors?: { path: string }[]; detail?: string };
  if (body.errors) return body.errors.map((issue) => issue.path);
  return [...(body.detail ?? '').matchAll(/(?:^|; )((?:body|querystring|params)\S*?): /g)].map(
    (match) => match[1] ?? '',
  );
}

const stringBranches = (schema: JsonSchema): JsonSchema[] =>
  schema.anyOf ? schema.anyOf.flatMap(stringBranches) : schema.type === 'string' ? [schema] : [];

/** The values of other JSON types than the field accepts (in the context of the sample body). */
const WRONG_TYPES: unknown[] = [42, 1.5, '42', 'true', true, false, null, 0, [false], ['5'], {}, ''];

beforeAll(async () => {
  t = await createTestApp({}, { onRoute: (route) => collected.push(route) });
  admin = await makeUser(t, { role: 'admin' });
  member = await makeUser(t);
  const created = await makeApplication(t, admin);
  application = created as typeof application;
  const version = await t.db
    .insertInto('application_versions')
    .values({ application_id: created.id, name: 'hostile' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const team = await t.app.inject({
    method: 'POST',
    url: '/api/teams',
    headers: admin.headers,
    payload: { name: 'hostile walk team' },
  });
  // Keys are made by a signed-in session (the route refuses API keys).
  const key = await createApiKey(
    t.db,
    { ...admin.principal, via: 'session' },
    { name: 'walked key' },
    TEST_AUDIT,
  );
  const scannerType = await t.db
    .selectFrom('scanner_types')
    .select('id')
    .orderBy('id')
    .executeTakeFirstOrThrow();
  ids = {
    application: created.id,
    group: created.group_id,
    version: version.id,
    member: member.id,
    team: team.json().id,
    apiKey: key.id,
    scannerType: scannerType.id,
    scan: 0,
    finding: 0,
    webhook: 0,
    delivery: 0,
    policy: 0,
    slaConfiguration: 0,
    licensePolicy: 0,
    acceptance: 0,
    scimGroup: 0,
    scimToken: 0,
  };
  const madeToken = await t.app.inject({
    method: 'POST',
    url: '/api/admin/scim-tokens',
    headers: admin.headers,
    payload: { name: 'walk' },
  });
  scimToken = madeToken.json().token;
  ids.scimToken = madeToken.json().id;
  const scimGroup = await t.app.inject({
    method: 'POST',
    url: '/scim/v2/Groups',
    headers: { authorization: `Bearer ${scimToken}` },
    payload: { schemas: [SCIM_GROUP], displayName: 'walked group' },
  });
  expect(scimGroup.statusCode, scimGroup.body).toBe(201);
  ids.scimGroup = Number(scimGroup.json().id);
  const sarif = JSON.stringify({
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'hostile', rules: [{ id: 'H1' }] } },
        results: [{ ruleId: 'H1', level: 'error', message: { text: 'hostile finding' } }],
      },
    ],
  });
  const boundary = 'hostile-boundary';
  const upload = await t.app.inject({
    method: 'POST',
    url: `/api/applications/${created.id}/ingest`,
    headers: { ...admin.headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: [
      `--${boundary}`,
      'Content-Disposition: form-data; name="file"; filename="hostile.sarif"',
      'Content-Type: application/json',
      '',
      sarif,
      `--${boundary}--`,
      '',
    ].join('\r\n'),
  });
  expect(upload.statusCode, upload.body).toBe(201);
  ids.scan = upload.json().scan.id;
  const finding = await t.db
    .selectFrom('findings')
    .select('id')
    .where('application_id', '=', created.id)
    .executeTakeFirstOrThrow();
  ids.finding = finding.id;
  const webhook = await t.app.inject({
    method: 'POST',
    url: `/api/applications/${created.id}/webhooks`,
    headers: admin.headers,
    payload: { url: 'https://hooks.example.test/walk', events: '*', active: false },
  });
  ids.webhook = webhook.json().id;
  const ping = await t.app.inject({
    method: 'POST',
    url: `/api/applications/${created.id}/webhooks/${ids.webhook}/ping`,
    headers: admin.headers,
  });
  ids.delivery = ping.json().id;
  // The ping's delivery settles in the background (the webhook is inactive); let it, before the walk
  // compares snapshots, or it lands in the middle of one (seen on PostgreSQL).
  await t.jobs.drained('deliver-webhook');
  const policy = await t.app.inject({
    method: 'POST',
    url: '/api/policies',
    headers: admin.headers,
    payload: policySample(),
  });
  expect(policy.statusCode, policy.body).toBe(201);
  ids.policy = policy.json().id;
  const slaConfiguration = await t.app.inject({
    method: 'POST',
    url: '/api/sla-configurations',
    headers: admin.headers,
    payload: { name: 'walked sla' },
  });
  expect(slaConfiguration.statusCode, slaConfiguration.body).toBe(201);
  ids.slaConfiguration = slaConfiguration.json().id;
  const licensePolicy = await t.app.inject({
    method: 'POST',
    url: '/api/license-policies',
    headers: admin.headers,
    payload: { name: 'walked licence policy', mode: 'allow', licenses: ['MIT'], enabled: false },
  });
  expect(licensePolicy.statusCode, licensePolicy.body).toBe(201);
  ids.licensePolicy = licensePolicy.json().id;
  const acceptance = await t.app.inject({
    method: 'POST',
    url: '/api/acceptances',
    headers: admin.headers,
    payload: { application_id: created.id, rule_id: 'no-such-rule', reason: 'wont_fix' },
  });
  expect(acceptance.statusCode, acceptance.body).toBe(201);
  ids.acceptance = acceptance.json().id;
}, 120_000);
afterAll(() => t.close());

describe('the walked routes', () => {
  it('are many, and every JSON-body route has a sample that its schema accepts', () => {
    expect(endpoints().length).toBeGreaterThan(40);
    expect(bodyEndpoints().length).toBeGreaterThan(20);
    for (const endpoint of bodyEndpoints()) {
      const sample = sampleBody(endpoint);
      expect(sample, `${label(endpoint)} needs a sample body`).toBeDefined();
      const body = schemaOf(endpoint).body as TSchema;
      expect(Value.Check(body, sample), `${label(endpoint)} sample is invalid`).toBe(true);
    }
  });

  it('declare closed, bounded body schemas: no unknown field, every string with a maxLength', () => {
    const problems: string[] = [];
    const inspect = (schema: JsonSchema, where: string): void => {
      if (schema.type === 'object' && schema.additionalProperties !== false)
        problems.push(`${where}: object without additionalProperties: false`);
      if (schema.type === 'string' && schema.enum === undefined && schema.maxLength === undefined)
        problems.push(`${where}: string without maxLength`);
      for (const [name, property] of Object.entries(schema.properties ?? {}))
        inspect(property, `${where}.${name}`);
      for (const branch of schema.anyOf ?? []) inspect(branch, where);
      if (schema.items) inspect(schema.items, `${where}[]`);
    };
    for (const endpoint of bodyEndpoints()) inspect(schemaOf(endpoint).body as JsonSchema, label(endpoint));
    expect(problems).toEqual([]);
  });
});

describe('hostile input on every route: a 4xx problem+json, and nothing changes', () => {
  it(
    'NUL bytes in each path parameter, the query string and each body string → 400',
    async () => {
      const sent = await walk(endpoints(), async (endpoint) => {
        let count = 0;
        for (const name of pathParams(endpoint.url)) {
          const response = await send(endpoint, { path: { [name]: 'a%00b' }, body: sampleBody(endpoint) });
          expectRefused(`${label(endpoint)} :${name}`, response, 400);
          count += 1;
        }
        const query = await send(endpoint, { query: 'search=x%00y', body: sampleBody(endpoint) });
        expectRefused(`${label(endpoint)} ?search=%00`, query, 400);
        count += 1;
        const sample = sampleBody(endpoint);
        if (!sample || isMultipart(endpoint)) return count;
        const properties = schemaOf(endpoint).body?.properties ?? {};
        for (const [field, schema] of Object.entries(properties)) {
          if (stringBranches(schema).length === 0) continue;
          const response = await send(endpoint, { body: { ...sample, [field]: 'a\u0000b' } });
          expectRefused(`${label(endpoint)} body.${field}`, response, 400);
          expect(issuePathsOf(response)[0]).toBe(`body.${field}`);
          count += 1;
        }
        const key = await send(endpoint, { raw: JSON.stringify({ ...sample, 'x\u0000': 1 }) });
        expectRefused(`${label(endpoint)} NUL in a key`, key, 400);
        return count + 1;
      });
      expect(sent).toBeGreaterThan(80);
    },
    WALK_TIMEOUT,
  );

  it(
    'a wrong JSON type in each body field → 400 validation_failed naming the field',
    async () => {
      const sent = await walk(bodyEndpoints(), async (endpoint) => {
        const sample = sampleBody(endpoint) ?? {};
        const body = schemaOf(endpoint).body as JsonSchema;
        let count = 0;
        for (const field of Object.keys(body.properties ?? {})) {
          for (const wrong of WRONG_TYPES) {
            const candidate = { ...sample, [field]: wrong };
            if (Value.Check(body as TSchema, candidate)) continue; // this value is of an accepted type
            const response = await send(endpoint, { body: candidate });
            const what = `${label(endpoint)} body.${field} = ${JSON.stringify(wrong)}`;
            expectRefused(what, response, 400);
            if (!isScimUrl(endpoint.url)) expect(response.json().code, what).toBe('validation_failed');
            const paths = issuePathsOf(response);
            expect(
              paths.some((path: string) => path.startsWith(`body.${field}`)),
              what,
            ).toBe(true);
            count += 1;
          }
        }
        return count;
      });
      expect(sent).toBeGreaterThan(200);
    },
    WALK_TIMEOUT,
  );

  it(
    'a string one character over its maxLength → 400; a body over the 1 MB limit → 413',
    async () => {
      await walk(bodyEndpoints(), async (endpoint) => {
        const sample = sampleBody(endpoint) ?? {};
        let count = 0;
        for (const [field, schema] of Object.entries(schemaOf(endpoint).body?.properties ?? {})) {
          const limits = stringBranches(schema).map((branch) => branch.maxLength ?? Infinity);
          if (limits.length === 0) continue;
          const oversize = 'a'.repeat(Math.max(...limits) + 1);
          const response = await send(endpoint, { body: { ...sample, [field]: oversize } });
          expectRefused(`${label(endpoint)} body.${field} oversize`, response, 400);
          count += 1;
        }
        const huge = await send(endpoint, { body: { ...sample, padding: 'a'.repeat(1_100_000) } });
        expectRefused(`${label(endpoint)} 1.1 MB body`, huge, 413);
        return count;
      });
    },
    WALK_TIMEOUT,
  );

  it(
    'unknown fields, prototype keys, 10,000-level nesting, malformed JSON, wrong content types → 4xx',
    async () => {
      const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
      const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
      await walk(bodyEndpoints(), async (endpoint) => {
        const sample = sampleBody(endpoint) ?? {};
        const json = JSON.stringify(sample);
        const firstField = Object.keys(schemaOf(endpoint).body?.properties ?? {})[0] ?? 'a';
        const name = label(endpoint);

        const unknown = await send(endpoint, { body: { ...sample, unexpected_field: 'x' } });
        expectRefused(`${name} unknown field`, unknown, 400);
        expect(issuePathsOf(unknown)).toContain('body.unexpected_field');
        const raw: [string, string][] = [
          ['__proto__', `{"__proto__":{"role":"admin","is_admin":true},${json.slice(1)}`],
          ['constructor.prototype', `{"constructor":{"prototype":{"role":"admin"}},${json.slice(1)}`],
          ['nested __proto__', json.replace(/}$/, `${json === '{}' ? '' : ','}"x":{"__proto__":{"a":1}}}`)],
          ['10k nested arrays as a field', `{"${firstField}":${deep(10_000)}}`],
          ['10k nested objects as a field', `{"${firstField}":${deepObject(10_000)}}`],
          ['10k nested arrays as the body', deep(10_000)],
          ['malformed JSON', json.slice(0, -1)],
          ['empty body', ''],
          ['a JSON string', '"just a string"'],
          ['null', 'null'],
        ];
        for (const [what, payload] of raw) {
          expectRefused(`${name} ${what}`, await send(endpoint, { raw: payload }));
        }
        for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
          const response = await send(endpoint, { body: sample, contentType });
          expectRefused(`${name} as ${contentType}`, response, 415);
        }
        expect(({} as Record<string, unknown>).role, 'Object.prototype polluted').toBeUndefined();
        return raw.length + 4;
      });
    },
    WALK_TIMEOUT,
  );

  it(
    'bad ids and hostile values in every path parameter → 4xx',
    async () => {
      const hostile = [
        '0',
        '-1',
        '2147483648',
        '99999999999999999999',
        '1.5',
        '1e3',
        'abc',
        "1'%20or%20'1'='1",
        '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
        '%F0%9F%92%A9',
        'a'.repeat(5_000),
      ];
      // The web UI's shell (`/*`) answers every page URL by design (client-side routing): no value of
      // its wildcard is refused. Its assets (`/assets/*`) are walked.
      const withParams = endpoints().filter(
        (endpoint) => pathParams(endpoint.url).length > 0 && endpoint.url !== '/*',
      );
      expect(withParams.length).toBeGreaterThan(20);
      await walk(withParams, async (endpoint) => {
        let count = 0;
        for (const name of pathParams(endpoint.url)) {
          for (const value of hostile) {
            const response = await send(endpoint, { path: { [name]: value }, body: sampleBody(endpoint) });
            expectRefused(`${label(endpoint)} :${name}=${value.slice(0, 40)}`, response);
            count += 1;
          }
        }
        return count;
      });
    },
    WALK_TIMEOUT,
  );

  it('query parameters: wrong types, values outside an enum and oversize strings → 400', async () => {
    const withQuery = endpoints().filter((endpoint) => schemaOf(endpoint).querystring?.properties);
    expect(withQuery.length).toBeGreaterThan(5);
    let sent = 0;
    await walk(withQuery, async (endpoint) => {
      for (const [name, schema] of Object.entries(schemaOf(endpoint).querystring?.properties ?? {})) {
        const values: string[] = [];
        if (schema.type === 'integer' || schema.type === 'number') values.push('not-a-number', '1.5');
        if (schema.type === 'boolean') values.push('maybe');
        if (schema.enum) values.push('not-one-of-them');
        const limit = schema.maxLength ?? stringBranches(schema)[0]?.maxLength;
        if (limit !== undefined) values.push('a'.repeat(limit + 1));
        for (const value of values) {
          const response = await send(endpoint, { query: `${name}=${encodeURIComponent(value)}` });
          expectRefused(`${label(endpoint)} ?${name}=${value.slice(0, 40)}`, response, 400);
          sent += 1;
        }
      }
      return 0;
    });
    expect(sent).toBeGreaterThan(10);
  });
});

describe("the issue's coercion cases: each is 400 and nothing changes", () => {
  it('versions, scanner types, applications, users, assignment and bulk', async () => {
    const cases: [string, string, unknown][] = [
      ['PATCH', `/api/applications/${ids.application}/versions/${ids.version}`, { name: 42 }],
      ['PATCH', `/api/applications/${ids.application}/versions/${ids.version}`, { is_default: 'true' }],
      ['PUT', `/api/admin/scanner-types/${ids.scannerType}`, { enabled: null }],
      ['PUT', `/api/admin/scanner-types/${ids.scannerType}`, { enabled: 'false' }],
      ['PUT', `/api/admin/scanner-types/${ids.scannerType}`, { enabled: 0 }],
      ['PUT', `/api/admin/scanner-types/${ids.scannerType}`, { enabled: [false] }],
      ['PUT', `/api/applications/${ids.application}`, { slug: 12345 }],
      ['PATCH', `/api/users/${ids.member}`, { disabled: 'true' }],
      ['PATCH', `/api/findings/${ids.finding}/assign`, { userId: true }],
      ['PATCH', '/api/findings', { ids: String(ids.finding), status: 'confirmed' }],
    ];
    const before = await snapshotDatabase(t);
    for (const [method, url, payload] of cases) {
      const response = await t.app.inject({
        method: method as 'PUT',
        url,
        headers: admin.headers,
        payload: payload as object,
      });
      expectRefused(`${method} ${url} ${JSON.stringify(payload)}`, response, 400);
      const field = Object.keys(payload as object)[0];
      expect(response.json().errors.map((issue: { path: string }) => issue.path)).toContain(`body.${field}`);
    }
    expect(await snapshotDatabase(t)).toEqual(before);
  });
});
