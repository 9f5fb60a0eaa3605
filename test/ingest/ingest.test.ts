import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stagingRow } from '../support/staging-row.ts';
import { grant, makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';
import { buildSarif, manyResults } from '../support/sarif-builder.ts';

let t: TestApp;
let admin: TestUser;
let reader: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  reader = await makeUser(t);
});
afterAll(() => t.close());

const countRows = async (table: 'findings' | 'scans' | 'application_versions', applicationId: number) =>
  (await t.db.selectFrom(table).select('id').where('application_id', '=', applicationId).execute()).length;

describe('POST /api/ingest (application token)', () => {
  it("a version's first upload counts one finding per identity: a secret found twice in a file is new once", async () => {
    // gitleaks reports the same secret on two lines: one identity (no line in it, not told apart as
    // twins), so one finding. The first upload's count is the insert's; the next one's is counted.
    const leak = (line: number) => ({
      Description: 'AWS',
      StartLine: line,
      EndLine: line,
      StartColumn: 1,
      EndColumn: 20,
      Match: 'AKIAIOSFODNN7EXAMPLE',
      Secret: 'AKIAIOSFODNN7EXAMPLE',
      File: 'conf/aws.tf',
      RuleID: 'aws-access-token',
      Tags: [],
    });
    const report = JSON.stringify([leak(2), leak(9), { ...leak(4), File: 'conf/other.tf' }]);
    const app = await makeApplication(t, admin);
    const send = () =>
      upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file: report, fileName: 'gitleaks.json' });
    const first = await send();
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({
      findings_count: 2,
      new_findings_count: 2,
      existing_findings_count: 0,
    });
    const again = await send();
    expect(again.json()).toMatchObject({
      findings_count: 2,
      new_findings_count: 0,
      existing_findings_count: 2,
    });
    expect(await countRows('findings', app.id)).toBe(2);
  });

  it('401 without or with a wrong token', async () => {
    expect(
      (await upload(t, '/api/ingest', {}, { file: 'corpus:sarif/dockle_0_3_15.sarif' })).statusCode,
    ).toBe(401);
    const wrong = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': 'sht_nope' },
      { file: 'corpus:sarif/dockle_0_3_15.sarif' },
    );
    expect(wrong.statusCode).toBe(401);
  });

  it('201 ingests a real SARIF file with counts, and a scan record', async () => {
    const app = await makeApplication(t, admin);
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      {
        file: 'corpus:sarif/codeQL-output.sarif',
        fileName: 'codeql.sarif',
        fields: { version: '1.0.0', branch: 'main' },
      },
    );
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({
      findings_count: 72,
      new_findings_count: 72,
      existing_findings_count: 0,
      fixed_findings_count: 0,
    });
    expect(body.scan).toMatchObject({
      status: 'completed',
      scanner_type: 'sarif',
      file_name: 'codeql.sarif',
      uploaded_via: 'application_token',
    });
    expect(body.scan.file_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await countRows('findings', app.id)).toBe(72);
    const version = await t.db
      .selectFrom('application_versions')
      .selectAll()
      .where('id', '=', body.scan.version_id)
      .executeTakeFirstOrThrow();
    expect(version).toMatchObject({ name: '1.0.0', branch: 'main' });
    const staging = await t.db.selectFrom('ingest_staging').select('fingerprint').execute();
    expect(staging).toEqual([]);
  });

  it('400 for an unknown format, naming the supported ones, and writes nothing', async () => {
    const app = await makeApplication(t, admin);
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      { file: 'hello,world\n1,2\n' },
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('unsupported_format');
    expect(response.json().detail).toContain('sarif');
    expect(await countRows('scans', app.id)).toBe(0);
  });

  it('400 for a truncated file, and nothing is written, not even the named version', async () => {
    const app = await makeApplication(t, admin);
    const truncated =
      '{"version":"2.1.0","$schema":"https://json.schemastore.org/sarif-2.1.0.json","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"a","message":{"text":"m"}},';
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      { file: truncated, fields: { version: 'never' } },
    );
    expect(response.statusCode).toBe(400);
    expect(await countRows('scans', app.id)).toBe(0);
    expect(await countRows('findings', app.id)).toBe(0);
    expect(await countRows('application_versions', app.id)).toBe(1);
  });

  it('400 for a file that breaks after several staged COPY chunks: no finding, no scan, no staging row', async () => {
    const app = await makeApplication(t, admin);
    const sarif = buildSarif({ results: manyResults(6000) });
    // The last result holds a bare word: well-formed enough for the first pass (which skips results
    // unparsed), so thousands of results, megabytes of COPY rows, are staged before the parser fails.
    const last = sarif.lastIndexOf('"ruleId"');
    const broken = `${sarif.slice(0, last)}"ruleId":unquoted,${sarif.slice(last)}`;
    const response = await upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file: broken });
    expect(response.statusCode).toBe(400);
    expect(await countRows('scans', app.id)).toBe(0);
    expect(await countRows('findings', app.id)).toBe(0);
    expect(await t.db.selectFrom('ingest_staging').select('upload_key').execute()).toEqual([]);
  });

  it('400 without a file, for an empty file, and for a JSON body', async () => {
    const app = await makeApplication(t, admin);
    const headers = { 'x-api-token': app.api_token };
    expect((await upload(t, '/api/ingest', headers, { fields: { version: 'x' } })).json().code).toBe(
      'file_required',
    );
    expect((await upload(t, '/api/ingest', headers, { file: Buffer.alloc(0) })).json().code).toBe(
      'empty_file',
    );
    const json = await t.app.inject({ method: 'POST', url: '/api/ingest', headers, payload: { file: 'x' } });
    expect(json.statusCode).toBe(400);
  });

  it('413 above the upload limit', async () => {
    const small = await createTestApp({ uploadLimitBytes: 2048 });
    try {
      const owner = await makeUser(small, { role: 'admin' });
      const app = await makeApplication(small, owner);
      const response = await upload(
        small,
        '/api/ingest',
        { 'x-api-token': app.api_token },
        { file: Buffer.alloc(10_000, 'a') },
      );
      expect(response.statusCode).toBe(413);
      expect(response.headers['content-type']).toContain('application/problem+json');
    } finally {
      await small.close();
    }
  });

  it('400 when the scanner type is disabled', async () => {
    const app = await makeApplication(t, admin);
    await t.db.updateTable('scanner_types').set({ enabled: false }).where('name', '=', 'sarif').execute();
    try {
      const response = await upload(
        t,
        '/api/ingest',
        { 'x-api-token': app.api_token },
        { file: 'corpus:sarif/dockle_0_3_15.sarif' },
      );
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('scanner_type_disabled');
    } finally {
      await t.db.updateTable('scanner_types').set({ enabled: true }).where('name', '=', 'sarif').execute();
    }
  });

  it('accepts gzip uploads', async () => {
    const { gzipSync } = await import('node:zlib');
    const { readFileSync } = await import('node:fs');
    const { corpusPath } = await import('../support/parse-corpus.ts');
    const app = await makeApplication(t, admin);
    const gz = gzipSync(readFileSync(corpusPath('sarif/dockle_0_3_15.sarif')));
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      { file: gz, fileName: 'r.sarif.gz' },
    );
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().findings_count).toBe(4);
  });
});

