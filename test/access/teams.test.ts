import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;
let member: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  member = await makeUser(t);
});
afterAll(() => t.close());

async function makeTeam(name = `team-${Math.random().toString(36).slice(2, 10)}`): Promise<number> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/teams',
    headers: admin.headers,
    payload: { name },
  });
  expect(response.statusCode).toBe(201);
  return response.json().id;
}

const addMember = (teamId: number | string, headers: Record<string, string>, payload: object) =>
  t.app.inject({ method: 'POST', url: `/api/teams/${teamId}/members`, headers, payload });

const memberRows = (teamId: number) =>
  t.db.selectFrom('team_members').selectAll().where('team_id', '=', teamId).orderBy('user_id').execute();

describe('POST /api/teams', () => {
  it('401 without credentials, 403 for a member', async () => {
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/teams', payload: { name: 'a' } })).statusCode,
    ).toBe(401);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/teams',
      headers: member.headers,
      payload: { name: 'by-member' },
    });
    expect(response.statusCode).toBe(403);
    expect(await t.db.selectFrom('teams').select('id').where('name', '=', 'by-member').execute()).toEqual([]);
  });

  it('400 for a missing, empty or overlong name', async () => {
    for (const payload of [{}, { name: '' }, { name: 'n'.repeat(201) }]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/teams',
        headers: admin.headers,
        payload,
      });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().errors.map((error: { path: string }) => error.path)).toContain('body.name');
    }
  });

  it('201 creates the team; 409 team_name_taken for the same name again', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/teams',
      headers: admin.headers,
      payload: { name: 'AppSec' },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ name: 'AppSec', members: [] });
    const row = await t.db
      .selectFrom('teams')
      .selectAll()
      .where('id', '=', response.json().id)
      .executeTakeFirst();
    expect(row?.name).toBe('AppSec');

    const again = await t.app.inject({
      method: 'POST',
      url: '/api/teams',
      headers: admin.headers,
      payload: { name: 'AppSec' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('team_name_taken');
    expect(await t.db.selectFrom('teams').select('id').where('name', '=', 'AppSec').execute()).toHaveLength(
      1,
    );
  });
});

describe('GET /api/teams and /api/teams/{id}', () => {
  it('401 without credentials', async () => {
    expect((await t.app.inject({ url: '/api/teams' })).statusCode).toBe(401);
  });

  it('admins see every team; members see only their own, with members listed', async () => {
    const mine = await makeTeam();
    const theirs = await makeTeam();
    expect((await addMember(mine, admin.headers, { user_id: member.id })).statusCode).toBe(201);

    const all = await t.app.inject({ url: '/api/teams', headers: admin.headers });
    expect(all.json().map((team: { id: number }) => team.id)).toEqual(expect.arrayContaining([mine, theirs]));

    const own = await t.app.inject({ url: '/api/teams', headers: member.headers });
    expect(own.statusCode).toBe(200);
    expect(own.json().map((team: { id: number }) => team.id)).toEqual([mine]);
    expect(own.json()[0].members).toEqual([
      expect.objectContaining({ team_id: mine, user_id: member.id, email: member.email, role: 'member' }),
    ]);

    expect((await t.app.inject({ url: `/api/teams/${mine}`, headers: member.headers })).statusCode).toBe(200);
    for (const id of [theirs, 999999]) {
      const response = await t.app.inject({ url: `/api/teams/${id}`, headers: member.headers });
      expect(response.statusCode, String(id)).toBe(404);
    }
    expect((await t.app.inject({ url: `/api/teams/${theirs}`, headers: admin.headers })).statusCode).toBe(
      200,
    );
  });
});

