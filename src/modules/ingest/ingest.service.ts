import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { Jobs } from '../../jobs/job-map.ts';
import type { Metrics } from '../../observability/metrics.ts';
import { ingestPrepared, prepareUpload } from '../../ingest/pipeline.ts';
import type { InMergeTransaction, IngestOptions, UploadedFile } from '../../ingest/upload-types.ts';
import { resolveVersion } from '../../ingest/resolve-version.ts';
import { uploadScanRow } from '../../ingest/upload-merge.ts';
import { spoolDirOf } from '../../ingest/process-instance.ts';
import { removeSpooled } from '../../ingest/spool.ts';
import { dropUpload, restoreUpload, storeUpload } from '../../ingest/upload-store.ts';
import { presentScan, type ScanRecord } from '../scans/scans.presenter.ts';

/** PGlite has no autovacuum: clean up after uploads big enough to leave many dead rows. */
const MAINTAIN_AFTER_FINDINGS = 10_000;

/** Whether an upload left enough dead rows on PGlite to be vacuumed after its answer. */
function needsVacuum(database: Database, findings: number): boolean {
  return database.kind === 'pglite' && findings >= MAINTAIN_AFTER_FINDINGS;
}

/**
 * Asks for the vacuum of what a big upload churned, in its merge transaction: a background job
 * (`vacuum-after-ingest`) does it after the answer, yielding to requests on PGlite's one session, as
 * PostgreSQL's autovacuum would. PostgreSQL needs none.
 */
function vacuumLater(database: Database, jobs: Pick<Jobs, 'send'>): InMergeTransaction | undefined {
  if (database.kind !== 'pglite') return undefined;
  return async (trx, counts) => {
    if (needsVacuum(database, counts.findings)) await jobs.send(trx, 'vacuum-after-ingest', {});
  };
}

/** Starts the vacuum `vacuumLater` queued, now that its transaction has committed. */
function startVacuum(deps: Pick<IngestDeps, 'database' | 'jobs'>, findings: number): void {
  if (needsVacuum(deps.database, findings)) deps.jobs.wake('vacuum-after-ingest');
}

export interface IngestDeps {
  db: Kysely<DB>;
  database: Database;
  jobs: Pick<Jobs, 'send' | 'wake'>;
  metrics: IngestMetrics;
  config: Pick<Config, 'ingestWorkerMinBytes'>;
}

type IngestMetrics = Pick<Metrics, 'ingestDuration' | 'ingestBytes' | 'ingestFindings'>;

/** One completed upload in the metrics: its duration, size and findings, by format. */
function recordIngest(
  metrics: IngestMetrics,
  scan: { scanner_type: string | null; file_size: number | string; findings_count: number },
  startedAt: number,
  mode: 'sync' | 'async',
): void {
  const format = scan.scanner_type ?? 'unknown';
  metrics.ingestDuration.observe({ format, mode }, (performance.now() - startedAt) / 1000);
  metrics.ingestBytes.inc({ format }, Number(scan.file_size));
  metrics.ingestFindings.inc({ format }, scan.findings_count);
}

export interface IngestResponse {
  status: 201 | 202;
  replayed: boolean;
  body: {
    scan: ScanRecord;
    findings_count: number;
    new_findings_count: number;
    existing_findings_count: number;
    fixed_findings_count: number;
  };
}

function responseFor(scan: ScanRecord, replayed: boolean): IngestResponse {
  return {
    status: scan.status === 'completed' ? 201 : 202,
    replayed,
    body: {
      scan,
      findings_count: scan.findings_count,
      new_findings_count: scan.new_findings_count,
      existing_findings_count: scan.existing_findings_count,
      fixed_findings_count: scan.fixed_findings_count,
    },
  };
}

/** The version an upload with these options goes to, if it exists yet (no version is created). */
async function targetVersionId(db: Kysely<DB>, options: IngestOptions): Promise<number | undefined> {
  const name = options.versionName ?? options.branch;
  let query = db
    .selectFrom('application_versions')
    .select('id')
    .where('application_id', '=', options.applicationId);
  query = name === undefined ? query.where('is_default', '=', true) : query.where('name', '=', name);
  return (await query.executeTakeFirst())?.id;
}

