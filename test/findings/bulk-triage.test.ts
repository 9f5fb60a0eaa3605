import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grant, makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;
let writer: TestUser;
let outsider: TestUser;
let writable: number;
let alsoWritable: number;
let readOnly: number;
let hidden: number;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  writer = await makeUser(t);
  outsider = await makeUser(t);
  writable = (await makeApplication(t, admin)).id;
  alsoWritable = (await makeApplication(t, admin)).id;
  readOnly = (await makeApplication(t, admin)).id;
  hidden = (await makeApplication(t, admin)).id;
  await grant(t, writer, writable, 'write');
  await grant(t, writer, alsoWritable, 'write');
  await grant(t, writer, readOnly, 'read');
});
afterAll(() => t.close());

function bulk(user: TestUser | null, payload: object) {
  return t.app.inject({
    method: 'PATCH',
    url: '/api/findings',
    payload,
    ...(user ? { headers: user.headers } : {}),
  });
}

async function rows(ids: number[]) {
  return t.db
    .selectFrom('findings')
    .select(['id', 'status', 'assignee_id', 'fixed_at', 'due_date'])
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
}
const timelineOf = (ids: number[]) =>
  t.db.selectFrom('finding_events').selectAll().where('finding_id', 'in', ids).orderBy('id').execute();
const eventsOf = (ids: number[]) =>
  t.db.selectFrom('events').selectAll().where('finding_id', 'in', ids).orderBy('id').execute();

