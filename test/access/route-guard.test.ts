import type { LightMyRequestResponse, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES, referenceOf, type ResourceKindName } from '../../src/access/resources.ts';
import { isRouteAccess } from '../../src/access/route-access.ts';
import { buildApp } from '../../src/app.ts';
import { SESSION_COOKIE } from '../../src/http/auth.ts';
import { expectScimError, isScimUrl, pathParams, ruleOf } from '../support/route-walk.ts';
import { grant, makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Walks every route the app registers (collected by an onRoute hook attached before the first
 * route exists, so a route added later is walked too) and proves who is turned away. The only
 * tables are the public routes, sample inputs and path values; a route that needs an entry and
 * has none fails the walk instead of being skipped.
 */

interface Endpoint {
  method: string;
  url: string;
  route: RouteOptions;
}

const collected: RouteOptions[] = [];
let t: TestApp;
let admin: TestUser;
let member: TestUser;
let outsider: TestUser;
let reader: TestUser;
let application: { id: number; slug: string; group_id: number; api_token: string };
let otherApplicationToken: string;
let versionId: number;
let findingId: number | undefined;
let scanId: number | undefined;
let webhookId: number;
let deliveryId: number;
let policyId: number;
/** An SLA configuration the walked application's group owns (its readers read it, its writers change it). */
let slaConfigurationId: number;
let licensePolicyId: number;
let acceptanceId: number;
let tokenHash: string;
let sessionCookie: string;

/** Routes anyone may call: the spec's and DESIGN §4's, nothing else. */
const PUBLIC_URLS = new Set([
  '/api/csrf-token',
  '/api/auth/login',
  '/healthz',
  '/readyz',
  '/api/openapi.json',
  '/metrics',
  // A tracker's webhook: no session or key, authenticated by the provider's signature or secret.
  '/api/integrations/:provider/webhook/:trackerId',
  // Sign-in through an OpenID provider (issue 48): the browser has no session yet.
  '/api/auth/oidc/settings',
  '/api/auth/oidc/login',
  '/api/auth/oidc/callback',
  '/api/auth/oidc/logout',
  // The browser UI's shell and assets (src/http/web-ui.ts); its data comes from the API.
  '/*',
  '/assets/*',
]);
const isPublic = (url: string): boolean => PUBLIC_URLS.has(url) || url.startsWith('/api/docs');
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Routes that act on one resource inside the walked application, as each route declares it
 * (`config.access` names the resource and the level it needs): an outsider gets 404 on each; a
 * reader gets 403 wherever the declared level is `write`, and 200 on reads. Every kind the one
 * access function resolves is walked (src/access/resources.ts).
 */
const WALKED_RESOURCES = new Set<string>(Object.keys(RESOURCES));
const resourceOf = (route: RouteOptions): string | undefined => {
  const rule = ruleOf(route);
  // Token-only routes (POST /api/ingest) name their application by the token, not the path.
  if (rule.authentication === 'application_token') return undefined;
  return rule.resource && WALKED_RESOURCES.has(rule.resource) ? rule.resource : undefined;
};
const scopeOf = (url: string): string | undefined => {
  const route = collected.find((candidate) => candidate.url === url);
  return route && resourceOf(route);
};

/** A policy on the walked application (scope write needed to change it, read to see it). */
const POLICY_BODY = () => ({
  name: 'guard policy',
  scope_type: 'application',
  scope_id: application.id,
  event_types: ['finding.created'],
  conditions: [{ field: 'severity', op: 'gte', value: 'critical' }],
  actions: [{ type: 'change_status', target: 'confirmed' }],
  enabled: false,
});

/** Path values: real rows of the walked application; other routes get a fixed id. */
function pathValue(url: string, name: string): string | undefined {
  const scope = scopeOf(url);
  if (name === 'id') {
    if (scope === 'finding') return findingId === undefined ? undefined : String(findingId);
    if (scope === 'scan') return scanId === undefined ? undefined : String(scanId);
    if (scope === 'group') return String(application.group_id);
    if (scope === 'policy') return String(policyId);
    if (scope === 'sla_configuration') return String(slaConfigurationId);
    if (scope === 'license_policy') return String(licensePolicyId);
    if (scope === 'acceptance') return String(acceptanceId);
    if (scope !== undefined) return String(application.id);
  }
  const values: Record<string, string> = {
    versionId: String(versionId),
    group_id: String(application.group_id),
    slug: application.slug,
    userId: String(reader.id),
    webhookId: String(webhookId),
    deliveryId: String(deliveryId),
  };
  return values[name];
}

function fillPath(url: string): string {
  const scoped = scopeOf(url) !== undefined;
  return url
    .replace(/:([A-Za-z_]+)/g, (_match, name: string) => {
      const value = pathValue(url, name);
      if (value !== undefined) return value;
      if (scoped) throw new Error(`route-guard: no value for :${name} in ${url}; add one to pathValue`);
      return '1';
    })
    .replace(/\*$/, 'index.html');
}

/**
 * A valid body or query for each scoped route whose schema needs one, so that validation (400)
 * cannot answer before access control does.
 */
function sampleInput(endpoint: Endpoint): { payload?: object; query?: Record<string, string> } | undefined {
  const samples: Record<string, { payload?: object; query?: Record<string, string> }> = {
    'PUT /api/applications/:id': { payload: { name: 'guard rename' } },
    'POST /api/applications/:id/versions': { payload: { name: 'guard-version' } },
    'PATCH /api/applications/:id/versions/:versionId': { payload: { name: 'guard-renamed' } },
    'GET /api/applications/:id/versions/compare': { query: { from: 'default', to: 'guarded' } },
    'GET /api/applications/:id/versions/:versionId/sbom': { query: { format: 'cyclonedx' } },
    'HEAD /api/applications/:id/versions/:versionId/sbom': { query: { format: 'cyclonedx' } },
    'GET /api/applications/:id/versions/:versionId/vex': { query: { format: 'cyclonedx' } },
    'HEAD /api/applications/:id/versions/:versionId/vex': { query: { format: 'cyclonedx' } },
    'POST /api/applications/:id/vex': {
      payload: {
        '@context': 'https://openvex.dev/ns/v0.2.0',
        '@id': 'https://guard.example/vex',
        author: 'guard',
        timestamp: '2024-01-01T00:00:00Z',
        version: 1,
        statements: [{ vulnerability: { name: 'CVE-2000-0001' }, status: 'fixed' }],
      },
    },
    'GET /api/components': { query: { name: 'guard-component' } },
    'HEAD /api/components': { query: { name: 'guard-component' } },
    'POST /api/applications/:id/permissions': { payload: { subject: `user:${outsider.id}`, action: 'read' } },
    'DELETE /api/applications/:id/permissions': { payload: { subject: `user:${reader.id}`, action: 'read' } },
    'POST /api/groups/:id/permissions': { payload: { subject: `user:${outsider.id}`, action: 'read' } },
    'DELETE /api/groups/:id/permissions': { payload: { subject: `user:${reader.id}`, action: 'read' } },
    'PATCH /api/findings/:id/status': { payload: { status: 'confirmed' } },
    'PATCH /api/findings/:id/review': { payload: { status: 'confirmed' } },
    'PATCH /api/findings/:id/assign': { payload: { userId: reader.id } },
    'POST /api/findings/:id/comments': { payload: { content: 'guard comment' } },
    'POST /api/applications/:id/webhooks': { payload: { url: 'https://hooks.example.test/g', events: '*' } },
    'PATCH /api/applications/:id/webhooks/:webhookId': { payload: { active: true } },
    'PUT /api/policies/:id': { payload: POLICY_BODY() },
    'POST /api/permissions/applications': {
      payload: { user_id: outsider.id, application_id: application.id, permission: 'read' },
    },
    'PATCH /api/policies/:id': { payload: { enabled: false } },
    'PATCH /api/sla-configurations/:id': { payload: { name: 'guard sla renamed' } },
    'PUT /api/groups/:id/sla-configuration': { payload: { sla_configuration_id: null } },
    'PATCH /api/license-policies/:id': { payload: { name: 'guard licence policy renamed' } },
    'PUT /api/applications/:id/sla-configuration': { payload: { sla_configuration_id: null } },
    'POST /api/acceptances/:id/approve': { payload: {} },
    'POST /api/acceptances/:id/reject': { payload: {} },
    'POST /api/acceptances/:id/extend': { payload: { expires_at: '2099-01-01' } },
    'PUT /api/groups/:id/acceptance-settings': { payload: { four_eyes: true } },
    'POST /api/applications/:id/issue-tracker': {
      payload: { provider: 'github', token: 'ghp_guard', repository: 'acme/guard', auto_create: false },
    },
  };
  const method = endpoint.method === 'HEAD' ? 'GET' : endpoint.method; // HEAD shares GET's schema
  return samples[`${method} ${endpoint.url}`];
}

/** The path parameters (any value) and sample body a route's request carries. */
function requestOf(endpoint: Endpoint): { params: Record<string, string>; body: unknown } {
  const params = Object.fromEntries(pathParams(endpoint.url).map((name) => [name, '1']));
  return { params, body: sampleInput(endpoint)?.payload };
}

/** What a 404 of the route's resource names: the record, or the application it is reached through. */
function whatOf(endpoint: Endpoint): string {
  const named = referenceOf(ruleOf(endpoint.route).resource as ResourceKindName, requestOf(endpoint));
  if (!named) throw new Error(`${label(endpoint)} names no resource`);
  const spec: { what: string; scopeWhat?: string } = RESOURCES[named.kind];
  return spec.scopeWhat ?? spec.what;
}

function needsInput(route: RouteOptions): boolean {
  const schema = route.schema as { body?: unknown; querystring?: { required?: string[] } } | undefined;
  return Boolean(schema?.body) || (schema?.querystring?.required?.length ?? 0) > 0;
}

function endpoints(): Endpoint[] {
  return collected.flatMap((route) =>
    (Array.isArray(route.method) ? route.method : [route.method]).map((method) => ({
      method,
      url: route.url,
      route,
    })),
  );
}

const scopedEndpoints = (name?: string): Endpoint[] =>
  endpoints().filter(({ route }) => (name ? resourceOf(route) === name : resourceOf(route) !== undefined));
const needsWrite = (endpoint: Endpoint): boolean => ruleOf(endpoint.route).level === 'write';

function inject(endpoint: Endpoint, headers: Record<string, string>) {
  const input = sampleInput(endpoint);
  return t.app.inject({
    method: endpoint.method as 'GET',
    url: fillPath(endpoint.url),
    headers,
    ...(input?.payload ? { payload: input.payload } : {}),
    ...(input?.query ? { query: input.query } : {}),
  });
}

const label = (endpoint: Endpoint): string => `${endpoint.method} ${endpoint.url}`;

/** problem+json with a `code`; HEAD responses carry only the header. */
function expectProblem(
  endpoint: Endpoint,
  response: LightMyRequestResponse,
  status: number,
  code: string,
): void {
  expect(response.statusCode, label(endpoint)).toBe(status);
  if (isScimUrl(endpoint.url)) {
    expectScimError(label(endpoint), response, status);
    return;
  }
  expect(response.headers['content-type'], label(endpoint)).toContain('application/problem+json');
  if (endpoint.method === 'HEAD') return;
  expect(response.json(), label(endpoint)).toMatchObject({ status, code });
}

const SARIF = JSON.stringify({
  version: '2.1.0',
  runs: [
    {
      tool: { driver: { name: 'guard', rules: [{ id: 'G1' }] } },
      results: [
        {
          ruleId: 'G1',
          level: 'error',
          message: { text: 'guarded finding' },
          locations: [
            { physicalLocation: { artifactLocation: { uri: 'src/a.js' }, region: { startLine: 3 } } },
          ],
        },
      ],
    },
  ],
});

/** One scan with one finding in the walked application, through the public ingest route. */
async function ingestOneFinding(): Promise<void> {
  const boundary = 'route-guard-boundary';
  const payload = [
    `--${boundary}`,
    'Content-Disposition: form-data; name="file"; filename="guard.sarif"',
    'Content-Type: application/json',
    '',
    SARIF,
    `--${boundary}--`,
    '',
  ].join('\r\n');
  const response = await t.app.inject({
    method: 'POST',
    url: `/api/applications/${application.id}/ingest`,
    headers: { ...admin.headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload,
  });
  if (response.statusCode !== 201) return;
  scanId = response.json().scan?.id;
  const findings = await t.app.inject({
    url: `/api/findings?applicationId=${application.id}`,
    headers: admin.headers,
  });
  findingId = findings.json().findings?.[0]?.id;
}

beforeAll(async () => {
  t = await createTestApp({}, { onRoute: (route) => collected.push(route) });
  admin = await makeUser(t, { role: 'admin' });
  member = await makeUser(t);
  outsider = await makeUser(t);
  reader = await makeUser(t);
  application = await makeApplication(t, admin);
  otherApplicationToken = (await makeApplication(t, admin)).api_token;
  const row = await t.db
    .selectFrom('applications')
    .select('api_token_hash')
    .where('id', '=', application.id)
    .executeTakeFirstOrThrow();
  tokenHash = row.api_token_hash;
  const version = await t.db
    .insertInto('application_versions')
    .values({ application_id: application.id, name: 'guarded' })
    .returning('id')
    .executeTakeFirstOrThrow();
  versionId = version.id;
  await ingestOneFinding();
  await grant(t, reader, application.id, 'read');
  const webhook = await t.app.inject({
    method: 'POST',
    url: `/api/applications/${application.id}/webhooks`,
    headers: admin.headers,
    payload: { url: 'https://hooks.example.test/guard', events: '*', active: false },
  });
  webhookId = webhook.json().id;
  deliveryId = (
    await t.app.inject({
      method: 'POST',
      url: `/api/applications/${application.id}/webhooks/${webhookId}/ping`,
      headers: admin.headers,
    })
  ).json().id;
  policyId = (
    await t.app.inject({
      method: 'POST',
      url: '/api/policies',
      headers: admin.headers,
      payload: POLICY_BODY(),
    })
  ).json().id;
  const slaConfiguration = await t.app.inject({
    method: 'POST',
    url: '/api/sla-configurations',
    headers: admin.headers,
    payload: { name: 'guard sla', owner_group_id: application.group_id },
  });
  expect(slaConfiguration.statusCode, slaConfiguration.body).toBe(201);
  slaConfigurationId = slaConfiguration.json().id;
  const licensePolicy = await t.app.inject({
    method: 'POST',
    url: '/api/license-policies',
    headers: admin.headers,
    payload: {
      name: 'guard licence policy',
      owner_group_id: application.group_id,
      mode: 'deny',
      licenses: ['GPL-3.0-only'],
      enabled: false,
    },
  });
  expect(licensePolicy.statusCode, licensePolicy.body).toBe(201);
  licensePolicyId = licensePolicy.json().id;
  // A pending acceptance (wont_fix: no expiry needed) over a rule of the walked application.
  acceptanceId = (
    await t.app.inject({
      method: 'POST',
      url: '/api/acceptances',
      headers: admin.headers,
      payload: { application_id: application.id, rule_id: 'no-such-rule', reason: 'wont_fix' },
    })
  ).json().id;
  // A tracker, so its reads answer 200; nothing is filed automatically (no provider is reachable).
  const tracker = await t.app.inject({
    method: 'POST',
    url: `/api/applications/${application.id}/issue-tracker`,
    headers: admin.headers,
    payload: { provider: 'github', token: 'ghp_guard', repository: 'acme/guard', auto_create: false },
  });
  expect(tracker.statusCode, tracker.body).toBe(201);
  const login = await t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: admin.email, password: 'correct horse battery staple' },
  });
  sessionCookie = login.cookies.find((cookie) => cookie.name === SESSION_COOKIE)?.value ?? '';
});
afterAll(() => t.close());

