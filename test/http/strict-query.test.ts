import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takesStrictQuery } from '../../src/http/strict-query.ts';
import { camelCase, snakeCase } from '../../src/http/camel-case-twins.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import {
  endpointsOf,
  expectScimError,
  fillUrl,
  isScimUrl,
  label,
  pathParams,
  ruleOf,
  snapshotDatabase,
  type Endpoint,
} from '../support/route-walk.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Issue 53: a misspelled filter (`?scannerType=gitleaks` for `scanner_type_id`) was ignored and the
 * answer looked right. Every API route, read from the router so a new one is walked without editing
 * this file, refuses a parameter it does not declare with a 400 naming it and listing what it takes;
 * what it declares, in either spelling, is never refused as unknown.
 */

type QuerySchema = { properties?: Record<string, unknown>; additionalProperties?: unknown };

/**
 * Routes that take any parameter on purpose: an identity provider's redirect may carry parameters
 * of its own beside code and state (RFC 6749 lets it), and a tracker may append its own to a
 * webhook URL.
 */
const OPEN_QUERY = ['GET /api/auth/oidc/callback', 'POST /api/integrations/:provider/webhook/:trackerId'];

const collected: RouteOptions[] = [];
let t: TestApp;
let admin: TestUser;
let token: string;
let scimToken: string;

const querySchemaOf = (endpoint: Endpoint): QuerySchema | undefined =>
  (endpoint.route.schema as { querystring?: QuerySchema } | undefined)?.querystring;
const declared = (endpoint: Endpoint): string[] => Object.keys(querySchemaOf(endpoint)?.properties ?? {});
const apiEndpoints = (): Endpoint[] =>
  endpointsOf(collected).filter(({ method, url }) => method !== 'HEAD' && takesStrictQuery(url));

function send(endpoint: Endpoint, query: string) {
  const values = Object.fromEntries(pathParams(endpoint.url).map((name) => [name, '1']));
  const authentication = ruleOf(endpoint.route).authentication;
  const headers =
    authentication === 'scim_token'
      ? { authorization: `Bearer ${scimToken}` }
      : authentication === 'application_token'
        ? { 'x-api-token': token }
        : admin.headers;
  const url = `${fillUrl(endpoint.url, values)}?${query}`;
  return t.app.inject({ method: endpoint.method as 'GET', url, headers });
}

beforeAll(async () => {
  t = await createTestApp({}, { onRoute: (route) => collected.push(route) });
  admin = await makeUser(t, { role: 'admin' });
  token = (await makeApplication(t, admin)).api_token;
  scimToken = (
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/scim-tokens',
      headers: admin.headers,
      payload: { name: 'walk' },
    })
  ).json().token;
});

afterAll(async () => {
  await t?.close();
});

describe('unknown query parameters', () => {
  it('every API route refuses one with a 400 naming it and listing the accepted ones, and changes nothing', async () => {
    const before = await snapshotDatabase(t);
    const walked = apiEndpoints().filter((endpoint) => !OPEN_QUERY.includes(label(endpoint)));
    for (const endpoint of walked) {
      const response = await send(endpoint, 'no_such_filter=1&page_size=5');
      const what = `${label(endpoint)}: ${response.body.slice(0, 300)}`;
      expect(response.statusCode, what).toBe(400);
      if (isScimUrl(endpoint.url)) {
        // SCIM's error shape has no `code`: its detail names the parameters the same way.
        expectScimError(what, response, 400);
        expect(response.json().detail, what).toContain('no_such_filter, page_size');
        continue;
      }
      expect(response.headers['content-type'], what).toContain('application/problem+json');
      const problem = response.json();
      expect(problem.code, what).toBe('unknown_query_parameter');
      expect(problem.unknown_parameters, what).toEqual(['no_such_filter', 'page_size']);
      expect(problem.accepted_parameters, what).toEqual(declared(endpoint));
      expect(problem.detail, what).toContain('no_such_filter, page_size');
      for (const name of declared(endpoint)) expect(problem.detail, what).toContain(name);
    }
    expect(walked.length).toBeGreaterThan(80);
    expect(await snapshotDatabase(t)).toEqual(before);
  });

  it('a declared parameter, in its snake_case or camelCase spelling, is never refused as unknown', async () => {
    const withQuery = apiEndpoints().filter((endpoint) => declared(endpoint).length > 0);
    expect(withQuery.length).toBeGreaterThanOrEqual(10);
    for (const endpoint of withQuery) {
      for (const name of declared(endpoint)) {
        const twin = name.includes('_') ? camelCase(name) : snakeCase(name);
        for (const spelling of new Set([name, twin])) {
          const response = await send(endpoint, `${spelling}=1`);
          const what = `${label(endpoint)} ?${spelling}: ${response.body.slice(0, 300)}`;
          if (response.statusCode === 400)
            expect(response.json().code, what).not.toBe('unknown_query_parameter');
        }
      }
    }
  });

  it("the misspelled filter of the issue is refused, and the detail says what the filter's name is", async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/findings?scannerType=gitleaks',
      headers: admin.headers,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toMatch(
      /Unknown query parameter scannerType; .*scanner_type_id \(or scannerTypeId\)/,
    );
    const errors = response.json().errors as { path: string }[];
    expect(errors.map((issue) => issue.path)).toEqual(['querystring.scannerType']);
  });

  it('a parameter declared in camelCase is also taken in snake_case, and means the same', async () => {
    const admin2 = await makeUser(t, { role: 'admin' });
    const app = await makeApplication(t, admin2);
    const other = await makeApplication(t, admin2);
    const ask = (query: string) =>
      t.app.inject({ url: `/api/dashboard/stats?${query}`, headers: admin2.headers });
    const camel = await ask(`applicationId=${app.slug}`);
    const snake = await ask(`application_id=${app.slug}`);
    expect(snake.statusCode, snake.body).toBe(200);
    expect(snake.json()).toEqual(camel.json());
    // Folded into applicationId: two different values disagree (not an unknown parameter).
    const both = await ask(`application_id=${other.slug}&applicationId=${app.slug}`);
    expect(both.statusCode).toBe(400);
    expect(both.json()).toMatchObject({
      code: 'validation_failed',
      detail: 'application_id and applicationId disagree',
    });
    const unknown = await ask('app=1');
    expect(unknown.json().detail).toContain('applicationId (or application_id)');
  });

  it('only the declared open routes take any parameter', async () => {
    const open = apiEndpoints().filter((endpoint) => querySchemaOf(endpoint)?.additionalProperties === true);
    expect(open.map(label)).toEqual(OPEN_QUERY);
    for (const endpoint of open) {
      const response = await send(endpoint, 'user_id=admin&user_key=admin');
      if (response.statusCode === 400) expect(response.json().code).not.toBe('unknown_query_parameter');
    }
  });
});
