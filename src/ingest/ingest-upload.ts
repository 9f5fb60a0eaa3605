import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DB, ScansTable } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import {
  recordIngest,
  startVacuum,
  vacuumLater,
  enrichLater,
  type IngestJobs,
  type IngestMetrics,
} from './after-ingest.ts';
import { uploadScanRow } from './merge/upload-scan.ts';
import { ingestPrepared, prepareUpload } from './pipeline.ts';
import { resolveVersion } from './resolve-version.ts';
import { removeSpooled } from './spool.ts';
import type { IngestOptions, UploadedFile } from './upload-types.ts';
import { storeUpload } from './upload-store.ts';

export interface IngestDeps {
  db: Kysely<DB>;
  database: Database;
  jobs: IngestJobs;
  metrics: IngestMetrics;
  config: { ingestWorkerMinBytes: number };
}

/** The scan an upload wrote (completed, or pending when async), and whether it is a replay. */
export interface IngestedUpload {
  scan: Selectable<ScansTable>;
  replayed: boolean;
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
): Promise<IngestedUpload | null> {
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
  return { scan: row, replayed: true };
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
): Promise<IngestedUpload> {
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
      return { scan, replayed: false };
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
    await enrichLater(deps, outcome.scan);
    recordIngest(deps.metrics, outcome.scan, startedAt, 'sync');
    await removeSpooled(file.path);
    // No statement after the commit: the answer is the scan the transaction wrote.
    return { scan: outcome.scan, replayed: false };
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