describe('POST /api/teams/{id}/members', () => {
  it('401 without credentials, 403 for a member', async () => {
    const team = await makeTeam();
    expect((await addMember(team, {}, { user_id: member.id })).statusCode).toBe(401);
    const response = await addMember(team, member.headers, { user_id: member.id });
    expect(response.statusCode).toBe(403);
    expect(await memberRows(team)).toEqual([]);
  });

  it('400 for a missing or non-numeric user_id', async () => {
    const team = await makeTeam();
    for (const payload of [{}, { role: 'member' }, { user_id: 'abc' }, { user_id: '0' }, { user_id: 1.5 }]) {
      const response = await addMember(team, admin.headers, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().errors.map((error: { path: string }) => error.path)).toContain('body.user_id');
    }
    expect(await memberRows(team)).toEqual([]);
  });

  it('404 for an unknown team and for an unknown user', async () => {
    const unknownTeam = await addMember(999999, admin.headers, { user_id: member.id });
    expect(unknownTeam.statusCode).toBe(404);
    expect(unknownTeam.json().detail).toMatch(/team/i);
    expect((await addMember('abc', admin.headers, { user_id: member.id })).statusCode).toBe(404);
    const team = await makeTeam();
    const unknownUser = await addMember(team, admin.headers, { user_id: 999999 });
    expect(unknownUser.statusCode).toBe(404);
    expect(unknownUser.json().detail).toMatch(/user/i);
    expect(await memberRows(team)).toEqual([]);
  });

  it('201 with user_id as a number or a string (and userId); 409 already_member', async () => {
    const team = await makeTeam();
    const first = await makeUser(t);
    const second = await makeUser(t);
    const third = await makeUser(t);

    const byNumber = await addMember(team, admin.headers, { user_id: first.id, role: 'maintainer' });
    expect(byNumber.statusCode).toBe(201);
    expect(byNumber.json()).toMatchObject({ team_id: team, user_id: first.id, role: 'maintainer' });
    const byString = await addMember(team, admin.headers, { user_id: String(second.id) });
    expect(byString.statusCode).toBe(201);
    expect(byString.json()).toMatchObject({ user_id: second.id, role: 'member' });
    expect((await addMember(team, admin.headers, { userId: third.id })).statusCode).toBe(201);

    expect((await memberRows(team)).map((row) => [row.user_id, row.role])).toEqual([
      [first.id, 'maintainer'],
      [second.id, 'member'],
      [third.id, 'member'],
    ]);

    const again = await addMember(team, admin.headers, { user_id: String(first.id), role: 'member' });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('already_member');
    expect((await memberRows(team)).find((row) => row.user_id === first.id)?.role).toBe('maintainer');
  });
});

describe('DELETE /api/teams/{id}/members/{userId}', () => {
  const remove = (teamId: number | string, userId: number | string, headers: Record<string, string>) =>
    t.app.inject({ method: 'DELETE', url: `/api/teams/${teamId}/members/${userId}`, headers });

  it('401 without credentials, 403 for a member', async () => {
    const team = await makeTeam();
    await addMember(team, admin.headers, { user_id: member.id });
    expect((await remove(team, member.id, {})).statusCode).toBe(401);
    expect((await remove(team, member.id, member.headers)).statusCode).toBe(403);
    expect(await memberRows(team)).toHaveLength(1);
  });

  it('404 for an unknown team and for a user who is not a member', async () => {
    const team = await makeTeam();
    await addMember(team, admin.headers, { user_id: member.id });
    for (const [teamId, userId] of [
      [999999, member.id],
      ['abc', member.id],
      [team, admin.id],
      [team, 'abc'],
    ] as const) {
      const response = await remove(teamId, userId, admin.headers);
      expect(response.statusCode, `${teamId}/${userId}`).toBe(404);
      expect(response.json().code).toBe('not_found');
    }
    expect(await memberRows(team)).toHaveLength(1);
  });

  it('204 removes the membership row', async () => {
    const team = await makeTeam();
    const other = await makeUser(t);
    await addMember(team, admin.headers, { user_id: member.id });
    await addMember(team, admin.headers, { user_id: other.id });
    const response = await remove(team, member.id, admin.headers);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await memberRows(team)).map((row) => row.user_id)).toEqual([other.id]);
  });
});

describe('team grants', () => {
  it("a team's grant gives its members access, and leaving the team takes it away", async () => {
    const user = await makeUser(t);
    const app = await makeApplication(t, admin);
    const team = await makeTeam();
    const read = () => t.app.inject({ url: `/api/applications/${app.id}`, headers: user.headers });
    const listed = async () =>
      (await t.app.inject({ url: '/api/applications', headers: user.headers }))
        .json()
        .map((candidate: { id: number }) => candidate.id);
    expect((await read()).statusCode).toBe(404);

    const granted = await t.app.inject({
      method: 'POST',
      url: `/api/applications/${app.id}/permissions`,
      headers: admin.headers,
      payload: { subject: `team:${team}`, action: 'read' },
    });
    expect(granted.statusCode).toBe(201);
    expect((await read()).statusCode).toBe(404); // not a member yet

    expect((await addMember(team, admin.headers, { user_id: user.id })).statusCode).toBe(201);
    expect((await read()).statusCode).toBe(200);
    expect(await listed()).toEqual([app.id]);
    // read, not write
    const write = await t.app.inject({
      method: 'PUT',
      url: `/api/applications/${app.id}`,
      headers: user.headers,
      payload: { name: 'team rename' },
    });
    expect(write.statusCode).toBe(403);

    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/teams/${team}/members/${user.id}`,
      headers: admin.headers,
    });
    expect(removed.statusCode).toBe(204);
    expect((await read()).statusCode).toBe(404);
    expect(await listed()).toEqual([]);
  });
});
