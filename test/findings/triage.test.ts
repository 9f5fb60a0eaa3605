import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grant, makeFinding, makeUser, type TestUser, makeCast } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;
let writer: TestUser;
let reader: TestUser;
let outsider: TestUser;
let applicationId: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, writer, reader, outsider, applicationId } = await makeCast(t));
});
afterAll(() => t.close());

function patch(user: TestUser | null, url: string, payload: object) {
  return t.app.inject({ method: 'PATCH', url, payload, ...(user ? { headers: user.headers } : {}) });
}

const findingRow = (id: number) =>
  t.db.selectFrom('findings').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const timelineOf = (id: number) =>
  t.db.selectFrom('finding_events').selectAll().where('finding_id', '=', id).orderBy('id').execute();
const eventsOf = (id: number) =>
  t.db.selectFrom('events').selectAll().where('finding_id', '=', id).orderBy('id').execute();

const errorPaths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((error) => error.path);

describe('PATCH /api/findings/{id}/status', () => {
  it('401 without credentials', async () => {
    const finding = await makeFinding(t, applicationId);
    expect(
      (await patch(null, `/api/findings/${finding.id}/status`, { status: 'confirmed' })).statusCode,
    ).toBe(401);
  });

  it('403 for a reader, and nothing changes', async () => {
    const finding = await makeFinding(t, applicationId);
    const response = await patch(reader, `/api/findings/${finding.id}/status`, { status: 'confirmed' });
    expect(response.statusCode).toBe(403);
    expect((await findingRow(finding.id)).status).toBe('open');
  });

  it('400 for a missing or unknown status', async () => {
    const finding = await makeFinding(t, applicationId);
    const missing = await patch(writer, `/api/findings/${finding.id}/status`, {});
    expect(missing.statusCode).toBe(400);
    expect(errorPaths(missing.json())).toContain('body.status');
    const closed = await patch(writer, `/api/findings/${finding.id}/status`, { status: 'closed' });
    expect(closed.statusCode).toBe(400);
    expect(errorPaths(closed.json())).toContain('body.status');
  });

  it('404 for unknown, malformed and unreadable findings', async () => {
    const finding = await makeFinding(t, applicationId);
    for (const id of ['999999', 'abc', '0']) {
      const response = await patch(admin, `/api/findings/${id}/status`, { status: 'confirmed' });
      expect(response.statusCode, id).toBe(404);
    }
    const response = await patch(outsider, `/api/findings/${finding.id}/status`, { status: 'confirmed' });
    expect(response.statusCode).toBe(404);
  });

  it('409 invalid_transition lists the allowed statuses and changes nothing', async () => {
    const finding = await makeFinding(t, applicationId);
    const response = await patch(writer, `/api/findings/${finding.id}/status`, { status: 'fixed' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({
      code: 'invalid_transition',
      from: 'open',
      to: 'fixed',
      allowed: ['confirmed', 'false_positive'],
    });
    expect((await findingRow(finding.id)).status).toBe('open');
    expect(await timelineOf(finding.id)).toEqual([]);
    expect(await eventsOf(finding.id)).toEqual([]);
  });

  it('200 without a change for the same status', async () => {
    const finding = await makeFinding(t, applicationId);
    const response = await patch(writer, `/api/findings/${finding.id}/status`, { status: 'open' });
    expect(response.statusCode).toBe(200);
    expect(response.json().status).toBe('open');
    expect(await timelineOf(finding.id)).toEqual([]);
    expect(await eventsOf(finding.id)).toEqual([]);
  });

  it('200 moves through the lifecycle with timeline entries, events and fixed_at', async () => {
    const finding = await makeFinding(t, applicationId);
    const confirmed = await patch(writer, `/api/findings/${finding.id}/status`, { status: 'confirmed' });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json()).toMatchObject({ id: finding.id, status: 'confirmed', fixed_at: null });
    expect(confirmed.json().timeline.at(-1)).toMatchObject({
      type: 'status_changed',
      actor: { type: 'user', id: writer.id, email: writer.email },
      from_status: 'open',
      to_status: 'confirmed',
    });

    const fixed = await patch(writer, `/api/findings/${finding.id}/status`, { status: 'fixed' });
    expect(fixed.statusCode).toBe(200);
    const fixedRow = await findingRow(finding.id);
    expect(fixedRow.status).toBe('fixed');
    expect(fixedRow.fixed_at).toBeInstanceOf(Date);
    expect(fixed.json().fixed_at).toBe(fixedRow.fixed_at?.toISOString());
    expect(fixedRow.updated_at.getTime()).toBeGreaterThan(finding.updated_at.getTime());

    const reopened = await patch(admin, `/api/findings/${finding.id}/status`, { status: 'open' });
    expect(reopened.statusCode).toBe(200);
    expect((await findingRow(finding.id)).fixed_at).toBeNull();

    const timeline = await timelineOf(finding.id);
    expect(
      timeline.map((entry) => [entry.type, entry.actor_user_id, entry.from_status, entry.to_status]),
    ).toEqual([
      ['status_changed', writer.id, 'open', 'confirmed'],
      ['status_changed', writer.id, 'confirmed', 'fixed'],
      ['status_changed', admin.id, 'fixed', 'open'],
    ]);
    const events = await eventsOf(finding.id);
    expect(events.map((event) => [event.type, event.application_id, event.data])).toEqual([
      ['finding.status_changed', applicationId, { from: 'open', to: 'confirmed' }],
      ['finding.status_changed', applicationId, { from: 'confirmed', to: 'fixed' }],
      ['finding.status_changed', applicationId, { from: 'fixed', to: 'open' }],
    ]);
  });

  it('allows confirmed → false_positive and reopening a dismissal', async () => {
    const finding = await makeFinding(t, applicationId, { status: 'confirmed' });
    expect(
      (await patch(writer, `/api/findings/${finding.id}/status`, { status: 'false_positive' })).statusCode,
    ).toBe(200);
    expect((await patch(writer, `/api/findings/${finding.id}/status`, { status: 'fixed' })).statusCode).toBe(
      409,
    );
    expect((await patch(writer, `/api/findings/${finding.id}/status`, { status: 'open' })).statusCode).toBe(
      200,
    );
    expect((await findingRow(finding.id)).status).toBe('open');
  });
});

describe('PATCH /api/findings/{id}/review', () => {
  it('401, 403 for a reader, 400 for a bad status, 404 unreadable', async () => {
    const finding = await makeFinding(t, applicationId);
    const url = `/api/findings/${finding.id}/review`;
    expect((await patch(null, url, {})).statusCode).toBe(401);
    expect((await patch(reader, url, {})).statusCode).toBe(403);
    const bad = await patch(writer, url, { status: 'done' });
    expect(bad.statusCode).toBe(400);
    expect(errorPaths(bad.json())).toContain('body.status');
    expect((await patch(outsider, url, {})).statusCode).toBe(404);
    expect((await findingRow(finding.id)).reviewed_at).toBeNull();
  });

  it('409 for an invalid transition, without marking the finding reviewed', async () => {
    const finding = await makeFinding(t, applicationId);
    const response = await patch(writer, `/api/findings/${finding.id}/review`, { status: 'fixed' });
    expect(response.statusCode).toBe(409);
    expect(response.json().allowed).toEqual(['confirmed', 'false_positive']);
    const row = await findingRow(finding.id);
    expect(row.reviewed_at).toBeNull();
    expect(await timelineOf(finding.id)).toEqual([]);
  });

  it('200 marks reviewed without a status', async () => {
    const finding = await makeFinding(t, applicationId);
    const response = await patch(writer, `/api/findings/${finding.id}/review`, {});
    expect(response.statusCode).toBe(200);
    const row = await findingRow(finding.id);
    expect(row.reviewed_by).toBe(writer.id);
    expect(row.reviewed_at).toBeInstanceOf(Date);
    expect(response.json()).toMatchObject({
      reviewed_by: writer.id,
      reviewed_at: row.reviewed_at?.toISOString(),
    });
    const timeline = await timelineOf(finding.id);
    expect(timeline.map((entry) => [entry.type, entry.actor_user_id, entry.to_status])).toEqual([
      ['reviewed', writer.id, null],
    ]);
    expect(await eventsOf(finding.id)).toEqual([]);
  });

  it('200 marks reviewed and applies an allowed status', async () => {
    const finding = await makeFinding(t, applicationId);
    const response = await patch(writer, `/api/findings/${finding.id}/review`, { status: 'false_positive' });
    expect(response.statusCode).toBe(200);
    expect(response.json().status).toBe('false_positive');
    const timeline = await timelineOf(finding.id);
    expect(timeline.map((entry) => [entry.type, entry.from_status, entry.to_status, entry.detail])).toEqual([
      ['status_changed', 'open', 'false_positive', { via: 'review' }],
      ['reviewed', null, null, null],
    ]);
    const events = await eventsOf(finding.id);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ['finding.status_changed', { from: 'open', to: 'false_positive' }],
    ]);
  });
});

