import { BUILT_IN_SLA_DAYS } from '../../src/domain/findings/sla.ts';
import { type MergeTarget } from '../../src/ingest/merge/target.ts';
import { defaultVersionId, makeApplication, scannerTypeId, type TestUser } from './factories.ts';
import type { TestApp } from './test-app.ts';

/**
 * A merge target in a new application's default version, which has no findings, with a scan of
 * its own; its rows staged in the transaction's `upload_rows` under `uploadKey`. For tests that
 * stage rows by hand and call the merge's steps directly.
 */
export async function emptyMergeTarget(t: TestApp, owner: TestUser, uploadKey: string): Promise<MergeTarget> {
  const application = await makeApplication(t, owner);
  const versionId = await defaultVersionId(t, application.id);
  const scannerType = await scannerTypeId(t);
  const scan = await t.db
    .insertInto('scans')
    .values({
      application_id: application.id,
      version_id: versionId,
      scanner_type_id: scannerType,
      scanner_type: 'sarif',
      tool_name: 'tool',
      tool_version: null,
      file_name: 'staged-by-hand.sarif',
      file_size: 0,
      file_sha256: '',
      status: 'processing',
      error: null,
      uploaded_by: null,
      uploaded_via: 'application_token',
      idempotency_key: null,
      spool_path: null,
      branch: null,
      category: null,
      root: null,
      started_at: null,
      completed_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return {
    uploadKey,
    staging: 'upload_rows',
    applicationId: application.id,
    versionId,
    scannerTypeId: scannerType,
    scanId: scan.id,
    assetWeight: 1,
    slaDays: BUILT_IN_SLA_DAYS,
    scopes: [],
    partial: false,
    coveredFiles: [],
    twinBases: [],
    stagedRows: 0,
    twinRows: 0,
  };
}