describe('PATCH /api/findings (bulk)', () => {
  it('401 without credentials', async () => {
    expect((await bulk(null, { ids: [1], status: 'confirmed' })).statusCode).toBe(401);
  });

  it('403 when any finding is only readable, listing nothing changed', async () => {
    const mine = await makeFinding(t, writable);
    const theirs = await makeFinding(t, readOnly);
    const response = await bulk(writer, { ids: [mine.id, theirs.id], status: 'confirmed' });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'forbidden', ids: [theirs.id] });
    expect((await rows([mine.id, theirs.id])).map((row) => row.status)).toEqual(['open', 'open']);
  });

  it('400 per bad field', async () => {
    const finding = await makeFinding(t, writable);
    const cases: [object, string][] = [
      [{ status: 'confirmed' }, 'body.ids'],
      [{ ids: [], status: 'confirmed' }, 'body.ids'],
      [{ ids: Array.from({ length: 1001 }, (_, index) => index + 1), status: 'confirmed' }, 'body.ids'],
      [{ ids: ['x'], status: 'confirmed' }, 'body.ids.0'],
      [{ ids: [0], status: 'confirmed' }, 'body.ids.0'],
      [{ ids: [finding.id], status: 'closed' }, 'body.status'],
      [{ ids: [finding.id], assignee: 'me' }, 'body.assignee'],
      [{ ids: [finding.id] }, 'body'],
    ];
    for (const [payload, path] of cases) {
      const response = await bulk(writer, payload);
      const label = JSON.stringify(payload).slice(0, 80);
      expect(response.statusCode, label).toBe(400);
      expect(
        response.json().errors.map((error: { path: string }) => error.path),
        label,
      ).toContain(path);
    }
  });

  it('404 lists unknown and unreadable ids, and nothing changes', async () => {
    const mine = await makeFinding(t, writable);
    const secret = await makeFinding(t, hidden);
    const response = await bulk(writer, { ids: [mine.id, secret.id, 999999], status: 'confirmed' });
    expect(response.statusCode).toBe(404);
    expect(response.json().ids).toEqual([secret.id, 999999]);
    expect((await rows([mine.id])).map((row) => row.status)).toEqual(['open']);
    expect((await bulk(outsider, { ids: [mine.id], status: 'confirmed' })).statusCode).toBe(404);
  });

  it('409 lists every finding whose move is not allowed, and nothing changes', async () => {
    const open = await makeFinding(t, writable);
    const confirmed = await makeFinding(t, writable, { status: 'confirmed' });
    const dismissed = await makeFinding(t, alsoWritable, { status: 'false_positive' });
    const response = await bulk(writer, { ids: [open.id, confirmed.id, dismissed.id], status: 'fixed' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({
      code: 'invalid_transition',
      ids: [open.id, dismissed.id],
      to: 'fixed',
      findings: [
        { id: open.id, from: 'open', allowed: ['confirmed', 'false_positive'] },
        { id: dismissed.id, from: 'false_positive', allowed: ['open'] },
      ],
    });
    const after = await rows([open.id, confirmed.id, dismissed.id]);
    expect(after.map((row) => row.status)).toEqual(['open', 'confirmed', 'false_positive']);
    expect(await timelineOf([open.id, confirmed.id, dismissed.id])).toEqual([]);
    expect(await eventsOf([open.id, confirmed.id, dismissed.id])).toEqual([]);
  });

  it('404 for an unknown assignee, 400 assignee_cannot_read when one application is unreadable to them', async () => {
    const a = await makeFinding(t, writable);
    const b = await makeFinding(t, alsoWritable);
    expect((await bulk(writer, { ids: [a.id], assignee: 999999 })).statusCode).toBe(404);
    const partial = await makeUser(t);
    await grant(t, partial, writable, 'read');
    const response = await bulk(writer, { ids: [a.id, b.id], assignee: partial.id, status: 'confirmed' });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('assignee_cannot_read');
    expect(response.json().errors[0].path).toBe('body.assignee');
    // All or nothing: the valid status change was rolled back too.
    expect((await rows([a.id, b.id])).map((row) => [row.status, row.assignee_id])).toEqual([
      ['open', null],
      ['open', null],
    ]);
  });

  it('200 changes status across applications with a timeline entry and event per changed finding', async () => {
    const a = await makeFinding(t, writable, { status: 'confirmed' });
    const b = await makeFinding(t, alsoWritable, { status: 'confirmed' });
    const already = await makeFinding(t, writable, { status: 'fixed' });
    const response = await bulk(writer, { ids: [a.id, b.id, already.id, a.id], status: 'fixed' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ updated: 2, ids: [a.id, b.id], unchanged: [already.id] });
    const after = await rows([a.id, b.id]);
    expect(after.every((row) => row.status === 'fixed' && row.fixed_at instanceof Date)).toBe(true);
    const timeline = await timelineOf([a.id, b.id, already.id]);
    expect(
      timeline.map((entry) => [entry.finding_id, entry.actor_user_id, entry.from_status, entry.to_status]),
    ).toEqual([
      [a.id, writer.id, 'confirmed', 'fixed'],
      [b.id, writer.id, 'confirmed', 'fixed'],
    ]);
    const events = await eventsOf([a.id, b.id, already.id]);
    expect(events.map((event) => [event.finding_id, event.application_id, event.type, event.data])).toEqual([
      [a.id, writable, 'finding.status_changed', { from: 'confirmed', to: 'fixed' }],
      [b.id, alsoWritable, 'finding.status_changed', { from: 'confirmed', to: 'fixed' }],
    ]);
  });

  it('200 assigns and unassigns, with status in the same request', async () => {
    const a = await makeFinding(t, writable);
    const b = await makeFinding(t, alsoWritable, { assignee_id: admin.id });
    const assigned = await bulk(writer, { ids: [a.id, b.id], assignee: writer.id, status: 'confirmed' });
    expect(assigned.statusCode).toBe(200);
    expect(assigned.json()).toEqual({ updated: 2, ids: [a.id, b.id], unchanged: [] });
    const after = await rows([a.id, b.id]);
    expect(after.map((row) => [row.status, row.assignee_id])).toEqual([
      ['confirmed', writer.id],
      ['confirmed', writer.id],
    ]);
    expect(after.map((row) => row.due_date)).toEqual([null, null]);
    const reassigned = (await eventsOf([a.id, b.id])).filter((event) => event.type === 'finding.reassigned');
    expect(reassigned.map((event) => event.data)).toEqual([
      expect.objectContaining({ from: null, to: writer.id }),
      expect.objectContaining({ from: admin.id, to: writer.id }),
    ]);

    const unassigned = await bulk(writer, { ids: [a.id, b.id], assignee: null });
    expect(unassigned.json()).toEqual({ updated: 2, ids: [a.id, b.id], unchanged: [] });
    expect((await rows([a.id, b.id])).map((row) => row.assignee_id)).toEqual([null, null]);
    const again = await bulk(writer, { ids: [a.id, b.id], assignee: null });
    expect(again.json()).toEqual({ updated: 0, ids: [], unchanged: [a.id, b.id] });
    const timeline = await timelineOf([a.id, b.id]);
    expect(timeline.filter((entry) => entry.type === 'reassigned')).toHaveLength(4);
    expect(timeline.filter((entry) => entry.type === 'status_changed')).toHaveLength(2);
  });

  it('handles 1,000 findings in one request', async () => {
    const app = await makeApplication(t, admin);
    const version = await t.db
      .selectFrom('application_versions')
      .select('id')
      .where('application_id', '=', app.id)
      .executeTakeFirstOrThrow();
    const sarif = await t.db
      .selectFrom('scanner_types')
      .select('id')
      .where('name', '=', 'sarif')
      .executeTakeFirstOrThrow();
    const inserted = await t.db
      .insertInto('findings')
      .values(
        Array.from({ length: 1000 }, (_, index) => ({
          application_id: app.id,
          version_id: version.id,
          scanner_type_id: sarif.id,
          fingerprint: `bulk-${index}`,
          identity_base: `bulk-${index}`,
          kind: 'code',
          title: `Bulk ${index}`,
          severity: 'low' as const,
          severity_rank: 2,
          status: 'open' as const,
          tool_name: 'TestTool',
          risk_score: 10,
          risk_severity: 2.5,
          risk_exploitation: 0.2,
          risk_age: 0,
          risk_asset: 0.65,
          risk_formula_version: 1,
        })),
      )
      .returning('id')
      .execute();
    const ids = inserted.map((row) => row.id);
    const response = await bulk(admin, { ids, status: 'false_positive' });
    expect(response.statusCode).toBe(200);
    expect(response.json().updated).toBe(1000);
    expect(await timelineOf(ids)).toHaveLength(1000);
    expect(await eventsOf(ids)).toHaveLength(1000);
  });
});