/** The walked application, its versions, grants, finding and comments are as the setup left them. */
async function expectUntouched(): Promise<void> {
  const app = await t.db
    .selectFrom('applications')
    .select(['name', 'api_token_hash'])
    .where('id', '=', application.id)
    .executeTakeFirstOrThrow();
  expect(app.name).not.toBe('guard rename');
  expect(app.api_token_hash).toBe(tokenHash);
  const versions = await t.db
    .selectFrom('application_versions')
    .select('name')
    .where('application_id', '=', application.id)
    .orderBy('id')
    .execute();
  expect(versions.map((version) => version.name)).toEqual(['default', 'guarded']);
  const grants = await t.db
    .selectFrom('permission_policies')
    .select(['user_id', 'action'])
    .where('application_id', '=', application.id)
    .execute();
  expect(grants).toEqual([{ user_id: reader.id, action: 'read' }]);
  if (findingId !== undefined) {
    const finding = await t.app.inject({ url: `/api/findings/${findingId}`, headers: admin.headers });
    expect(finding.json()).toMatchObject({ status: 'open', assignee_id: null });
    const comments = await t.app.inject({
      url: `/api/findings/${findingId}/comments`,
      headers: admin.headers,
    });
    expect(comments.json()).toEqual([]);
  }
}

describe('the collected route list', () => {
  it('is complete: it holds every documented path, and the router knows every route in it', () => {
    const list = endpoints();
    expect(list.length).toBeGreaterThan(40);
    const urls = new Set(list.map((endpoint) => endpoint.url));
    const documented = Object.keys((t.app.swagger() as { paths: object }).paths).map((path) =>
      path.replace(/\{([^}]+)\}/g, ':$1'),
    );
    for (const path of documented) expect(urls, path).toContain(path);
    for (const endpoint of list) {
      expect(t.app.hasRoute({ method: endpoint.method as 'GET', url: endpoint.url }), label(endpoint)).toBe(
        true,
      );
    }
  });

  it('declares what each route needs (a known resource.action), and public exactly the public routes', () => {
    for (const endpoint of endpoints()) {
      expect(isRouteAccess(endpoint.route.config?.access), label(endpoint)).toBe(true);
      const auth = ruleOf(endpoint.route).authentication;
      // /metrics is open unless METRICS_TOKEN is set (test/observability/metrics.test.ts covers the token).
      const open = auth === 'public' || auth === 'metrics_token';
      expect(open, `${label(endpoint)} public?`).toBe(isPublic(endpoint.url));
    }
  });

  it('declares only resources the one access function resolves, each named by the route’s own request', () => {
    const unresolved: string[] = [];
    for (const endpoint of endpoints()) {
      const rule = ruleOf(endpoint.route);
      if (!rule.resource) continue;
      expect(Object.keys(RESOURCES), label(endpoint)).toContain(rule.resource);
      // A token-only route's application is the token's own.
      if (rule.authentication === 'application_token') continue;
      if (!referenceOf(rule.resource, requestOf(endpoint))) unresolved.push(label(endpoint));
    }
    expect(unresolved).toEqual([]);
  });

  it('refuses to register a route that declares nothing', async () => {
    const second = await buildApp(t, { logger: false });
    expect(() => second.get('/api/undeclared', async () => ({}))).toThrow(/declares no access/);
    expect(() =>
      second.get('/api/declared', { config: { access: 'application.read' } }, async () => ({})),
    ).not.toThrow();
    await second.close();
  });

  it('has the rows the scoped walks need', () => {
    expect(scanId, 'ingest of the guard SARIF failed').toBeDefined();
    expect(findingId, 'the guard SARIF made no finding').toBeDefined();
  });
});

