import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stageInWorker } from '../../src/ingest/stage-in-worker.ts';
import type * as StageInWorker from '../../src/ingest/stage-in-worker.ts';
import type { Database } from '../../src/db/database.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif, manyResults } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * With INGEST_WORKER_MIN_BYTES=0 every upload is parsed in a worker thread, on PostgreSQL a version's
 * first upload too (inserted while it is parsed, upload-in-transaction.ts): findings land as they do
 * otherwise, a broken report is a 400 that leaves nothing behind.
 */
// The real worker, counted: every upload here must use it.
vi.mock('../../src/ingest/stage-in-worker.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof StageInWorker>();
  return { ...actual, stageInWorker: vi.fn(actual.stageInWorker) };
});

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp({ ingestWorkerMinBytes: 0 });
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

describe('uploads parsed in a worker thread', () => {
  it('ingests a report, and the same report again changes nothing', async () => {
    const app = await makeApplication(t, admin);
    const file = buildSarif({ results: manyResults(2500) });
    const headers = { 'x-api-token': app.api_token };
    const first = await upload(t, '/api/ingest', headers, { file, fileName: 'report.sarif' });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ findings_count: 2500, new_findings_count: 2500 });
    const again = await upload(t, '/api/ingest', headers, { file, fileName: 'report.sarif' });
    expect(again.json()).toMatchObject({ findings_count: 2500, new_findings_count: 0 });
    const corpus = await upload(t, '/api/ingest', headers, { file: 'corpus:bandit/many_vulns.json' });
    expect(corpus.statusCode).toBe(201);
    expect(corpus.json().findings_count).toBeGreaterThan(0);
    expect(vi.mocked(stageInWorker)).toHaveBeenCalledTimes(3);
  });

  it('answers a report broken halfway with 400 malformed_file and keeps no scan or finding of it', async () => {
    const app = await makeApplication(t, admin);
    const whole = buildSarif({ results: manyResults(2500) });
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': app.api_token },
      {
        file: whole.slice(0, Math.floor(whole.length / 2)),
        fileName: 'broken.sarif',
      },
    );
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.json().code ?? response.json().type).toMatch(/malformed_file/);
    const scans = await t.db.selectFrom('scans').select('id').where('application_id', '=', app.id).execute();
    const findings = await t.db
      .selectFrom('findings')
      .select('id')
      .where('application_id', '=', app.id)
      .execute();
    const staged = await t.db.selectFrom('ingest_staging').select('seq').execute();
    expect({ scans: scans.length, findings: findings.length, staged: staged.length }).toEqual({
      scans: 0,
      findings: 0,
      staged: 0,
    });
  });

  it('answers 503 staging_interrupted when the staging thread stops under an upload, and keeps nothing of it', async () => {
    const actual = await vi.importActual<typeof StageInWorker>('../../src/ingest/stage-in-worker.ts');
    // The real thread, stopped once the upload's first chunk is written.
    vi.mocked(stageInWorker).mockImplementationOnce((database, job, into = {}) => {
      const stopAfter =
        (copy: Database['copyFrom']): Database['copyFrom'] =>
        async (...args) => {
          await copy(...args);
          await actual.stopStagingThread();
        };
      return actual.stageInWorker({ ...database, copyFrom: stopAfter(database.copyFrom) }, job, {
        ...into,
        ...(into.copy ? { copy: stopAfter(into.copy) } : {}),
      });
    });
    const app = await makeApplication(t, admin);
    const headers = { 'x-api-token': app.api_token };
    const file = buildSarif({ results: manyResults(6000) });
    const response = await upload(t, '/api/ingest', headers, { file, fileName: 'report.sarif' });
    expect(response.statusCode, response.body).toBe(503);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.json()).toMatchObject({ code: 'staging_interrupted' });
    const left = {
      scans: (await t.db.selectFrom('scans').select('id').where('application_id', '=', app.id).execute())
        .length,
      findings: (
        await t.db.selectFrom('findings').select('id').where('application_id', '=', app.id).execute()
      ).length,
      staged: (await t.db.selectFrom('ingest_staging').select('seq').execute()).length,
    };
    expect(left).toEqual({ scans: 0, findings: 0, staged: 0 });
    // The next upload starts another thread.
    const again = await upload(t, '/api/ingest', headers, { file, fileName: 'report.sarif' });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ new_findings_count: 6000 });
  });
});
