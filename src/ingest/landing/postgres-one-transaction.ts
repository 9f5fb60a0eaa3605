import { sql, type Transaction } from 'kysely';
import type { CopyInto, Database } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { DirectFindings } from '../finding-copy-rows.ts';
import { insertWhileStaging } from '../first-upload.ts';
import { versionHasFindings } from '../merge/insert.ts';
import type { IngestOutcome, InMergeTransaction } from '../upload-types.ts';
import { stageUpload, toParseOf } from '../stage-upload.ts';
import { NOTHING_STAGED, type AfterCopy, type StageResult } from '../stage.ts';
import { STAGE_THEN_MERGE, type Landing, type UploadToStage } from './landing.ts';
import {
  mergeTarget,
  openScan,
  recordUploadAudit,
  settleUpload,
  tryLockVersion,
  type OpenedScan,
  type StagedUpload,
} from '../merge/upload-scan.ts';

/**
 * Staged rows per insert while the file is parsed: large enough that the statement's fixed cost
 * (its reference checks, once per statement) vanishes, small enough that the last batch, inserted
 * after the parse, is short.
 */
export const INSERT_BATCH_ROWS = 5000;

/**
 * COPY chunks (512 KiB each) the parse may run ahead of the writes: an insert batch takes about
 * as long as parsing ten chunks, and the parse should not wait for it.
 */
const QUEUED_CHUNKS = 16;

/**
 * From this size a later upload into a version (one with findings) is staged in its merge
 * transaction too, into the transaction's own table, and merged from there. The shared staging
 * table's two indexes, on fingerprints in no order, made a 100k re-upload's COPYs the slowest part
 * of its staging (3.6 s; into its own table, without an index, 2.6–2.7 s, the parse's own time).
 * Smaller uploads keep the usual path, which holds no lock while they parse.
 */
export const OWN_STAGING_MIN_BYTES = 1024 * 1024;

/**
 * An upload on PostgreSQL in one transaction opened before the parse, under its version's merge
 * lock: the rows are copied into a staging table of the transaction's own (`upload_rows`, never
 * logged, dropped with the transaction: nothing to delete, nothing left by a crash).
 *
 * - A version's first upload copies its certain firsts straight into `findings` and stages the
 *   rest, inserted every `INSERT_BATCH_ROWS` while the parse goes on (`insertWhileParsing`,
 *   first-upload.ts). The database's process does the copies and inserts, a worker thread the parse
 *   (for large files), so they overlap: a 100k upload spent ~3 s staging and then ~2.3 s merging,
 *   then ~4.2 s for both when it inserted from staging while parsing, and now its connection spends
 *   its time in the COPYs into `findings` (~3.5–4 s, their 12 indexes).
 * - A later upload of `OWN_STAGING_MIN_BYTES` or more is merged from the own table once parsed
 *   (`mergeOwnStaging`), the merge the usual path runs.
 *
 * Returns `STAGE_THEN_MERGE` (having written nothing but, maybe, the version row) when another
 * upload holds the version or the version has findings and the file is small; null when another
 * run of an async upload's job completed its scan first.
 */
export async function ingestInOneTransaction(
  database: Database & { copyTransaction: NonNullable<Database['copyTransaction']> },
  upload: UploadToStage,
  inMergeTransaction: InMergeTransaction | undefined,
): Promise<IngestOutcome | null | typeof STAGE_THEN_MERGE> {
  return database.copyTransaction(async (trx, copy) => {
    const locked = await tryLockVersion(trx, upload.options);
    if (locked === null) return STAGE_THEN_MERGE;
    // scanhub's sessions run without JIT (src/db/database.ts: it cost interactive statements more than
    // they took); this transaction's statements each read and write every row of the upload, where
    // compiling pays: a 100k first upload took 4.62 s with JIT and 6.29 s without (bench 1).
    await sql`set local jit = on`.execute(trx);
    const first = !(await versionHasFindings(trx, locked.version.id));
    if (!first && upload.file.size < OWN_STAGING_MIN_BYTES) return STAGE_THEN_MERGE;
    const provisional: StagedUpload = { ...upload, staged: NOTHING_STAGED, staging: 'upload_rows' };
    const opened = await openScan(trx, provisional, locked);
    if (!opened) return null;

    // The transaction's own staging table: written by no other session, dropped at the end
    // whatever happens.
    await sql`create temp table upload_rows (like ingest_staging) on commit drop`.execute(trx);
    const { parsed, outcome } = first
      ? await insertWhileParsing(trx, { database, copy, upload, provisional, opened })
      : await mergeOwnStaging(trx, { database, copy, upload, provisional, opened });
    await inMergeTransaction?.(trx, outcome.counts);
    // Last: from here until commit the transaction holds the audit chain's head.
    await recordUploadAudit(trx, parsed, outcome);
    return outcome;
  });
}

