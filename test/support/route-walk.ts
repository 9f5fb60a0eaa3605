import type { LightMyRequestResponse, RouteOptions } from 'fastify';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { accessRule, type AccessRule } from '../../src/access/route-access.ts';
import type { TestApp } from './test-app.ts';

/**
 * Helpers for suites that walk every route the app registers. Collect the routes with
 * `createTestApp({}, { onRoute: (route) => collected.push(route) })` (the hook is attached before
 * the first route exists), then expand them to one endpoint per method.
 */
export interface Endpoint {
  method: string;
  url: string;
  route: RouteOptions;
}

export function endpointsOf(routes: RouteOptions[]): Endpoint[] {
  return routes.flatMap((route) =>
    (Array.isArray(route.method) ? route.method : [route.method]).map((method) => ({
      method,
      url: route.url,
      route,
    })),
  );
}

/** The rule a route declared (`config.access`); registration refuses a route without one. */
export function ruleOf(route: RouteOptions): AccessRule {
  const access = route.config?.access;
  if (!access) throw new Error(`${String(route.method)} ${route.url} declares no access`);
  return accessRule(access);
}

export const label = (endpoint: Endpoint): string => `${endpoint.method} ${endpoint.url}`;

/** The path parameter names of a route URL (`:id`, `:versionId`, the wildcard `*`). */
export function pathParams(url: string): string[] {
  const names = [...url.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1] as string);
  return url.endsWith('*') ? [...names, '*'] : names;
}

/** Fills a route URL from `values` (raw, already URL-encoded where needed). */
export function fillUrl(url: string, values: Record<string, string>): string {
  return url
    .replace(/:([A-Za-z_]+)/g, (_match, name: string) => {
      const value = values[name];
      if (value === undefined) throw new Error(`no value for :${name} in ${url}`);
      return value;
    })
    .replace(/\*$/, values['*'] ?? 'index.html');
}

/** 4xx application/problem+json with a `code` (HEAD responses carry only the header). */
/** SCIM's routes answer errors in SCIM's shape (RFC 7644 §3.12), not problem+json. */
export const isScimUrl = (url: string): boolean => url.startsWith('/scim/');

/** A SCIM error: its media type, its schema, and `status` as a string. */
export function expectScimError(what: string, response: LightMyRequestResponse, status?: number): void {
  if (status !== undefined)
    expect(response.statusCode, `${what}: ${response.body.slice(0, 300)}`).toBe(status);
  expect(response.headers['content-type'], what).toContain('application/scim+json');
  if (!response.body) return;
  const body = response.json() as { schemas?: unknown; status?: unknown };
  expect(body.schemas, what).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
  expect(body.status, what).toBe(String(response.statusCode));
}

export function expectRefused(what: string, response: LightMyRequestResponse, status?: number): void {
  if (status === undefined) {
    expect(response.statusCode, `${what}: ${response.body.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
    expect(response.statusCode, `${what}: ${response.body.slice(0, 300)}`).toBeLessThan(500);
  } else {
    expect(response.statusCode, `${what}: ${response.body.slice(0, 300)}`).toBe(status);
  }
  // SCIM's routes answer in SCIM's shape; a request the request-target guard refuses before routing
  // (a 5,000-character id) is still a problem+json.
  if (what.includes(' /scim/') && String(response.headers['content-type']).includes('scim')) {
    expectScimError(what, response);
    return;
  }
  expect(response.headers['content-type'], what).toContain('application/problem+json');
  if (response.body) expect(typeof response.json().code, what).toBe('string');
}

/**
 * Columns that legitimately change on a refused request: a key's last use is recorded on auth, the
 * outbox dispatcher marks events processed in the background whenever it runs, and a process that
 * runs workers renews its heartbeat.
 */
const VOLATILE_COLUMNS = new Set(['last_used_at', 'processed_at', 'heartbeat_at']);
/**
 * Tables a refused request changes by design, or background work changes whenever it runs: a sign-in
 * attempt is counted before it is checked; which job runs this process holds (worker liveness) comes
 * and goes with every job.
 */
const VOLATILE_TABLES = new Set(['login_throttle', 'job_holds']);

/**
 * Every row of every table of the test's schema, as one comparable value. Per-schema, so parallel
 * test files on one PostgreSQL do not disturb it.
 */
export async function snapshotDatabase(t: TestApp): Promise<Record<string, string[]>> {
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'
    order by table_name`.execute(t.db);
  const snapshot: Record<string, string[]> = {};
  for (const { table_name: table } of tables.rows) {
    if (VOLATILE_TABLES.has(table)) continue;
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(t.db);
    snapshot[table] = rows.rows
      .map((row) => JSON.stringify(Object.entries(row).filter(([column]) => !VOLATILE_COLUMNS.has(column))))
      .sort();
  }
  return snapshot;
}