/**
 * The first upload's result when this one repeats it: same `Idempotency-Key` for the application,
 * same content (sha256), same target version, branch, scanner type, category, partial flag and root
 * (they change what the upload closes and how its paths read). The same key with anything
 * else is a client bug that would silently drop this upload: 422 `idempotency_key_reused`.
 */
async function replay(
  db: Kysely<DB>,
  file: UploadedFile,
  options: IngestOptions,
): Promise<IngestResponse | null> {
  if (!options.idempotencyKey) return null;
  const row = await db
    .selectFrom('scans')
    .selectAll()
    .where('application_id', '=', options.applicationId)
    .where('idempotency_key', '=', options.idempotencyKey)
    .executeTakeFirst();
  if (!row) return null;
  const sameUpload =
    row.file_sha256 === file.sha256 &&
    row.version_id === (await targetVersionId(db, options)) &&
    row.branch === (options.branch ?? null) &&
    (options.scannerType === undefined || options.scannerType === row.scanner_type) &&
    row.category === (options.category ?? null) &&
    row.partial === (options.partial ?? false) &&
    row.root === (options.root ?? null);
  if (!sameUpload) {
    throw new AppError(
      422,
      'idempotency_key_reused',
      `Idempotency-Key "${options.idempotencyKey}" was already used for scan ${row.id} with other content, version or options; send a new key for a new upload`,
    );
  }
  return responseFor(presentScan(row), true);
}

/**
 * Ingests one spooled upload into an application the caller may write to. Synchronous by default
 * (201 with counts); `async` answers 202 with the pending scan and finishes it in the queue.
 * An `Idempotency-Key` seen before for the application replays the first result (see `replay`).
 */
export async function ingestUpload(
  deps: IngestDeps,
  file: UploadedFile,
  options: IngestOptions,
  mode: { async: boolean },
): Promise<IngestResponse> {
  const { db } = deps;
  const startedAt = performance.now();
  const replayed = await replay(db, file, options).catch(async (error: unknown) => {
    await removeSpooled(file.path);
    throw error;
  });
  if (replayed) {
    await removeSpooled(file.path);
    return replayed;
  }
  try {
    const prepared = await prepareUpload(db, file, options.scannerType);
    if (mode.async) {
      const scan = await db.transaction().execute(async (trx) => {
        const version = await resolveVersion(trx, options.applicationId, options.versionName, options.branch);
        const row = await trx
          .insertInto('scans')
          .values({
            ...uploadScanRow(options.applicationId, version, file, options),
            scanner_type_id: prepared.scannerTypeId,
            scanner_type: prepared.parser.name,
            status: 'pending',
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        // The file and the job commit with the scan: any server's worker can finish it, once.
        await storeUpload(trx, row.id, file.path);
        await deps.jobs.send(trx, 'ingest-scan', { scanId: row.id });
        return row;
      });
      await removeSpooled(file.path);
      deps.jobs.wake('ingest-scan');
      return responseFor(presentScan(scan), false);
    }
    const outcome = await ingestPrepared(
      deps.database,
      prepared,
      file,
      { ...options, workerMinBytes: deps.config.ingestWorkerMinBytes },
      undefined,
      vacuumLater(deps.database, deps.jobs),
    );
    startVacuum(deps, outcome.counts.findings);
    recordIngest(deps.metrics, outcome.scan, startedAt, 'sync');
    await removeSpooled(file.path);
    // No statement after the commit: the answer is the scan the transaction wrote.
    return responseFor(presentScan(outcome.scan), false);
  } catch (error) {
    await removeSpooled(file.path);
    // A concurrent retry with the same key won the race: answer with its scan.
    if ((error as { code?: string }).code === '23505' && options.idempotencyKey) {
      const winner = await replay(db, file, options);
      if (winner) return winner;
    }
    throw error;
  }
}

export interface StoredScanDeps {
  db: Kysely<DB>;
  database: Database;
  jobs: Pick<Jobs, 'send' | 'wake'>;
  metrics: IngestMetrics;
  config: Pick<Config, 'dataDir' | 'ingestWorkerMinBytes'>;
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