describe('POST /api/applications/{id}/ingest and the group route', () => {
  it('rejects the app token alone (401), a reader (403), unknown app (404)', async () => {
    const app = await makeApplication(t, admin);
    await grant(t, reader, app.id, 'read');
    const form = { file: 'corpus:sarif/dockle_0_3_15.sarif' };
    expect(
      (await upload(t, `/api/applications/${app.id}/ingest`, { 'x-api-token': app.api_token }, form))
        .statusCode,
    ).toBe(401);
    expect((await upload(t, `/api/applications/${app.id}/ingest`, reader.headers, form)).statusCode).toBe(
      403,
    );
    expect((await upload(t, '/api/applications/999999/ingest', admin.headers, form)).statusCode).toBe(404);
    const ok = await upload(t, `/api/applications/${app.id}/ingest`, admin.headers, {
      ...form,
      fields: { scannerType: 'sarif' },
    });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().scan.uploaded_by).toBe(admin.id);
  });

  it('group route takes the group id or path plus the slug', async () => {
    const app = await makeApplication(t, admin);
    const form = { file: 'corpus:sarif/dockle_0_3_15.sarif' };
    const byPath = await upload(
      t,
      `/api/groups/${app.group_path}/applications/${app.slug}/ingest`,
      admin.headers,
      form,
    );
    expect(byPath.statusCode, byPath.body).toBe(201);
    const byId = await upload(
      t,
      `/api/groups/${app.group_id}/applications/${app.slug}/ingest`,
      admin.headers,
      form,
    );
    expect(byId.json()).toMatchObject({ new_findings_count: 0, existing_findings_count: 4 });
    expect(
      (await upload(t, `/api/groups/${app.group_id}/applications/nope/ingest`, admin.headers, form))
        .statusCode,
    ).toBe(404);
  });
});

