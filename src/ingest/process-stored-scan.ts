import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import {
  recordIngest,
  enrichLater,
  startVacuum,
  vacuumLater,
  type IngestJobs,
  type IngestMetrics,
} from './after-ingest.ts';
import { ingestPrepared, prepareUpload } from './pipeline.ts';
import { spoolDirOf } from './process-instance.ts';
import { removeSpooled } from './spool.ts';
import type { IngestOptions, UploadedFile } from './upload-types.ts';
import { dropUpload, restoreUpload } from './upload-store.ts';

export interface StoredScanDeps {
  db: Kysely<DB>;
  database: Database;
  jobs: IngestJobs;
  metrics: IngestMetrics;
  config: { dataDir: string; ingestWorkerMinBytes: number };
}

/**
 * Finishes an async upload from its stored file (the `ingest-scan` job). Safe to run twice: the
 * merge locks the scan row and stops when another run completed it first. A failure is recorded
 * on the scan, never thrown away silently.
 */
export async function processStoredScan(deps: StoredScanDeps, scanId: number): Promise<void> {
  const { db } = deps;
  const startedAt = performance.now();
  const scan = await db.selectFrom('scans').selectAll().where('id', '=', scanId).executeTakeFirst();
  if (!scan) return;
  if (scan.status === 'completed' || scan.status === 'failed') {
    // Another run finished it; a process that failed it and died before its cleanup left the file.
    await dropUpload(db, scanId);
    return;
  }
  const version = await db
    .selectFrom('application_versions')
    .select('name')
    .where('id', '=', scan.version_id)
    .executeTakeFirst();
  await db
    .updateTable('scans')
    .set({ status: 'processing', started_at: new Date(), updated_at: new Date() })
    .where('id', '=', scanId)
    .where('status', 'in', ['pending', 'processing'])
    .execute();
  const path = await restoreUpload(db, scanId, spoolDirOf(deps.config.dataDir));
  const file: UploadedFile = {
    path: path ?? '',
    size: Number(scan.file_size),
    sha256: scan.file_sha256,
    name: scan.file_name,
  };
  try {
    if (!path) throw new AppError(500, 'upload_lost', 'The uploaded file is no longer available');
    const prepared = await prepareUpload(db, file, scan.scanner_type ?? undefined);
    const options: IngestOptions = {
      applicationId: scan.application_id,
      versionName: version?.name,
      branch: scan.branch ?? undefined,
      category: scan.category ?? undefined,
      partial: scan.partial,
      root: scan.root ?? undefined,
      uploadedBy: scan.uploaded_by,
      uploadedVia: scan.uploaded_via,
      ...(scan.upload_audit ? { audit: scan.upload_audit as IngestOptions['audit'] } : {}),
      workerMinBytes: deps.config.ingestWorkerMinBytes,
    };
    const vacuum = vacuumLater(deps.database, deps.jobs);
    const outcome = await ingestPrepared(
      deps.database,
      prepared,
      file,
      options,
      scanId,
      async (trx, counts) => {
        // The stored upload goes with the transaction that completes its scan: a process killed
        // between the two left it behind for good (the job's next run found the scan completed).
        await dropUpload(trx, scanId);
        await vacuum?.(trx, counts);
      },
    );
    if (outcome) {
      startVacuum(deps, outcome.counts.findings);
      await enrichLater(deps, outcome.scan);
      recordIngest(deps.metrics, outcome.scan, startedAt, 'async');
    }
  } catch (error) {
    const message = error instanceof AppError ? error.detail : 'Processing failed unexpectedly';
    await db
      .updateTable('scans')
      .set({ status: 'failed', error: message, completed_at: new Date(), updated_at: new Date() })
      .where('id', '=', scanId)
      .where('status', '!=', 'completed')
      .execute();
    if (!(error instanceof AppError)) throw error;
  } finally {
    await removeSpooled(path);
    await dropUpload(db, scanId);
  }
}
