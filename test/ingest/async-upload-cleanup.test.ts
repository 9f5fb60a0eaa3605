import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as spool from '../../src/ingest/spool.ts';
import { processStoredScan } from '../../src/ingest/process-stored-scan.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif, manyResults } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * An async upload's file is stored in the database until its scan finishes. It must never outlive
 * the scan: a process that completed the scan and died before its cleanup left the file for good,
 * since the job's next run found the scan completed and returned (seen in the scale-out test).
 */
vi.mock('../../src/ingest/spool.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof spool>();
  return { ...actual, removeSpooled: vi.fn(actual.removeSpooled) };
});

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const storedChunks = async (scanId: number) =>
  (await t.db.selectFrom('upload_chunks').select('seq').where('scan_id', '=', scanId).execute()).length;

async function asyncUpload(): Promise<number> {
  const app = await makeApplication(t, admin);
  const response = await upload(
    t,
    '/api/ingest?async=true',
    { 'x-api-token': app.api_token },
    { file: buildSarif({ results: manyResults(300) }) },
  );
  expect(response.statusCode).toBe(202);
  return (response.json() as { scan: { id: number } }).scan.id;
}

describe("an async upload's stored file", () => {
  it('goes with the transaction that completes its scan, whatever happens after it', async () => {
    // The route removes its received file (the first call); the job's run dies after the merge
    // committed: its cleanup throws before it drops the stored file (the second).
    const actual = await vi.importActual<typeof spool>('../../src/ingest/spool.ts');
    vi.mocked(spool.removeSpooled)
      .mockImplementationOnce(actual.removeSpooled)
      .mockRejectedValueOnce(new Error('killed after the commit'));
    const scanId = await asyncUpload();
    await t.jobs.drained('ingest-scan');
    const scan = await t.db
      .selectFrom('scans')
      .select(['status', 'findings_count'])
      .where('id', '=', scanId)
      .executeTakeFirstOrThrow();
    expect(scan).toEqual({ status: 'completed', findings_count: 300 });
    expect(vi.mocked(spool.removeSpooled)).toHaveBeenCalledTimes(2);
    expect(await storedChunks(scanId)).toBe(0);
  });

  it('left by an earlier process beside a finished scan, is dropped by the next run of its job', async () => {
    const scanId = await asyncUpload();
    await t.jobs.drained('ingest-scan');
    await t.db
      .insertInto('upload_chunks')
      .values({ scan_id: scanId, seq: 0, data: Buffer.from('left behind') })
      .execute();
    await processStoredScan(t, scanId);
    expect(await storedChunks(scanId)).toBe(0);
    const scan = await t.db
      .selectFrom('scans')
      .select('status')
      .where('id', '=', scanId)
      .executeTakeFirstOrThrow();
    expect(scan.status).toBe('completed');
  });
});