describe('an anonymous caller', () => {
  it('gets 401 problem+json on every route except the public ones', async () => {
    let refused = 0;
    for (const endpoint of endpoints()) {
      const response = await inject(endpoint, {});
      if (isPublic(endpoint.url)) {
        expect(response.statusCode, label(endpoint)).not.toBe(401);
        continue;
      }
      expectProblem(endpoint, response, 401, 'unauthorized');
      refused += 1;
    }
    expect(refused).toBeGreaterThan(30);
  });

  it('gets 401 with an unknown API key, even on public routes', async () => {
    // The metrics scraper authenticates with its own bearer token, never an API key.
    for (const endpoint of endpoints().filter(
      ({ route }) => ruleOf(route).authentication !== 'metrics_token',
    )) {
      expectProblem(endpoint, await inject(endpoint, { 'x-api-key': 'shk_not-a-key' }), 401, 'unauthorized');
    }
  });

  it('gets a 404 problem for an unknown route', async () => {
    const response = await t.app.inject({ url: '/api/nothing-here' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.json().code).toBe('not_found');
  });
});

describe('a member', () => {
  it('gets 403 admin_required on every admin route', async () => {
    const adminRoutes = endpoints().filter(
      ({ url, route }) => ruleOf(route).authentication === 'admin' || url.startsWith('/api/admin/'),
    );
    expect(adminRoutes.length).toBeGreaterThan(5);
    for (const endpoint of adminRoutes) {
      expectProblem(endpoint, await inject(endpoint, member.headers), 403, 'admin_required');
    }
  });
});

describe('application-scoped routes (the application, its findings and its scans)', () => {
  it('have a sample input wherever their schema needs one', () => {
    const missing = scopedEndpoints()
      .filter(({ route }) => needsInput(route))
      .filter((endpoint) => !sampleInput(endpoint))
      .map(label);
    expect(missing, JSON.stringify(missing)).toEqual([]);
  });

  for (const scope of WALKED_RESOURCES) {
    it(`${scope}: 404 to a member who cannot read the application; nothing changes`, async () => {
      const list = scopedEndpoints(scope);
      expect(list.length).toBeGreaterThan(0);
      for (const endpoint of list) {
        const response = await inject(endpoint, outsider.headers);
        expectProblem(endpoint, response, 404, 'not_found');
        // The refusal is the one access function's, for the kind the route's request names.
        if (endpoint.method !== 'HEAD') {
          expect(response.json().detail, label(endpoint)).toBe(`${whatOf(endpoint)} not found`);
        }
      }
      await expectUntouched();
    });

    it(`${scope}: 403 to a reader wherever the route declares write; nothing changes`, async () => {
      for (const endpoint of scopedEndpoints(scope).filter(needsWrite)) {
        expectProblem(endpoint, await inject(endpoint, reader.headers), 403, 'forbidden');
      }
      await expectUntouched();
    });

    it(`${scope}: 200 to a reader on every GET (403 where the route declares write)`, async () => {
      for (const endpoint of scopedEndpoints(scope).filter(({ method }) => method === 'GET')) {
        const response = await inject(endpoint, reader.headers);
        expect(response.statusCode, label(endpoint)).toBe(needsWrite(endpoint) ? 403 : 200);
      }
    });
  }

  it('an application-scoped write count that proves the walk reached them', () => {
    const writes = scopedEndpoints().filter(needsWrite);
    expect(writes.length).toBeGreaterThan(10);
  });
});

describe('cookie sessions', () => {
  it('get 403 csrf_failed on every state-changing route without X-CSRF-Token', async () => {
    expect(sessionCookie).not.toBe('');
    const writes = endpoints().filter(
      ({ method, url, route }) =>
        WRITE_METHODS.has(method) &&
        !isPublic(url) &&
        // Token-only routes never read the cookie: the application token's, and SCIM's (a 401 there).
        ruleOf(route).authentication !== 'application_token' &&
        ruleOf(route).authentication !== 'scim_token',
    );
    for (const endpoint of writes) {
      const response = await inject(endpoint, { cookie: `${SESSION_COOKIE}=${sessionCookie}` });
      expectProblem(endpoint, response, 403, 'csrf_failed');
    }
    await expectUntouched();
  });

  it('never authenticate application-token routes', async () => {
    const tokenRoutes = endpoints().filter(
      ({ route }) => ruleOf(route).authentication === 'application_token',
    );
    for (const endpoint of tokenRoutes) {
      const response = await inject(endpoint, { cookie: `${SESSION_COOKIE}=${sessionCookie}` });
      expectProblem(endpoint, response, 401, 'unauthorized');
    }
  });
});

describe('an application token', () => {
  const tokenReads = () =>
    endpoints().filter(({ route }) => ruleOf(route).authentication === 'user_or_application_token');

  it('is accepted only on reads', () => {
    expect(tokenReads().length).toBeGreaterThan(4);
    for (const endpoint of tokenReads()) expect(['GET', 'HEAD'], label(endpoint)).toContain(endpoint.method);
  });

  it("reads its own application's scans, findings and version comparisons", async () => {
    for (const endpoint of tokenReads().filter(({ method }) => method === 'GET')) {
      const response = await inject(endpoint, { 'x-api-token': application.api_token });
      expect(response.statusCode, label(endpoint)).toBe(200);
    }
    const scans = await t.app.inject({
      url: '/api/scans',
      headers: { 'x-api-token': application.api_token },
    });
    expect(scans.json().map((scan: { id: number }) => scan.id)).toEqual([scanId]);
    const findings = await t.app.inject({
      url: `/api/findings?scanId=${scanId}`,
      headers: { 'x-api-token': application.api_token },
    });
    expect(findings.json().findings.map((finding: { id: number }) => finding.id)).toEqual([findingId]);
  });

  it('reads nothing of another application: 404 on its records, nothing of it in lists', async () => {
    const other = { 'x-api-token': otherApplicationToken };
    for (const endpoint of tokenReads().filter(({ method }) => method === 'GET')) {
      const response = await inject(endpoint, other);
      if (resourceOf(endpoint.route) !== undefined) {
        expectProblem(endpoint, response, 404, 'not_found');
        continue;
      }
      expect(response.statusCode, label(endpoint)).toBe(200);
      expect(response.body, label(endpoint)).not.toContain(`"application_id":${application.id}`);
    }
  });

  it('is refused (401) on every other route but ingest; nothing changes', async () => {
    const others = endpoints().filter(
      ({ url, route }) =>
        !isPublic(url) &&
        ruleOf(route).authentication !== 'application_token' &&
        ruleOf(route).authentication !== 'user_or_application_token',
    );
    expect(others.length).toBeGreaterThan(30);
    for (const endpoint of others) {
      expectProblem(
        endpoint,
        await inject(endpoint, { 'x-api-token': application.api_token }),
        401,
        'unauthorized',
      );
    }
    await expectUntouched();
  });

  it('cannot filter findings by "assigned to me"', async () => {
    const response = await t.app.inject({
      url: '/api/findings?assignedTo=me',
      headers: { 'x-api-token': application.api_token },
    });
    expect(response.statusCode).toBe(400);
  });
});
