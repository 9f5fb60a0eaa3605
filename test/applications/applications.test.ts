import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/secrets.ts';
import { grant, makeApplication, makeGroup, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;
let member: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  member = await makeUser(t);
  outsider = await makeUser(t);
});
afterAll(() => t.close());

describe('POST /api/applications', () => {
  it('401 without credentials', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/applications', payload: {} });
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toContain('application/problem+json');
  });

  it('403 in a group the member may only read', async () => {
    const group = await makeGroup(t, admin);
    const app = await makeApplication(t, admin, { groupId: group.id });
    await grant(t, member, app.id, 'read');
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/applications',
      headers: member.headers,
      payload: { name: 'x', slug: 'x', group_id: group.id },
    });
    expect(response.statusCode).toBe(403);
  });

  it('400 lists every invalid field', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/applications',
      headers: admin.headers,
      payload: { slug: 'has space', asset_criticality: 'extreme', group_id: 1 },
    });
    expect(response.statusCode).toBe(400);
    const paths = response.json().errors.map((error: { path: string }) => error.path);
    expect(paths).toEqual(expect.arrayContaining(['body.name', 'body.slug', 'body.asset_criticality']));
  });

  it('404 for an unknown group', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/applications',
      headers: admin.headers,
      payload: { name: 'x', slug: 'x', group_id: 999999 },
    });
    expect(response.statusCode).toBe(404);
  });

  it('201 creates the application, its default version and a token stored only hashed and sealed', async () => {
    const group = await makeGroup(t, member);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/applications',
      headers: member.headers,
      payload: {
        name: 'Shop',
        slug: 'shop',
        group_id: group.id,
        repositoryUrl: 'https://git.example/shop',
        assetCriticality: 'high',
      },
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({ name: 'Shop', slug: 'shop', group_id: group.id, asset_criticality: 'high' });
    expect(body.repository_url).toBe('https://git.example/shop');
    expect(body.api_token).toMatch(/^sht_/);
    expect(body.default_version).toMatchObject({ name: 'default', is_default: true });
    const row = await t.db
      .selectFrom('applications')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    expect(row.api_token_hash).toBe(sha256Hex(body.api_token));
    expect(row.api_token_encrypted).not.toContain(body.api_token);
    expect(t.secrets.open(row.api_token_encrypted)).toBe(body.api_token);
    // The creator may write it; nobody else sees it.
    const asOutsider = await t.app.inject({ url: `/api/applications/${body.id}`, headers: outsider.headers });
    expect(asOutsider.statusCode).toBe(404);
  });

  it('409 for a slug taken in the same group', async () => {
    const group = await makeGroup(t, admin);
    await makeApplication(t, admin, { groupId: group.id, slug: 'dup' });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/applications',
      headers: admin.headers,
      payload: { name: 'x', slug: 'dup', group_id: group.id },
    });
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('slug_taken');
  });
});

describe('GET /api/applications and /api/applications/{id}', () => {
  it('members list only what they may read; admins list everything', async () => {
    const visible = await makeApplication(t, admin);
    const hidden = await makeApplication(t, admin);
    await grant(t, outsider, visible.id, 'read');
    const listed = await t.app.inject({ url: '/api/applications', headers: outsider.headers });
    const ids = listed.json().map((app: { id: number }) => app.id);
    expect(ids).toContain(visible.id);
    expect(ids).not.toContain(hidden.id);
    const all = await t.app.inject({ url: '/api/applications', headers: admin.headers });
    expect(all.json().map((app: { id: number }) => app.id)).toEqual(
      expect.arrayContaining([visible.id, hidden.id]),
    );
  });

  it('returns the default version, never the token, and accepts a unique slug', async () => {
    const created = await makeApplication(t, admin, { slug: `solo-${Date.now()}` });
    const byId = await t.app.inject({ url: `/api/applications/${created.id}`, headers: admin.headers });
    expect(byId.statusCode).toBe(200);
    expect(byId.json().default_version.name).toBe('default');
    expect(byId.body).not.toContain(created.api_token);
    const bySlug = await t.app.inject({ url: `/api/applications/${created.slug}`, headers: admin.headers });
    expect(bySlug.json().id).toBe(created.id);
  });

  it('409 names the group paths when a slug is used in two groups', async () => {
    const first = await makeApplication(t, admin, { slug: 'twin' });
    await makeApplication(t, admin, { slug: 'twin' });
    const response = await t.app.inject({ url: '/api/applications/twin', headers: admin.headers });
    expect(response.statusCode).toBe(409);
    expect(response.json().group_paths).toHaveLength(2);
    expect(first.group_path).toBeTruthy();
  });

  it('404 for unknown, malformed and unreadable ids', async () => {
    for (const id of ['999999', '0', '-1', '1.5', 'x'.repeat(90)]) {
      const response = await t.app.inject({ url: `/api/applications/${id}`, headers: admin.headers });
      expect(response.statusCode, id).toBe(404);
    }
  });
});

describe('PUT, DELETE, regenerate-token', () => {
  it('403 for a reader, 400 for a bad field, 200 for a writer', async () => {
    const app = await makeApplication(t, admin);
    await grant(t, member, app.id, 'read');
    const asReader = await t.app.inject({
      method: 'PUT',
      url: `/api/applications/${app.id}`,
      headers: member.headers,
      payload: { name: 'n' },
    });
    expect(asReader.statusCode).toBe(403);
    const bad = await t.app.inject({
      method: 'PUT',
      url: `/api/applications/${app.id}`,
      headers: admin.headers,
      payload: { asset_criticality: 'x' },
    });
    expect(bad.statusCode).toBe(400);
    const ok = await t.app.inject({
      method: 'PUT',
      url: `/api/applications/${app.id}`,
      headers: admin.headers,
      payload: { name: 'Renamed', asset_criticality: 'critical' },
    });
    expect(ok.statusCode).toBe(200);
    const row = await t.db
      .selectFrom('applications')
      .selectAll()
      .where('id', '=', app.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ name: 'Renamed', asset_criticality: 'critical' });
  });

  it('regenerating the token retires the old one', async () => {
    const app = await makeApplication(t, admin);
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/applications/${app.id}/regenerate-token`,
      headers: admin.headers,
    });
    expect(response.statusCode).toBe(200);
    const { api_token } = response.json();
    expect(api_token).toMatch(/^sht_/);
    expect(api_token).not.toBe(app.api_token);
    const row = await t.db
      .selectFrom('applications')
      .select('api_token_hash')
      .where('id', '=', app.id)
      .executeTakeFirstOrThrow();
    expect(row.api_token_hash).toBe(sha256Hex(api_token));
  });

  it('DELETE removes the application with its versions and grants', async () => {
    const app = await makeApplication(t, admin);
    await grant(t, member, app.id, 'read');
    const missing = await t.app.inject({
      method: 'DELETE',
      url: '/api/applications/999999',
      headers: admin.headers,
    });
    expect(missing.statusCode).toBe(404);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/api/applications/${app.id}`,
      headers: admin.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: app.id, deleted: true });
    const versions = await t.db
      .selectFrom('application_versions')
      .select('id')
      .where('application_id', '=', app.id)
      .execute();
    const grants = await t.db
      .selectFrom('permission_policies')
      .select('id')
      .where('application_id', '=', app.id)
      .execute();
    expect(versions).toEqual([]);
    expect(grants).toEqual([]);
  });
});
