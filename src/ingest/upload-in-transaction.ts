import { sql, type Transaction } from 'kysely';
import type { CopyInto, Database } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import { arrayLiteral, insertStaged, versionHasFindings, type MergeTarget } from './merge.ts';
import type {
  IngestOutcome,
  InMergeTransaction,
  PreparedUpload,
  UploadedFile,
  IngestOptions,
} from './upload-types.ts';
import { stageUpload } from './stage-upload.ts';
import { NOTHING_STAGED, type StageResult, type UploadContext } from './stage.ts';
import { matchTwins, type StagedTwin } from './twins.ts';
import {
  mergeTarget,
  openScan,
  settleUpload,
  tryLockVersion,
  type OpenedScan,
  type StagedUpload,
} from './upload-merge.ts';

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
 * Another upload holds the version, or the version has findings and the file is small: stage, then
 * merge, the usual way (which waits for the version's lock only once its rows are staged).
 */
export const STAGE_THEN_MERGE = Symbol('stage, then merge');

/**
 * From this size a later upload into a version (one with findings) is staged in its merge
 * transaction too, into the transaction's own table, and merged from there. The shared staging
 * table's two indexes, on fingerprints in no order, made a 100k re-upload's COPYs the slowest part
 * of its staging (3.6 s; into its own table, without an index, 2.6–2.7 s, the parse's own time).
 * Smaller uploads keep the usual path, which holds no lock while they parse.
 */
export const OWN_STAGING_MIN_BYTES = 1024 * 1024;

/** An upload about to be staged. */
export interface UploadToStage {
  prepared: PreparedUpload;
  file: UploadedFile;
  options: IngestOptions;
  upload: UploadContext;
  uploadKey: string;
  startedAt: Date;
  existingScanId: number | undefined;
  /** Files this large or larger are parsed in the staging thread; undefined: none. */
  workerMinBytes: number | undefined;
}

/**
 * An upload on PostgreSQL in one transaction opened before the parse, under its version's merge
 * lock: the rows are copied into a staging table of the transaction's own (`upload_rows`, never
 * logged, dropped with the transaction: nothing to delete, nothing left by a crash).
 *
 * - A version's first upload inserts them as findings every `INSERT_BATCH_ROWS` while the parse
 *   goes on (`insertWhileParsing`). The database's process does the copies and inserts, a worker
 *   thread the parse (for large files), so they overlap: a 100k upload spent ~3 s staging and then
 *   ~2.3 s merging; now ~4.2 s for both. The shared staging table took 2.8 s of copies in the
 *   transaction; the own one, with one index, 0.8 s.
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
    const first = !(await versionHasFindings(trx, locked.version.id));
    if (!first && upload.file.size < OWN_STAGING_MIN_BYTES) return STAGE_THEN_MERGE;
    const provisional: StagedUpload = { ...upload, staged: NOTHING_STAGED, staging: 'upload_rows' };
    const opened = await openScan(trx, provisional, locked);
    if (!opened) return null;

    // The transaction's own staging table: written by no other session, dropped at the end
    // whatever happens.
    await sql`create temp table upload_rows (like ingest_staging) on commit drop`.execute(trx);
    const outcome = first
      ? await insertWhileParsing(trx, { database, copy, upload, provisional, opened })
      : await mergeOwnStaging(trx, { database, copy, upload, provisional, opened });
    await inMergeTransaction?.(trx, outcome.counts);
    return outcome;
  });
}

/** What both ways of `ingestInOneTransaction` work with. */
interface InTransaction {
  database: Database;
  copy: CopyInto;
  upload: UploadToStage;
  /** The upload with nothing staged yet, its rows to go into `upload_rows`. */
  provisional: StagedUpload;
  opened: OpenedScan;
}

/** Parses the upload into `upload_rows` (in the staging thread, see `workerMinBytes`), with `into`'s hooks. */
function stageOwn(
  { database, copy, upload }: InTransaction,
  afterCopy?: (rowsStaged: number) => Promise<void>,
): Promise<StageResult> {
  const { file, prepared } = upload;
  const toParse = {
    parser: prepared.parser,
    input: prepared.input,
    path: file.path,
    size: file.size,
    uploadKey: upload.uploadKey,
    upload: upload.upload,
    workerMinBytes: upload.workerMinBytes,
  };
  return stageUpload(database, toParse, {
    table: 'upload_rows',
    copy,
    depth: QUEUED_CHUNKS,
    ...(afterCopy ? { afterCopy } : {}),
  });
}

/**
 * Into a version without findings nothing can be absent, matched or reopened, so a first upload's
 * merge is its inserts. Identity is the merge's: one finding per fingerprint, the first in report
 * order (each batch takes its first per fingerprint, and later batches skip fingerprints already
 * inserted). Twins (one base on several lines) are told apart only once every row is in: the
 * groups whose base repeats are deleted and inserted again with their ordinals (twins.ts), as the
 * usual merge would have given them.
 */
async function insertWhileParsing(trx: Transaction<DB>, work: InTransaction): Promise<IngestOutcome> {
  const { opened, provisional } = work;
  await sql`create index on upload_rows (seq)`.execute(trx);
  let inserted = 0;
  let batched = 0;
  const insertBatch = async (to: number) => {
    inserted += await insertFirstUploadBatch(trx, opened.target, batched, to);
    batched = to;
  };
  const staged = await stageOwn(work, async (rowsStaged) => {
    if (rowsStaged - batched >= INSERT_BATCH_ROWS) await insertBatch(rowsStaged);
  });
  if (staged.findingsCount > batched) await insertBatch(staged.findingsCount);

  const parsed: StagedUpload = { ...provisional, staged };
  const target = mergeTarget(parsed, opened, opened.target.assetWeight);
  inserted += await reinsertRepeatedTwins(trx, target);
  // Every distinct fingerprint staged was new: the version had none.
  const ahead = { inserted, candidates: { gone: [], matched: [] }, fingerprints: inserted };
  return settleUpload(trx, parsed, { ...opened, target }, ahead);
}

/**
 * A later upload: parsed into `upload_rows`, analyzed (a temporary table has no statistics, and the
 * planner took a 100k-row one for a few hundred rows), then merged. Only the columns the merge
 * joins and filters on, from a small sample: the full analyze took 0.54 s of a 100k re-upload, this
 * one 20 ms. No index: a large upload's merge reads every staged row by hash joins (merge.ts).
 */
async function mergeOwnStaging(trx: Transaction<DB>, work: InTransaction): Promise<IngestOutcome> {
  const staged = await stageOwn(work);
  await sql`set local default_statistics_target = 10`.execute(trx);
  await sql`analyze upload_rows (upload_key, fingerprint, base, seq, twin_ordinal)`.execute(trx);
  await sql`set local default_statistics_target = default`.execute(trx);
  const parsed: StagedUpload = { ...work.provisional, staged };
  const target = mergeTarget(parsed, work.opened, work.opened.target.assetWeight);
  return settleUpload(trx, parsed, { ...work.opened, target });
}

/**
 * Inserts the findings of the rows `from` ≤ seq < `to` in `upload_rows`, the first in report order
 * of each fingerprint not inserted by an earlier batch; returns how many. The rows the staging
 * thread knows to be the first of their fingerprint in the upload (`maybe_repeat` false: its filter
 * has no false negatives) go in as they are: in a version that had no findings, nothing can be in
 * their way. The others, repeats and the filter's rare false alarms, then go the careful way: one
 * per fingerprint, only if no finding has it yet (this statement sees the first one's). Checking
 * every row so took a first upload's 20 batches of 5,000 rows 3.0–3.3 s of the database's CPU
 * instead of 2.2–2.4 s. Exported for tests.
 */
export async function insertFirstUploadBatch(
  trx: Transaction<DB>,
  target: MergeTarget,
  from: number,
  to: number,
): Promise<number> {
  const batch = sql`seq >= ${from} and seq < ${to}`;
  const firsts = sql`(select * from upload_rows where ${batch} and not maybe_repeat)`;
  // Only the narrow (fingerprint, seq) pairs are sorted: sorting whole rows spilled to disk.
  const others = sql`(select * from upload_rows where ${batch} and seq in (
    select distinct on (fingerprint) seq from upload_rows where ${batch} and maybe_repeat
    order by fingerprint, seq))`;
  return (
    (await insertStaged(trx, target, firsts, 'none')) + (await insertStaged(trx, target, others, 'probe'))
  );
}

/**
 * Twins whose base repeats in the upload went in as one finding (the first) by their shared base.
 * Their groups are deleted (every finding of the version is this upload's), given their twin
 * fingerprints by `matchTwins` (with nothing stored to match, by line), and inserted again, every
 * member. Returns the net number of findings added.
 */
async function reinsertRepeatedTwins(trx: Transaction<DB>, target: MergeTarget): Promise<number> {
  const { twinBases } = target;
  if (twinBases !== null && twinBases.length === 0) return 0;
  const candidates = twinBases === null ? sql`` : sql`and base = any(${arrayLiteral(twinBases)}::text[])`;
  const repeated = await sql<{ base: string }>`
    select base from upload_rows where twin_ordinal ${candidates} group by base having count(*) > 1`.execute(
    trx,
  );
  if (repeated.rows.length === 0) return 0;
  const bases = arrayLiteral(repeated.rows.map((row) => row.base));
  const removed = await sql`delete from findings
    where version_id = ${target.versionId} and identity_base = any(${bases}::text[])`.execute(trx);
  const members = await sql<StagedTwin & { base: string }>`
    select base, seq, line, "column" from upload_rows where twin_ordinal and base = any(${bases}::text[])`.execute(
    trx,
  );
  const groups = new Map<string, StagedTwin[]>();
  for (const { base, ...member } of members.rows) {
    const group = groups.get(base);
    if (group) group.push(member);
    else groups.set(base, [member]);
  }
  const assigned = [...groups].flatMap(([base, staged]) =>
    [...matchTwins(base, staged, [])].map(([seq, fingerprint]) => ({ seq, fingerprint })),
  );
  await sql`update upload_rows u set fingerprint = a.fingerprint
    from json_to_recordset(${JSON.stringify(assigned)}::json) as a(seq integer, fingerprint text)
    where u.seq = a.seq`.execute(trx);
  const source = sql`(select * from upload_rows where twin_ordinal and base = any(${bases}::text[]))`;
  return (await insertStaged(trx, target, source, 'join')) - Number(removed.numAffectedRows ?? 0n);
}
