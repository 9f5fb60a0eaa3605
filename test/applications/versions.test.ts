import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, type TestUser, makePeople, grantedApplication } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;
let writer: TestUser;
let reader: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, writer, reader, outsider } = await makePeople(t));
});
afterAll(() => t.close());

/** An application the writer may write and the reader may read. */
async function setup() {
  return grantedApplication(t, { admin, writer, reader });
}

const versionRows = (applicationId: number) =>
  t.db
    .selectFrom('application_versions')
    .selectAll()
    .where('application_id', '=', applicationId)
    .orderBy('id')
    .execute();

async function addVersion(applicationId: number, name: string, extra: { is_default?: boolean } = {}) {
  return t.db
    .insertInto('application_versions')
    .values({ application_id: applicationId, name, ...extra })
    .returningAll()
    .executeTakeFirstOrThrow();
}

describe('GET /api/applications/{id}/versions', () => {
  it('401 without credentials', async () => {
    const app = await setup();
    expect((await t.app.inject({ url: `/api/applications/${app.id}/versions` })).statusCode).toBe(401);
  });

  it('404 for an outsider and for an unknown application', async () => {
    const app = await setup();
    expect(
      (await t.app.inject({ url: `/api/applications/${app.id}/versions`, headers: outsider.headers }))
        .statusCode,
    ).toBe(404);
    expect(
      (await t.app.inject({ url: '/api/applications/999999/versions', headers: admin.headers })).statusCode,
    ).toBe(404);
  });

  it('200 lists the versions of that application only, to a reader', async () => {
    const app = await setup();
    await addVersion(app.id, 'v1');
    const other = await makeApplication(t, admin);
    await addVersion(other.id, 'elsewhere');
    const response = await t.app.inject({
      url: `/api/applications/${app.id}/versions`,
      headers: reader.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(
      response
        .json()
        .map((version: { name: string; is_default: boolean }) => [version.name, version.is_default]),
    ).toEqual([
      ['default', true],
      ['v1', false],
    ]);
    // The application's unique slug works as well as its id.
    const bySlug = await t.app.inject({
      url: `/api/applications/${app.slug}/versions`,
      headers: reader.headers,
    });
    expect(bySlug.json()).toEqual(response.json());
  });
});

describe('POST /api/applications/{id}/versions', () => {
  const create = (appRef: number | string, headers: Record<string, string>, payload: object) =>
    t.app.inject({ method: 'POST', url: `/api/applications/${appRef}/versions`, headers, payload });

  it('401 without credentials', async () => {
    const app = await setup();
    expect((await create(app.id, {}, { name: 'v1' })).statusCode).toBe(401);
  });

  it('403 for a reader; nothing is created', async () => {
    const app = await setup();
    const response = await create(app.id, reader.headers, { name: 'v1' });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('forbidden');
    expect(await versionRows(app.id)).toHaveLength(1);
  });

  it('400 per bad field', async () => {
    const app = await setup();
    const cases: [object, string][] = [
      [{}, 'body.name'],
      [{ name: '' }, 'body.name'],
      [{ name: 'n'.repeat(201) }, 'body.name'],
      [{ name: 'v1', branch: 'b'.repeat(201) }, 'body.branch'],
      [{ name: 'v1', tag: ['a', 'b'] }, 'body.tag'],
      [{ name: 'v1', is_default: 'perhaps' }, 'body.is_default'],
    ];
    for (const [payload, path] of cases) {
      const response = await create(app.id, writer.headers, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(path);
    }
    expect(await versionRows(app.id)).toHaveLength(1);
  });

  it('404 for an unknown application and for one the caller cannot read', async () => {
    expect((await create(999999, admin.headers, { name: 'v1' })).statusCode).toBe(404);
    const app = await setup();
    expect((await create(app.id, outsider.headers, { name: 'v1' })).statusCode).toBe(404);
    expect(await versionRows(app.id)).toHaveLength(1);
  });

  it('409 version_name_taken for an existing name', async () => {
    const app = await setup();
    const response = await create(app.id, writer.headers, { name: 'default' });
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('version_name_taken');
    expect(await versionRows(app.id)).toHaveLength(1);
  });

  it('201 creates the version; the same name in another application is fine', async () => {
    const app = await setup();
    const other = await makeApplication(t, admin);
    await addVersion(other.id, 'release-1');
    const response = await create(app.id, writer.headers, {
      name: 'release-1',
      branch: 'main',
      tag: 'v1.0.0',
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      application_id: app.id,
      name: 'release-1',
      branch: 'main',
      tag: 'v1.0.0',
      is_default: false,
    });
    const rows = await versionRows(app.id);
    expect(rows.map((row) => [row.name, row.branch, row.tag, row.is_default])).toEqual([
      ['default', null, null, true],
      ['release-1', 'main', 'v1.0.0', false],
    ]);
  });

  it('201 with is_default moves the default to the new version', async () => {
    const app = await setup();
    const response = await create(app.id, writer.headers, { name: 'main', is_default: true });
    expect(response.statusCode).toBe(201);
    const rows = await versionRows(app.id);
    expect(rows.filter((row) => row.is_default).map((row) => row.name)).toEqual(['main']);
  });
});

describe('GET /api/applications/{id}/versions/{versionId}', () => {
  it('401 without credentials', async () => {
    const app = await setup();
    const url = `/api/applications/${app.id}/versions/${app.default_version.id}`;
    expect((await t.app.inject({ url })).statusCode).toBe(401);
  });

  it('200 by id and by name, with a scans array', async () => {
    const app = await setup();
    const version = await addVersion(app.id, 'feature/x');
    for (const ref of [String(version.id), encodeURIComponent('feature/x')]) {
      const response = await t.app.inject({
        url: `/api/applications/${app.id}/versions/${ref}`,
        headers: reader.headers,
      });
      expect(response.statusCode, ref).toBe(200);
      expect(response.json()).toMatchObject({ id: version.id, name: 'feature/x', application_id: app.id });
      expect(Array.isArray(response.json().scans)).toBe(true);
    }
  });

  it("prefers the id over a version named like another version's id", async () => {
    const app = await setup();
    const target = await addVersion(app.id, 'target');
    await addVersion(app.id, String(target.id));
    const response = await t.app.inject({
      url: `/api/applications/${app.id}/versions/${target.id}`,
      headers: reader.headers,
    });
    expect(response.json().name).toBe('target');
  });

  it("404 for an unknown version, another application's version, and an outsider", async () => {
    const app = await setup();
    const other = await makeApplication(t, admin);
    const foreign = await addVersion(other.id, 'foreign');
    for (const ref of ['999999', 'no-such-version', String(foreign.id), 'foreign']) {
      const response = await t.app.inject({
        url: `/api/applications/${app.id}/versions/${ref}`,
        headers: admin.headers,
      });
      expect(response.statusCode, ref).toBe(404);
      expect(response.json().code).toBe('not_found');
    }
    const url = `/api/applications/${app.id}/versions/${app.default_version.id}`;
    expect((await t.app.inject({ url, headers: outsider.headers })).statusCode).toBe(404);
  });
});

describe('PATCH /api/applications/{id}/versions/{versionId}', () => {
  const patch = (appId: number, ref: number | string, headers: Record<string, string>, payload: object) =>
    t.app.inject({ method: 'PATCH', url: `/api/applications/${appId}/versions/${ref}`, headers, payload });

  it('401 without credentials, 403 for a reader', async () => {
    const app = await setup();
    const version = await addVersion(app.id, 'v1');
    expect((await patch(app.id, version.id, {}, { branch: 'x' })).statusCode).toBe(401);
    expect((await patch(app.id, version.id, reader.headers, { branch: 'x' })).statusCode).toBe(403);
    expect((await versionRows(app.id))[1]?.branch).toBeNull();
  });

  it('400 per bad field and for an empty body', async () => {
    const app = await setup();
    const version = await addVersion(app.id, 'v1');
    const cases: [object, string | null][] = [
      [{}, null],
      [{ name: '' }, 'body.name'],
      [{ is_default: false }, 'body.is_default'],
      [{ branch: 'b'.repeat(201) }, 'body.branch'],
    ];
    for (const [payload, path] of cases) {
      const response = await patch(app.id, version.id, writer.headers, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      if (path) expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(path);
    }
    expect((await versionRows(app.id))[1]).toMatchObject({ name: 'v1', is_default: false });
  });

  it('404 for an unknown version and for an outsider', async () => {
    const app = await setup();
    expect((await patch(app.id, 999999, writer.headers, { branch: 'x' })).statusCode).toBe(404);
    expect((await patch(app.id, app.default_version.id, outsider.headers, { branch: 'x' })).statusCode).toBe(
      404,
    );
  });

  it('409 version_name_taken when renaming onto an existing name', async () => {
    const app = await setup();
    const version = await addVersion(app.id, 'v1');
    const response = await patch(app.id, version.id, writer.headers, { name: 'default' });
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('version_name_taken');
    expect((await versionRows(app.id)).map((row) => row.name)).toEqual(['default', 'v1']);
  });

  it('200 renames and sets branch and tag (renaming to its own name is no conflict)', async () => {
    const app = await setup();
    const version = await addVersion(app.id, 'v1');
    const response = await patch(app.id, version.id, writer.headers, {
      name: 'v1',
      branch: 'release',
      tag: 'v1.2',
    });
    expect(response.statusCode).toBe(200);
    const renamed = await patch(app.id, 'v1', writer.headers, { name: 'v1.2', tag: null });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ id: version.id, name: 'v1.2', branch: 'release', tag: null });
    expect((await versionRows(app.id))[1]).toMatchObject({ name: 'v1.2', branch: 'release', tag: null });
  });

  it('200 with is_default moves the default; the application shows the new one', async () => {
    const app = await setup();
    const version = await addVersion(app.id, 'main');
    const response = await patch(app.id, version.id, writer.headers, { is_default: true });
    expect(response.statusCode).toBe(200);
    expect(response.json().is_default).toBe(true);
    const rows = await versionRows(app.id);
    expect(rows.filter((row) => row.is_default).map((row) => row.id)).toEqual([version.id]);
    const detail = await t.app.inject({ url: `/api/applications/${app.id}`, headers: reader.headers });
    expect(detail.json().default_version.id).toBe(version.id);
    // Making the default the default again changes nothing.
    expect((await patch(app.id, version.id, writer.headers, { is_default: true })).statusCode).toBe(200);
    expect((await versionRows(app.id)).filter((row) => row.is_default)).toHaveLength(1);
  });
});

describe('DELETE /api/applications/{id}/versions/{versionId}', () => {
  const remove = (appId: number, ref: number | string, headers: Record<string, string>) =>
    t.app.inject({ method: 'DELETE', url: `/api/applications/${appId}/versions/${ref}`, headers });

  it('401 without credentials, 403 for a reader', async () => {
    const app = await setup();
    const version = await addVersion(app.id, 'v1');
    expect((await remove(app.id, version.id, {})).statusCode).toBe(401);
    expect((await remove(app.id, version.id, reader.headers)).statusCode).toBe(403);
    expect(await versionRows(app.id)).toHaveLength(2);
  });

  it("404 for an unknown version, another application's version and an outsider", async () => {
    const app = await setup();
    const other = await makeApplication(t, admin);
    const foreign = await addVersion(other.id, 'foreign');
    expect((await remove(app.id, 999999, writer.headers)).statusCode).toBe(404);
    expect((await remove(app.id, foreign.id, admin.headers)).statusCode).toBe(404);
    expect((await remove(app.id, app.default_version.id, outsider.headers)).statusCode).toBe(404);
    expect(await versionRows(other.id)).toHaveLength(2);
  });

  it('409 default_version for the default, until another version is made default', async () => {
    const app = await setup();
    const next = await addVersion(app.id, 'next');
    const refused = await remove(app.id, app.default_version.id, writer.headers);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('default_version');
    expect(await versionRows(app.id)).toHaveLength(2);

    await t.app.inject({
      method: 'PATCH',
      url: `/api/applications/${app.id}/versions/${next.id}`,
      headers: writer.headers,
      payload: { is_default: true },
    });
    const response = await remove(app.id, app.default_version.id, writer.headers);
    expect(response.statusCode).toBe(204);
    expect((await versionRows(app.id)).map((row) => row.name)).toEqual(['next']);
  });

  it('204 deletes a version by name; a second delete is 404', async () => {
    const app = await setup();
    await addVersion(app.id, 'old');
    const response = await remove(app.id, 'old', writer.headers);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await versionRows(app.id)).map((row) => row.name)).toEqual(['default']);
    expect((await remove(app.id, 'old', writer.headers)).statusCode).toBe(404);
  });
});
