import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARSERS } from '../../src/ingest/parse/parsers/index.ts';
import { makeUser, type TestUser } from '../support/factories.ts';
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

const scannerRow = (name: string) =>
  t.db.selectFrom('scanner_types').selectAll().where('name', '=', name).executeTakeFirstOrThrow();

const put = (ref: string | number, headers: Record<string, string>, payload: object) =>
  t.app.inject({ method: 'PUT', url: `/api/admin/scanner-types/${ref}`, headers, payload });

describe('GET /api/scanner-types', () => {
  it('401 without credentials', async () => {
    expect((await t.app.inject({ url: '/api/scanner-types' })).statusCode).toBe(401);
  });

  it('lists sarif and every registered parser, enabled, to any member', async () => {
    const response = await t.app.inject({ url: '/api/scanner-types', headers: member.headers });
    expect(response.statusCode).toBe(200);
    const types: { name: string; display_name: string; enabled: boolean }[] = response.json();
    const names = types.map((type) => type.name);
    expect(names).toContain('sarif');
    expect([...names].sort()).toEqual(PARSERS.map((parser) => parser.name).sort());
    for (const parser of PARSERS) {
      expect(types.find((type) => type.name === parser.name)).toMatchObject({
        display_name: parser.displayName,
        enabled: true,
      });
    }
  });
});

describe('PUT /api/admin/scanner-types/{id}', () => {
  it('401 without credentials, 403 for a member', async () => {
    expect((await put('sarif', {}, { enabled: false })).statusCode).toBe(401);
    const response = await put('sarif', member.headers, { enabled: false });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('admin_required');
    expect((await scannerRow('sarif')).enabled).toBe(true);
  });

  it('400 for a missing or non-boolean enabled', async () => {
    for (const payload of [
      {},
      { enabled: 'sometimes' },
      { enabled: [true, false] },
      { enabled: { on: true } },
    ]) {
      const response = await put('sarif', admin.headers, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().errors.map((error: { path: string }) => error.path)).toContain('body.enabled');
    }
    expect((await scannerRow('sarif')).enabled).toBe(true);
  });

  it('404 for an unknown id or name', async () => {
    for (const ref of ['999999', 'no-such-scanner', '0']) {
      const response = await put(ref, admin.headers, { enabled: false });
      expect(response.statusCode, ref).toBe(404);
      expect(response.json().code).toBe('not_found');
    }
    const disabled = await t.db
      .selectFrom('scanner_types')
      .select('name')
      .where('enabled', '=', false)
      .execute();
    expect(disabled).toEqual([]);
  });

  it('200 by name changes the row, and the list shows it', async () => {
    const before = await scannerRow('sarif');
    const response = await put('sarif', admin.headers, { enabled: false });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: before.id, name: 'sarif', enabled: false });
    const after = await scannerRow('sarif');
    expect(after.enabled).toBe(false);
    expect(after.updated_at.getTime()).toBeGreaterThanOrEqual(before.updated_at.getTime());
    const listed = await t.app.inject({ url: '/api/scanner-types', headers: member.headers });
    expect(listed.json().find((type: { name: string }) => type.name === 'sarif').enabled).toBe(false);
    // Only that row changed.
    const disabled = await t.db
      .selectFrom('scanner_types')
      .select('name')
      .where('enabled', '=', false)
      .execute();
    expect(disabled).toEqual([{ name: 'sarif' }]);
  });

  it('200 by id, and back again', async () => {
    const target = PARSERS.find((parser) => parser.name !== 'sarif');
    if (!target) throw new Error('need a second parser');
    const row = await scannerRow(target.name);
    const off = await put(row.id, admin.headers, { enabled: false });
    expect(off.statusCode).toBe(200);
    expect((await scannerRow(target.name)).enabled).toBe(false);
    const on = await put(String(row.id), admin.headers, { enabled: true });
    expect(on.statusCode).toBe(200);
    expect(on.json()).toMatchObject({ id: row.id, name: target.name, enabled: true });
    expect((await scannerRow(target.name)).enabled).toBe(true);
  });
});