describe('PATCH /api/findings/{id}/assign', () => {
  it('401, 403 for a reader', async () => {
    const finding = await makeFinding(t, applicationId);
    const url = `/api/findings/${finding.id}/assign`;
    expect((await patch(null, url, { userId: writer.id })).statusCode).toBe(401);
    expect((await patch(reader, url, { userId: writer.id })).statusCode).toBe(403);
  });

  it('400 for a missing user, a non-integer user and bad dates', async () => {
    const finding = await makeFinding(t, applicationId);
    const url = `/api/findings/${finding.id}/assign`;
    const cases: [object, string][] = [
      [{}, 'body.user_id'],
      [{ dueDate: '2026-12-01' }, 'body.user_id'],
      [{ userId: 'someone' }, 'body.userId'],
      [{ userId: writer.id, dueDate: 'tomorrow' }, 'body.dueDate'],
      [{ userId: writer.id, dueDate: '2026-02-30' }, 'body.dueDate'],
      [{ userId: writer.id, due_date: '2026-12-01T25:00:00Z' }, 'body.due_date'],
      [{ userId: writer.id, dueDate: 20261201 }, 'body.dueDate'],
    ];
    for (const [payload, path] of cases) {
      const response = await patch(writer, url, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorPaths(response.json()), JSON.stringify(payload)).toContain(path);
    }
    expect((await findingRow(finding.id)).assignee_id).toBeNull();
  });

  it('404 for an unknown finding or an unknown user', async () => {
    const finding = await makeFinding(t, applicationId);
    expect((await patch(writer, '/api/findings/999999/assign', { userId: writer.id })).statusCode).toBe(404);
    const response = await patch(writer, `/api/findings/${finding.id}/assign`, { userId: 999999 });
    expect(response.statusCode).toBe(404);
    expect(response.json().detail).toContain('User');
  });

  it('400 assignee_cannot_read for a user without access, assignee_disabled for a disabled one', async () => {
    const finding = await makeFinding(t, applicationId);
    const response = await patch(writer, `/api/findings/${finding.id}/assign`, { userId: outsider.id });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('assignee_cannot_read');
    const disabled = await makeUser(t);
    await grant(t, disabled, applicationId, 'read');
    await t.db.updateTable('users').set({ disabled: true }).where('id', '=', disabled.id).execute();
    const asDisabled = await patch(writer, `/api/findings/${finding.id}/assign`, { userId: disabled.id });
    expect(asDisabled.statusCode).toBe(400);
    expect(asDisabled.json().code).toBe('assignee_disabled');
    expect((await findingRow(finding.id)).assignee_id).toBeNull();
  });

  it('200 assigns with a due date, writes the timeline and a reassigned event', async () => {
    const finding = await makeFinding(t, applicationId);
    const response = await patch(writer, `/api/findings/${finding.id}/assign`, {
      userId: reader.id,
      dueDate: '2026-12-31T12:00:00+02:00',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      assignee_id: reader.id,
      assignee: { id: reader.id, email: reader.email },
      due_date: '2026-12-31T10:00:00.000Z',
    });
    const row = await findingRow(finding.id);
    expect(row.assignee_id).toBe(reader.id);
    expect(row.due_date?.toISOString()).toBe('2026-12-31T10:00:00.000Z');
    const timeline = await timelineOf(finding.id);
    expect(timeline).toHaveLength(1);
    expect(timeline[0]).toMatchObject({
      type: 'reassigned',
      actor_user_id: writer.id,
      from_assignee_id: null,
      to_assignee_id: reader.id,
      detail: { due_date: { from: null, to: '2026-12-31T10:00:00.000Z' } },
    });
    const events = await eventsOf(finding.id);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ['finding.reassigned', { from: null, to: reader.id, due_date: '2026-12-31T10:00:00.000Z' }],
    ]);
  });

  it('keeps the due date when dueDate is omitted, clears it with null', async () => {
    const finding = await makeFinding(t, applicationId, { due_date: new Date('2026-01-16T00:00:00Z') });
    await patch(writer, `/api/findings/${finding.id}/assign`, { user_id: writer.id });
    expect((await findingRow(finding.id)).due_date?.toISOString()).toBe('2026-01-16T00:00:00.000Z');
    await patch(writer, `/api/findings/${finding.id}/assign`, { userId: admin.id });
    await patch(writer, `/api/findings/${finding.id}/assign`, { userId: null });
    const unassigned = await findingRow(finding.id);
    expect(unassigned.assignee_id).toBeNull();
    expect(unassigned.due_date?.toISOString()).toBe('2026-01-16T00:00:00.000Z');
    await patch(writer, `/api/findings/${finding.id}/assign`, { userId: null, due_date: null });
    expect((await findingRow(finding.id)).due_date).toBeNull();
    // Assigning again does not bring a cleared due date back.
    await patch(writer, `/api/findings/${finding.id}/assign`, { userId: writer.id });
    expect((await findingRow(finding.id)).due_date).toBeNull();
    const timeline = await timelineOf(finding.id);
    expect(timeline.map((entry) => [entry.from_assignee_id, entry.to_assignee_id])).toEqual([
      [null, writer.id],
      [writer.id, admin.id],
      [admin.id, null],
      [null, null],
      [null, writer.id],
    ]);
    expect(timeline[0]?.detail).toBeNull();
    expect(timeline[3]?.detail).toEqual({ due_date: { from: '2026-01-16T00:00:00.000Z', to: null } });
    const events = await eventsOf(finding.id);
    expect(events.map((event) => event.type)).toEqual(Array(4).fill('finding.reassigned'));
  });

  it('accepts a date-only due date as midnight UTC and records nothing when nothing changes', async () => {
    const finding = await makeFinding(t, applicationId);
    const first = await patch(writer, `/api/findings/${finding.id}/assign`, {
      userId: writer.id,
      dueDate: '2027-03-01',
    });
    expect(first.json().due_date).toBe('2027-03-01T00:00:00.000Z');
    const again = await patch(writer, `/api/findings/${finding.id}/assign`, {
      userId: writer.id,
      dueDate: '2027-03-01T00:00:00Z',
    });
    expect(again.statusCode).toBe(200);
    expect(await timelineOf(finding.id)).toHaveLength(1);
    expect(await eventsOf(finding.id)).toHaveLength(1);
  });
});

