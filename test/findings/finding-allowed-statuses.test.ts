import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/** The finding detail names the statuses a person may move it to, so the UI offers only those. */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

describe('allowed_next_statuses', () => {
  it('follows the lifecycle table, on the detail and on every triage answer', async () => {
    const application = await makeApplication(t, admin);
    const finding = await makeFinding(t, application.id);
    const detail = await t.app.inject({ url: `/api/findings/${finding.id}`, headers: admin.headers });
    expect(detail.json().allowed_next_statuses).toEqual(['confirmed', 'false_positive']);
    const confirmed = await t.app.inject({
      method: 'PATCH',
      url: `/api/findings/${finding.id}/status`,
      headers: admin.headers,
      payload: { status: 'confirmed' },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json().allowed_next_statuses).toEqual(['fixed', 'false_positive']);
    const fixed = await t.app.inject({
      method: 'PATCH',
      url: `/api/findings/${finding.id}/status`,
      headers: admin.headers,
      payload: { status: 'fixed' },
    });
    expect(fixed.json().allowed_next_statuses).toEqual(['open']);
  });
});
