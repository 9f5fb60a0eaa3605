import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * Issue 10 items 2 and 7: error bodies repeat little of the input (a 1 MB stack of unclosed XML
 * tags once came back as 3.5 MB), XXE stays refused, and NUL characters are a 400 at the edge.
 */

let t: TestApp;
let admin: TestUser;
let applicationId: number;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  applicationId = (await makeApplication(t, admin)).id;
});
afterAll(() => t.close());

/** Upper bound of a problem body whatever the input: fixed text, ~500 characters of detail, 50 issues. */
const SMALL = 16 * 1024;

function expectSmallProblem(response: {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
}) {
  expect(response.statusCode).toBeGreaterThanOrEqual(400);
  expect(response.statusCode).toBeLessThan(500);
  expect(response.headers['content-type']).toContain('application/problem+json');
  expect(response.body.length).toBeLessThan(SMALL);
}

describe('error bodies quote little of the input', () => {
  it('a 1 MB stack of unclosed XML tags is a short 400; no scan is kept as completed', async () => {
    const xml = `<?xml version="1.0"?><OWASPZAPReport>${'<site>'.repeat(180_000)}`;
    expect(xml.length).toBeGreaterThan(1_000_000);
    const response = await upload(t, `/api/applications/${applicationId}/ingest`, admin.headers, {
      file: xml,
      fileName: 'zap.xml',
    });
    expectSmallProblem(response);
    const completed = await t.db
      .selectFrom('scans')
      .select('id')
      .where('application_id', '=', applicationId)
      .where('status', '=', 'completed')
      .execute();
    expect(completed).toEqual([]);
  });

  it('XXE stays refused, without echoing the entity', async () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><OWASPZAPReport>&xxe;</OWASPZAPReport>`;
    const response = await upload(t, `/api/applications/${applicationId}/ingest`, admin.headers, {
      file: xml,
      fileName: 'zap.xml',
    });
    expectSmallProblem(response);
    expect(response.body).not.toContain('root:');
  });

  it('a 200,000-character unknown field name is cut in the error', async () => {
    const name = 'x'.repeat(200_000);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/teams',
      headers: admin.headers,
      payload: { name: 'team', [name]: 1 },
    });
    expectSmallProblem(response);
    const [issue] = response.json().errors;
    expect(issue.path).toMatch(/^body\.x+… \(truncated\)$/);
  });

  it('1,000 invalid items list 50 issues and say how many more', async () => {
    const response = await t.app.inject({
      method: 'PATCH',
      url: '/api/findings',
      headers: admin.headers,
      payload: { ids: Array.from({ length: 1000 }, () => 'not an id'), status: 'confirmed' },
    });
    expectSmallProblem(response);
    const errors = response.json().errors as { path: string; message: string }[];
    expect(errors).toHaveLength(51);
    expect(errors[50]?.message).toBe('… and 950 more issues');
  });

  it('malformed JSON of 900 KB is a short 400', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/teams',
      headers: { ...admin.headers, 'content-type': 'application/json' },
      payload: `{"name": "${'y'.repeat(900_000)}`,
    });
    expectSmallProblem(response);
  });
});

describe('NUL characters', () => {
  it('are a 400 on the unauthenticated login, in the body and in the query', async () => {
    const before = await t.db.selectFrom('sessions').select('id').execute();
    const body = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: `${admin.email}\u0000`, password: 'correct horse battery staple' },
    });
    expect(body.statusCode).toBe(400);
    expect(body.json().errors).toEqual([{ path: 'body.email', message: 'must not contain a NUL character' }]);
    const query = await t.app.inject({ url: '/api/findings?search=a%00b', headers: admin.headers });
    expect(query.statusCode).toBe(400);
    expect(query.json().errors[0].path).toBe('querystring.search');
    const path = await t.app.inject({ url: '/api/applications/a%00b', headers: admin.headers });
    expect(path.statusCode).toBe(400);
    expect(await t.db.selectFrom('sessions').select('id').execute()).toEqual(before);
  });
});
