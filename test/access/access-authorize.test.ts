import fc from 'fast-check';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize } from '../../src/access/access.ts';
import type { Principal } from '../../src/access/principal.ts';
import type { ApplicationRef } from '../../src/access/resources.ts';
import { AppError } from '../../src/errors.ts';
import {
  grant,
  makeApplication,
  makeFinding,
  makeGroup,
  makeUser,
  type TestUser,
} from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * `authorize` resolves a list of references in one query, and its answer for the list is the answer
 * one reference at a time would give: every record in order, or the first refusal.
 */

let t: TestApp;
let admin: TestUser;
let member: TestUser;
/** Readable by `member` (and sharing its slug with `hidden`), writable, and unreadable. */
let shared: { id: number; slug: string; group_id: number };
let writable: { id: number; slug: string; group_id: number };
let hidden: { id: number; slug: string; group_id: number };
let groupPaths: string[];
const findingIds: Record<'readable' | 'writable' | 'hidden', number> = {
  readable: 0,
  writable: 0,
  hidden: 0,
};

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  member = await makeUser(t);
  const first = await makeGroup(t, admin);
  const second = await makeGroup(t, admin);
  groupPaths = [first.path, second.path];
  shared = await makeApplication(t, admin, { groupId: first.id, slug: 'shared-slug' });
  hidden = await makeApplication(t, admin, { groupId: second.id, slug: 'shared-slug' });
  writable = await makeApplication(t, admin, { groupId: first.id, slug: 'solo-slug' });
  await grant(t, member, shared.id, 'read');
  await grant(t, member, writable.id, 'write');
  findingIds.readable = (await makeFinding(t, shared.id)).id;
  findingIds.writable = (await makeFinding(t, writable.id)).id;
  findingIds.hidden = (await makeFinding(t, hidden.id)).id;
});
afterAll(() => t.close());

/** The database handle with a count of the statements it sends. */
function counted(): { db: TestApp['db']; statements: () => number } {
  let statements = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      statements += 1;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { db: t.db.withPlugin(plugin), statements: () => statements };
}

type Outcome = { ok: unknown } | { status: number; code: string; detail: string; extra: unknown };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await run() };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.status, code: error.code, detail: error.detail, extra: error.extra };
  }
}

describe('authorize', () => {
  it('answers a list of application references as one at a time would, in one statement', async () => {
    const pool: ApplicationRef[] = [
      String(shared.id),
      String(writable.id),
      String(hidden.id),
      'shared-slug',
      'solo-slug',
      'no-such-slug',
      '999999',
      '0',
      '1e3',
      { group: String(shared.group_id), slug: 'solo-slug' },
      { group: groupPaths[1] as string, slug: 'shared-slug' },
      { group: groupPaths[0] as string, slug: 'no-such-slug' },
    ];
    const principals: Principal[] = [
      member.principal,
      admin.principal,
      { kind: 'application_token', applicationId: writable.id },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...pool), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(...principals),
        fc.constantFrom('read' as const, 'write' as const),
        async (refs, principal, action) => {
          const each: Outcome[] = [];
          for (const ref of refs) {
            each.push(await outcome(() => authorize(t.db, principal, 'application', [ref], action)));
          }
          const { db, statements } = counted();
          const together = await outcome(() => authorize(db, principal, 'application', refs, action));
          expect(statements()).toBe(1);
          const refused = each.find((answer) => !('ok' in answer));
          if (refused) expect(together).toEqual(refused);
          else expect(together).toEqual({ ok: each.flatMap((answer) => ('ok' in answer ? answer.ok : [])) });
        },
      ),
      { numRuns: 40 },
    );
  });

  it('names the groups of a slug several readable applications share (409), but not one the caller cannot read', async () => {
    const ambiguous = await outcome(() =>
      authorize(t.db, admin.principal, 'application', ['shared-slug'], 'read'),
    );
    expect(ambiguous).toMatchObject({
      status: 409,
      code: 'ambiguous_slug',
      extra: { group_paths: groupPaths },
    });
    const unique = await outcome(() =>
      authorize(t.db, member.principal, 'application', ['shared-slug'], 'read'),
    );
    expect(unique).toEqual({ ok: [{ id: shared.id, group_id: shared.group_id }] });
  });

  it('lists every refused finding id of a bulk change in one statement: 404 unknown or unreadable, else 403 read-only', async () => {
    const { db, statements } = counted();
    const missing = await outcome(() =>
      authorize(
        db,
        member.principal,
        'finding',
        [findingIds.writable, findingIds.hidden, 999_999, findingIds.readable],
        'write',
        'ids',
      ),
    );
    expect(statements()).toBe(1);
    expect(missing).toMatchObject({
      status: 404,
      code: 'not_found',
      extra: { ids: [findingIds.hidden, 999_999] },
    });
    const readOnly = await outcome(() =>
      authorize(
        t.db,
        member.principal,
        'finding',
        [findingIds.readable, findingIds.writable],
        'write',
        'ids',
      ),
    );
    expect(readOnly).toMatchObject({ status: 403, code: 'forbidden', extra: { ids: [findingIds.readable] } });
    const allowed = await outcome(() =>
      authorize(t.db, member.principal, 'finding', [findingIds.writable, findingIds.readable], 'read', 'ids'),
    );
    expect(allowed).toEqual({
      ok: [
        { id: findingIds.writable, application_id: writable.id, group_id: writable.group_id },
        { id: findingIds.readable, application_id: shared.id, group_id: shared.group_id },
      ],
    });
  });

  it('refuses a single-finding triage route as its bulk twin does (ids listed), and a comment without them', async () => {
    const outsider = await makeUser(t);
    const status = (who: TestUser, id: number | string) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/findings/${id}/status`,
        headers: who.headers,
        payload: { status: 'confirmed' },
      });
    expect((await status(outsider, findingIds.readable)).json()).toMatchObject({
      status: 404,
      detail: 'Finding not found',
      ids: [findingIds.readable],
    });
    expect((await status(member, findingIds.readable)).json()).toMatchObject({
      status: 403,
      detail: `You may read but not change finding(s) ${findingIds.readable}`,
      ids: [findingIds.readable],
    });
    // Not an id: names nothing, and there is no id to list.
    expect((await status(member, 'x1')).json()).not.toHaveProperty('ids');
    const comment = await t.app.inject({
      method: 'POST',
      url: `/api/findings/${findingIds.readable}/comments`,
      headers: member.headers,
      payload: { content: 'a reader may not comment' },
    });
    expect(comment.statusCode).toBe(403);
    expect(comment.json()).not.toHaveProperty('ids');
  });
});