/** `ingestInOneTransaction` as a landing; its staging table goes with its transaction. */
export const postgresOneTransaction = (
  database: Database & { copyTransaction: NonNullable<Database['copyTransaction']> },
): Landing => ({
  land: async (upload, inMergeTransaction) => {
    const outcome = await ingestInOneTransaction(database, upload, inMergeTransaction);
    return outcome === STAGE_THEN_MERGE ? STAGE_THEN_MERGE : { outcome, stagingLeft: false };
  },
});

/** What both ways of `ingestInOneTransaction` work with. */
interface InTransaction {
  database: Database;
  copy: CopyInto;
  upload: UploadToStage;
  /** The upload with nothing staged yet, its rows to go into `upload_rows`. */
  provisional: StagedUpload;
  opened: OpenedScan;
}

/**
 * Parses the upload into `upload_rows` (in the staging thread, see `workerMinBytes`), calling
 * `afterCopy` after each chunk; a first upload copies its certain firsts into `findings` (`direct`).
 */
function stageOwn(
  { database, copy, upload }: InTransaction,
  afterCopy?: AfterCopy,
  direct?: DirectFindings,
): Promise<StageResult> {
  return stageUpload(database, toParseOf(upload), {
    table: 'upload_rows',
    copy,
    depth: QUEUED_CHUNKS,
    ...(afterCopy ? { afterCopy } : {}),
    ...(direct ? { direct } : {}),
  });
}

/**
 * A version's first upload: its certain firsts copied into `findings` as the file is parsed, its
 * staged rows inserted every `INSERT_BATCH_ROWS`, its twins told apart at the end (first-upload.ts).
 */
async function insertWhileParsing(trx: Transaction<DB>, work: InTransaction): Promise<Settled> {
  await sql`create index on upload_rows (seq)`.execute(trx);
  const steps = {
    stage: (afterCopy: AfterCopy, direct: DirectFindings) => stageOwn(work, afterCopy, direct),
    step: <T>(step: (trx: Transaction<DB>) => Promise<T>) => step(trx),
  };
  const { parsed, opened, ahead } = await insertWhileStaging(
    steps,
    work.provisional,
    work.opened,
    INSERT_BATCH_ROWS,
  );
  return { parsed, outcome: await settleUpload(trx, parsed, opened, ahead) };
}

/**
 * A later upload: parsed into `upload_rows`, analyzed (a temporary table has no statistics, and the
 * planner took a 100k-row one for a few hundred rows), then merged. Only the columns the merge
 * joins and filters on, from a small sample: the full analyze took 0.54 s of a 100k re-upload, this
 * one 20 ms. No index: a large upload's merge reads every staged row by hash joins (merge.ts).
 */
async function mergeOwnStaging(trx: Transaction<DB>, work: InTransaction): Promise<Settled> {
  const staged = await stageOwn(work);
  await sql`set local default_statistics_target = 10`.execute(trx);
  await sql`analyze upload_rows (upload_key, fingerprint, base, seq, twin_ordinal)`.execute(trx);
  await sql`set local default_statistics_target = default`.execute(trx);
  const parsed: StagedUpload = { ...work.provisional, staged };
  const target = mergeTarget(parsed, work.opened, work.opened.target.assetWeight, work.opened.target.slaDays);
  return { parsed, outcome: await settleUpload(trx, parsed, { ...work.opened, target }) };
}

/** A settled upload and what was parsed of it (its audit row names both). */
interface Settled {
  parsed: StagedUpload;
  outcome: IngestOutcome;
}
