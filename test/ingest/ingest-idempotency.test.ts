import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const report = (ruleId: string) => buildSarif({ results: [{ ruleId, path: 'src/a.js', line: 3 }] });
const scanCount = async (applicationId: number) =>
  (await t.db.selectFrom('scans').select('id').where('application_id', '=', applicationId).execute()).length;
const spooled = (): string[] => {
  try {
    const uploads = join(t.config.dataDir, 'uploads');
    // Files only: the per-process spool directory itself stays.
    return readdirSync(uploads, { recursive: true })
      .map(String)
      .filter((name) => statSync(join(uploads, name)).isFile());
  } catch {
    return [];
  }
};

describe('Idempotency-Key', () => {
  it('same key, same file and version: the first result is replayed', async () => {
    const app = await makeApplication(t, admin);
    const headers = { 'x-api-token': app.api_token, 'idempotency-key': 'build-7' };
    const form = { file: report('R1'), fields: { version: '1.0' } };
    const first = await upload(t, '/api/ingest', headers, form);
    const retry = await upload(t, '/api/ingest', headers, form);
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json().scan.id).toBe(first.json().scan.id);
    expect(await scanCount(app.id)).toBe(1);
  });

  it('same key with other content: 422 idempotency_key_reused, the upload is not dropped silently', async () => {
    const app = await makeApplication(t, admin);
    const headers = { 'x-api-token': app.api_token, 'idempotency-key': 'build-8' };
    expect((await upload(t, '/api/ingest', headers, { file: report('R1') })).statusCode).toBe(201);
    const reused = await upload(t, '/api/ingest', headers, { file: report('R2') });
    expect(reused.statusCode).toBe(422);
    expect(reused.json()).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    expect(await scanCount(app.id)).toBe(1);
    expect(spooled()).toEqual([]);
  });

  it('same key and file for another version, branch, scanner type, category, partial flag or root: 422', async () => {
    const app = await makeApplication(t, admin);
    const headers = { 'x-api-token': app.api_token, 'idempotency-key': 'build-9' };
    const file = report('R1');
    const first = await upload(t, '/api/ingest', headers, { file, fields: { version: '1.0' } });
    expect(first.statusCode).toBe(201);
    const variants: Record<string, string>[] = [
      { version: '2.0' },
      {},
      { version: '1.0', branch: 'main' },
      { version: '1.0', scannerType: 'semgrep' },
      { version: '1.0', category: 'packages/api' },
      { version: '1.0', partial: 'true' },
      { version: '1.0', root: '/home/runner/work/app' },
    ];
    for (const fields of variants) {
      const other = await upload(t, '/api/ingest', headers, { file, fields });
      expect(other.statusCode, JSON.stringify(fields)).toBe(422);
      expect(other.json().code).toBe('idempotency_key_reused');
    }
    expect(await scanCount(app.id)).toBe(1);
    // Refused before anything was written: no version "2.0" appeared.
    const versions = await t.db
      .selectFrom('application_versions')
      .select('name')
      .where('application_id', '=', app.id)
      .execute();
    expect(versions.map((v) => v.name).sort()).toEqual(['1.0', 'default']);
  });

  it('the same key in another application is another upload', async () => {
    const [one, two] = [await makeApplication(t, admin), await makeApplication(t, admin)];
    const file = report('R1');
    for (const app of [one, two]) {
      const response = await upload(
        t,
        '/api/ingest',
        { 'x-api-token': app.api_token, 'idempotency-key': 'shared-key' },
        { file },
      );
      expect(response.statusCode).toBe(201);
      expect(response.headers['idempotent-replayed']).toBeUndefined();
    }
  });
});