describe('camelCase twins, folded at the edge', () => {
  it('accepts either spelling, refuses both with different values naming the one sent, takes both when equal', async () => {
    const finding = await makeFinding(t, applicationId);
    const url = `/api/findings/${finding.id}/assign`;
    const camel = await patch(admin, url, { userId: writer.id, dueDate: '2030-01-02' });
    expect(camel.statusCode).toBe(200);
    expect(camel.json()).toMatchObject({ assignee_id: writer.id });
    expect((await findingRow(finding.id)).due_date?.toISOString()).toBe('2030-01-02T00:00:00.000Z');

    const disagreeing = await patch(admin, url, { userId: reader.id, user_id: writer.id });
    expect(disagreeing.statusCode).toBe(400);
    expect(errorPaths(disagreeing.json())).toEqual(['body.userId']);
    expect((await findingRow(finding.id)).assignee_id).toBe(writer.id);

    const badDate = await patch(admin, url, { userId: reader.id, dueDate: 'soon' });
    expect(badDate.statusCode).toBe(400);
    expect(errorPaths(badDate.json())).toEqual(['body.dueDate']);

    const same = await patch(admin, url, { userId: reader.id, user_id: reader.id });
    expect(same.statusCode).toBe(200);
    expect(same.json()).toMatchObject({ assignee_id: reader.id });
  });
});
