import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * Issue 49: audit rows are appended last in their transaction (the chain's head is locked from the
 * append to the commit), so concurrent audited requests — uploads (first and later ones, which land
 * differently), triage, teams, webhooks — all complete, each leaves its rows, and the chain verifies
 * with consecutive ids. On PostgreSQL (TEST_DATABASE_URL) the requests really overlap.
 */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
}, 120_000);
afterAll(() => t.close());

const sarif = (count: number, prefix: string) =>
  buildSarif({
    results: Array.from({ length: count }, (_, index) => ({
      ruleId: `${prefix}-${index % 7}`,
      path: `src/${prefix}/${index}.ts`,
      line: index + 1,
      level: 'error' as const,
    })),
  });

describe('concurrent audited requests', () => {
  it('all complete, one row each, and the chain verifies', async () => {
    const [first, second] = [await makeApplication(t, admin), await makeApplication(t, admin)];
    // A first upload, so the next one to this application is a later one (merged, not inserted).
    const seeded = await upload(t, `/api/applications/${first.id}/ingest`, admin.headers, {
      file: sarif(50, 'seed'),
      fileName: 'seed.sarif',
    });
    expect(seeded.statusCode, seeded.body).toBe(201);
    const finding = await t.db
      .selectFrom('findings')
      .select('id')
      .where('application_id', '=', first.id)
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const before = await t.db.selectFrom('audit_chain').select('last_id').executeTakeFirstOrThrow();

    const stamp = Date.now();
    const responses = await Promise.all([
      upload(t, `/api/applications/${first.id}/ingest`, admin.headers, {
        file: sarif(400, 'later'),
        fileName: 'later.sarif',
      }),
      upload(t, `/api/applications/${second.id}/ingest`, admin.headers, {
        file: sarif(400, 'first'),
        fileName: 'first.sarif',
      }),
      t.app.inject({
        method: 'PATCH',
        url: `/api/findings/${finding.id}/status`,
        headers: admin.headers,
        payload: { status: 'confirmed' },
      }),
      ...Array.from({ length: 4 }, (_, index) =>
        t.app.inject({
          method: 'POST',
          url: '/api/teams',
          headers: admin.headers,
          payload: { name: `concurrent-${stamp}-${index}` },
        }),
      ),
      t.app.inject({
        method: 'POST',
        url: `/api/applications/${second.id}/webhooks`,
        headers: admin.headers,
        payload: { url: 'http://127.0.0.1:9/hook', events: '*' },
      }),
    ]);
    for (const response of responses) expect(response.statusCode, response.body).toBeLessThan(300);

    const rows = await t.db
      .selectFrom('audit_events')
      .select(['action', 'target_id', sql<string>`audit_events.id::text`.as('id')])
      .where('audit_events.id', '>', before.last_id as never)
      .orderBy('audit_events.id')
      .execute();
    const count = (action: string) => rows.filter((row) => row.action === action).length;
    expect(count('upload.completed')).toBe(2);
    expect(count('finding.status_changed')).toBe(1);
    expect(count('team.created')).toBe(4);
    expect(count('webhook.created')).toBe(1);
    // Consecutive: no id lost or taken twice while writers queued on the head.
    expect(rows.map((row) => BigInt(row.id))).toEqual(
      rows.map((_, index) => BigInt(before.last_id) + BigInt(index) + 1n),
    );
    const scans = responses.slice(0, 2).map((response) => String(response.json().scan.id));
    expect(
      rows
        .filter((row) => row.action === 'upload.completed')
        .map((row) => row.target_id)
        .sort(),
    ).toEqual([...scans].sort());

    const verify = await t.app.inject({ url: '/api/audit-events/verify', headers: admin.headers });
    expect(verify.statusCode).toBe(200);
    expect(verify.json()).toMatchObject({ ok: true, first_broken: null });
  });
});
