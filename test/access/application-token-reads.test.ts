import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * A CI job holds only its application's token: it uploads asynchronously, follows the scan to
 * completion, reads what the scan found and compares the version with another, as a gate would.
 */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an application token in CI', () => {
  it('follows its async upload, reads its findings and compares versions', async () => {
    const application = await makeApplication(t, admin);
    const token = { 'x-api-token': application.api_token };
    const base = await upload(t, '/api/ingest', token, {
      file: 'corpus:sarif/codeQL-output.sarif',
      fields: { version: 'main' },
    });
    expect(base.statusCode).toBe(201);

    const accepted = await upload(t, '/api/ingest?async=true', token, {
      file: 'corpus:gosec/many_vulns.json',
      fields: { version: 'pr-42' },
    });
    expect(accepted.statusCode).toBe(202);
    const scanId: number = accepted.json().scan.id;

    let scan = (await t.app.inject({ url: `/api/scans/${scanId}`, headers: token })).json();
    for (let polls = 0; scan.status !== 'completed' && scan.status !== 'failed' && polls < 200; polls++) {
      await sleep(50);
      scan = (await t.app.inject({ url: `/api/scans/${scanId}`, headers: token })).json();
    }
    expect(scan).toMatchObject({ id: scanId, status: 'completed' });

    const found = await t.app.inject({ url: `/api/findings?scanId=${scanId}&perPage=200`, headers: token });
    expect(found.statusCode).toBe(200);
    expect(found.json().pagination.total).toBe(scan.new_findings_count);
    expect(scan.new_findings_count).toBeGreaterThan(0);

    const compare = await t.app.inject({
      url: `/api/applications/${application.id}/versions/compare`,
      query: { from: 'main', to: 'pr-42' },
      headers: token,
    });
    expect(compare.statusCode).toBe(200);
    expect(compare.json().summary.new).toBe(scan.new_findings_count);
  });

  it('writes nothing: triage, versions and the application itself refuse it', async () => {
    const application = await makeApplication(t, admin);
    const token = { 'x-api-token': application.api_token };
    await upload(t, '/api/ingest', token, { file: 'corpus:gosec/many_vulns.json' });
    const [finding] = (await t.app.inject({ url: '/api/findings', headers: token })).json().findings;
    const attempts = [
      { method: 'PATCH', url: `/api/findings/${finding.id}/status`, payload: { status: 'false_positive' } },
      { method: 'POST', url: `/api/findings/${finding.id}/comments`, payload: { content: 'from CI' } },
      { method: 'POST', url: `/api/applications/${application.id}/versions`, payload: { name: 'x' } },
      { method: 'DELETE', url: `/api/applications/${application.id}` },
      { method: 'GET', url: `/api/applications/${application.id}` },
    ] as const;
    for (const attempt of attempts) {
      const response = await t.app.inject({ ...attempt, headers: token });
      expect(response.statusCode, `${attempt.method} ${attempt.url}`).toBe(401);
    }
    const after = await t.app.inject({ url: `/api/findings/${finding.id}`, headers: admin.headers });
    expect(after.json()).toMatchObject({ status: 'open' });
  });
});
