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

function post(user: TestUser | null, findingId: number | string, payload: object) {
  return t.app.inject({
    method: 'POST',
    url: `/api/findings/${findingId}/comments`,
    payload,
    ...(user ? { headers: user.headers } : {}),
  });
}

const commentsOf = (findingId: number) =>
  t.db.selectFrom('finding_comments').selectAll().where('finding_id', '=', findingId).orderBy('id').execute();

describe('POST /api/findings/{id}/comments', () => {
  it('401 without credentials, 403 for a reader', async () => {
    const finding = await makeFinding(t, applicationId);
    expect((await post(null, finding.id, { content: 'x' })).statusCode).toBe(401);
    expect((await post(reader, finding.id, { content: 'x' })).statusCode).toBe(403);
    expect(await commentsOf(finding.id)).toEqual([]);
  });

  it('400 for missing, empty, blank or too long content and a bad parent', async () => {
    const finding = await makeFinding(t, applicationId);
    const other = await makeFinding(t, applicationId);
    const elsewhere = await post(writer, other.id, { content: 'on another finding' });
    const cases: [object, string, string][] = [
      [{}, 'body.content', 'validation_failed'],
      [{ content: '' }, 'body.content', 'validation_failed'],
      [{ content: ' \n\t ' }, 'body.content', 'validation_failed'],
      [{ content: 'x'.repeat(10_001) }, 'body.content', 'validation_failed'],
      [{ content: 'x', parent_id: 'first' }, 'body.parent_id', 'validation_failed'],
      [{ content: 'x', parent_id: elsewhere.json().id }, 'body.parent_id', 'invalid_parent'],
      [{ content: 'x', parentId: 999999 }, 'body.parentId', 'invalid_parent'],
    ];
    for (const [payload, path, code] of cases) {
      const response = await post(writer, finding.id, payload);
      const label = JSON.stringify(payload).slice(0, 60);
      expect(response.statusCode, label).toBe(400);
      expect(response.json().code, label).toBe(code);
      expect(
        response.json().errors.map((error: { path: string }) => error.path),
        label,
      ).toContain(path);
    }
    expect(await commentsOf(finding.id)).toEqual([]);
  });

  it('404 for unknown, malformed and unreadable findings', async () => {
    const finding = await makeFinding(t, applicationId);
    expect((await post(admin, 999999, { content: 'x' })).statusCode).toBe(404);
    expect((await post(admin, 'abc', { content: 'x' })).statusCode).toBe(404);
    expect((await post(outsider, finding.id, { content: 'x' })).statusCode).toBe(404);
  });

  it('201 creates a comment and a reply, with timeline entries naming the author', async () => {
    const finding = await makeFinding(t, applicationId);
    const maximal = 'y'.repeat(10_000);
    const created = await post(writer, finding.id, { content: maximal });
    expect(created.statusCode).toBe(201);
    const comment = created.json();
    expect(comment).toMatchObject({
      finding_id: finding.id,
      parent_id: null,
      depth: 0,
      author: { id: writer.id, email: writer.email },
      content: maximal,
    });
    expect(new Date(comment.created_at).toISOString()).toBe(comment.created_at);

    const reply = await post(admin, finding.id, { content: 'Agreed', parentId: comment.id });
    expect(reply.statusCode).toBe(201);
    expect(reply.json()).toMatchObject({ parent_id: comment.id, depth: 1, author: { id: admin.id } });

    const stored = await commentsOf(finding.id);
    expect(stored.map((row) => [row.author_id, row.parent_id, row.content.length])).toEqual([
      [writer.id, null, 10_000],
      [admin.id, comment.id, 6],
    ]);
    const timeline = await t.db
      .selectFrom('finding_events')
      .selectAll()
      .where('finding_id', '=', finding.id)
      .orderBy('id')
      .execute();
    expect(timeline.map((entry) => [entry.type, entry.actor_user_id, entry.detail])).toEqual([
      ['commented', writer.id, { comment_id: comment.id }],
      ['commented', admin.id, { comment_id: reply.json().id, parent_id: comment.id }],
    ]);
  });
});

describe('GET /api/findings/{id}/comments', () => {
  it('401, 404 for an unreadable finding', async () => {
    const finding = await makeFinding(t, applicationId);
    expect((await t.app.inject({ url: `/api/findings/${finding.id}/comments` })).statusCode).toBe(401);
    const response = await t.app.inject({
      url: `/api/findings/${finding.id}/comments`,
      headers: outsider.headers,
    });
    expect(response.statusCode).toBe(404);
  });

  it('lists comments in thread order: parents before their replies, depth-first', async () => {
    const finding = await makeFinding(t, applicationId);
    const first = (await post(writer, finding.id, { content: 'first' })).json();
    const second = (await post(writer, finding.id, { content: 'second' })).json();
    const toFirst = (
      await post(admin, finding.id, { content: 'reply to first', parent_id: first.id })
    ).json();
    const toSecond = (
      await post(admin, finding.id, { content: 'reply to second', parent_id: second.id })
    ).json();
    const nested = (await post(writer, finding.id, { content: 'nested', parent_id: toFirst.id })).json();
    const late = (await post(writer, finding.id, { content: 'late reply', parent_id: first.id })).json();
    const response = await t.app.inject({
      url: `/api/findings/${finding.id}/comments`,
      headers: reader.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(
      response.json().map((comment: { id: number; depth: number }) => [comment.id, comment.depth]),
    ).toEqual([
      [first.id, 0],
      [toFirst.id, 1],
      [nested.id, 2],
      [late.id, 1],
      [second.id, 0],
      [toSecond.id, 1],
    ]);
    const empty = await makeFinding(t, applicationId);
    const none = await t.app.inject({ url: `/api/findings/${empty.id}/comments`, headers: reader.headers });
    expect(none.json()).toEqual([]);
  });

  it('shows a comment whose author was deleted with author null', async () => {
    const finding = await makeFinding(t, applicationId);
    const leaver = await makeUser(t);
    await grant(t, leaver, applicationId, 'write');
    await post(leaver, finding.id, { content: 'bye' });
    await t.db.deleteFrom('api_keys').where('user_id', '=', leaver.id).execute();
    await t.db.deleteFrom('permission_policies').where('user_id', '=', leaver.id).execute();
    await t.db.deleteFrom('users').where('id', '=', leaver.id).execute();
    const response = await t.app.inject({
      url: `/api/findings/${finding.id}/comments`,
      headers: reader.headers,
    });
    expect(response.json()).toEqual([expect.objectContaining({ content: 'bye', author: null })]);
    const timeline = await t.app.inject({
      url: `/api/findings/${finding.id}/timeline`,
      headers: reader.headers,
    });
    expect(timeline.json()[1]).toMatchObject({
      type: 'commented',
      actor: { type: 'system', name: 'deleted-user' },
    });
  });
});