describe('async and idempotent uploads', () => {
  it('?async=true answers 202 with a pending scan that the queue completes', async () => {
    const app = await makeApplication(t, admin);
    const response = await upload(
      t,
      '/api/ingest?async=true',
      { 'x-api-token': app.api_token },
      { file: 'corpus:sarif/flawfinder.sarif' },
    );
    expect(response.statusCode).toBe(202);
    expect(response.json().scan.status).toBe('pending');
    await t.jobs.drained('ingest-scan');
    const scan = await t.app.inject({ url: `/api/scans/${response.json().scan.id}`, headers: admin.headers });
    expect(scan.json()).toMatchObject({ status: 'completed', findings_count: 53, new_findings_count: 53 });
  });

  it('a failing async upload ends as a failed scan with the reason', async () => {
    const app = await makeApplication(t, admin);
    const response = await upload(
      t,
      '/api/ingest?async=true',
      { 'x-api-token': app.api_token },
      {
        file: '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[',
      },
    );
    expect(response.statusCode).toBe(202);
    await t.jobs.drained('ingest-scan');
    const scan = await t.db
      .selectFrom('scans')
      .selectAll()
      .where('id', '=', response.json().scan.id)
      .executeTakeFirstOrThrow();
    expect(scan.status).toBe('failed');
    expect(scan.error).toMatch(/could not be read/);
    expect(await countRows('findings', app.id)).toBe(0);
  });

  it('a retried upload with the same Idempotency-Key replays the first result', async () => {
    const app = await makeApplication(t, admin);
    const headers = { 'x-api-token': app.api_token, 'idempotency-key': 'ci-run-42' };
    const first = await upload(t, '/api/ingest', headers, { file: 'corpus:sarif/dockle_0_3_15.sarif' });
    const second = await upload(t, '/api/ingest', headers, { file: 'corpus:sarif/dockle_0_3_15.sarif' });
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json().scan.id).toBe(first.json().scan.id);
    expect(await countRows('scans', app.id)).toBe(1);
  });
});

describe('empty reports', () => {
  it('an empty trivy report (named) fixes what trivy found before; an empty [] without a type is a 400', async () => {
    const app = await makeApplication(t, admin);
    const headers = { 'x-api-token': app.api_token };
    const first = await upload(t, '/api/ingest', headers, { file: 'corpus:trivy/scheme_2_many_vulns.json' });
    expect(first.json().new_findings_count).toBe(5);
    const clean = await upload(t, '/api/ingest', headers, { file: 'corpus:trivy/scheme_2_no_vuln.json' });
    expect(clean.json()).toMatchObject({ findings_count: 0, fixed_findings_count: 5 });
    const ambiguous = await upload(t, '/api/ingest', headers, { file: '[]' });
    expect(ambiguous.json().code).toBe('ambiguous_empty_report');
    const named = await upload(t, '/api/ingest', headers, {
      file: Buffer.alloc(0),
      fields: { scannerType: 'nuclei' },
    });
    expect(named.statusCode).toBe(201);
  });

  it('a corrupt gzip upload is a 400, not a 500', async () => {
    const { gzipSync } = await import('node:zlib');
    const app = await makeApplication(t, admin);
    const gz = gzipSync(Buffer.from(buildSarifText()));
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      { file: gz.subarray(0, gz.length - 12) },
    );
    expect(response.statusCode).toBe(400);
    expect(await countRows('scans', app.id)).toBe(0);
  });
});

function buildSarifText(): string {
  return JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [] }] });
}

describe('abandoned staging', () => {
  it('removes staged rows of uploads older than the cut-off and keeps recent ones', async () => {
    const { discardAbandonedStaging, newUploadKey } = await import('../../src/ingest/stage.ts');
    const now = Date.now();
    const row = (key: string) => stagingRow({ upload_key: key, seq: 0 });
    const old = newUploadKey(now - 7 * 3_600_000);
    const recent = newUploadKey(now - 60_000);
    await t.db
      .insertInto('ingest_staging')
      .values([row(old), row(recent)])
      .execute();
    expect(await discardAbandonedStaging(t.db, 6 * 3_600_000, now)).toBe(1);
    const left = await t.db.selectFrom('ingest_staging').select('upload_key').execute();
    expect(left).toEqual([{ upload_key: recent }]);
    await t.db.deleteFrom('ingest_staging').execute();
  });
});

describe('staging after an upload', () => {
  it('keeps the rows of another upload still staging, and on PGlite leaves the table truncated once none is', async () => {
    const { discardUploadStaging, newUploadKey, stagingBegins } = await import('../../src/ingest/stage.ts');
    const { sql } = await import('kysely');
    const pages = async () =>
      (await sql<{ bytes: string }>`select pg_relation_size('ingest_staging') as bytes`.execute(t.db))
        .rows[0]!.bytes;
    const other = newUploadKey();
    stagingBegins(t.database, other);
    await t.db
      .insertInto('ingest_staging')
      .values(stagingRow({ upload_key: other, seq: 0 }))
      .execute();

    const app = await makeApplication(t, admin);
    const file = buildSarif({ results: manyResults(300) });
    expect((await upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file })).statusCode).toBe(201);
    // The upload's own rows are gone, the other upload's row is still there.
    expect(await t.db.selectFrom('ingest_staging').select('upload_key').execute()).toEqual([
      { upload_key: other },
    ]);

    await discardUploadStaging(t.database, other, true);
    expect(await t.db.selectFrom('ingest_staging').select('upload_key').execute()).toEqual([]);
    // A delete leaves the table's pages behind; PGlite's last upload truncates it instead.
    if (t.database.kind === 'pglite') expect(Number(await pages())).toBe(0);
  });
});
