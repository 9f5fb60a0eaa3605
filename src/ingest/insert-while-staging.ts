import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import { arrayLiteral, insertStaged, versionHasFindings, type MergeTarget } from './merge.ts';
import type {
  IngestOutcome,
  InMergeTransaction,
  PreparedUpload,
  UploadedFile,
  IngestOptions,
} from './pipeline.ts';
import { stageInWorker } from './stage-in-worker.ts';
import { NOTHING_STAGED, stageFindings, type UploadContext } from './stage.ts';
import { matchTwins, type StagedTwin } from './twins.ts';
import { mergeTarget, openScan, settleUpload, tryLockVersion, type StagedUpload } from './upload-merge.ts';

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
 * The upload's version has findings, or another upload holds it: stage, then merge, the usual way
 * (which waits for the version's lock only once its rows are staged).
 */
export const STAGE_THEN_MERGE = Symbol('stage, then merge');

/** An upload about to be staged. */
export interface UploadToStage {
  prepared: PreparedUpload;
  file: UploadedFile;
  options: IngestOptions;
  upload: UploadContext;
  uploadKey: string;
  startedAt: Date;
  existingScanId: number | undefined;
  /** Files this large or larger are parsed in a worker thread; undefined: none. */
  workerMinBytes: number | undefined;
}

/**
 * A version's first upload on PostgreSQL, in one transaction opened before the parse: the rows are
 * copied into a staging table of the transaction's own and, every `INSERT_BATCH_ROWS`, inserted as
 * findings while the parse goes on. The database's process does the copies and inserts, a worker
 * thread the parse (for large files), so they overlap: a 100k upload spent ~3 s staging and then
 * ~2.3 s merging; now ~4.2 s for both. The usual staging table, shared and indexed for the merge's
 * joins, took 2.8 s of copies in the transaction; the own one, with one index, 0.8 s, and its rows
 * go with the transaction (nothing to delete, nothing left by a crash).
 *
 * Only into a version without findings, under its merge lock: nothing can be absent, matched or
 * reopened, so a first upload's merge is its inserts. Identity is the merge's: one finding per
 * fingerprint, the first in report order (each batch takes its first per fingerprint, and later
 * batches skip fingerprints already inserted). Twins (one base on several lines) are told apart
 * only once every row is in: the groups whose base repeats are deleted and inserted again with
 * their ordinals (twins.ts), as the usual merge would have given them.
 *
 * Returns `STAGE_THEN_MERGE` (having written nothing but, maybe, the version row) when the version
 * has findings or another upload holds it, null when another run of an async upload's job completed
 * its scan first.
 */
export async function insertWhileStaging(
  database: Database & { copyTransaction: NonNullable<Database['copyTransaction']> },
  upload: UploadToStage,
  inMergeTransaction: InMergeTransaction | undefined,
): Promise<IngestOutcome | null | typeof STAGE_THEN_MERGE> {
  const { prepared, uploadKey } = upload;
  return database.copyTransaction(async (trx, copy) => {
    const locked = await tryLockVersion(trx, upload.options);
    if (locked === null || (await versionHasFindings(trx, locked.version.id))) return STAGE_THEN_MERGE;
    const provisional: StagedUpload = { ...upload, staged: NOTHING_STAGED };
    const opened = await openScan(trx, provisional, locked);
    if (!opened) return null;

    // The transaction's own staging table: written by no other session, never logged, dropped at
    // the end whatever happens; indexed by report order only, for the batches.
    await sql`create temp table upload_rows (like ingest_staging) on commit drop`.execute(trx);
    await sql`create index on upload_rows (seq)`.execute(trx);
    let inserted = 0;
    let batched = 0;
    const insertBatch = async (to: number) => {
      inserted += await insertStaged(trx, opened.target, firstInReportOrder(batched, to), true);
      batched = to;
    };
    const into = {
      table: 'upload_rows' as const,
      copy,
      afterCopy: async (rowsStaged: number) => {
        if (rowsStaged - batched >= INSERT_BATCH_ROWS) await insertBatch(rowsStaged);
      },
    };
    const { file } = upload;
    const staged =
      upload.workerMinBytes !== undefined && file.size >= upload.workerMinBytes
        ? await stageInWorker(
            database,
            {
              parserName: prepared.parser.name,
              path: file.path,
              sniff: prepared.input.sniff,
              uploadKey,
              upload: upload.upload,
              chunksAhead: QUEUED_CHUNKS,
            },
            into,
          )
        : await stageFindings(database, prepared.parser, prepared.input, uploadKey, upload.upload, {
            ...into,
            depth: QUEUED_CHUNKS,
          });
    if (staged.findingsCount > batched) await insertBatch(staged.findingsCount);

    const work: StagedUpload = { ...provisional, staged };
    const target = mergeTarget(work, opened, opened.target.assetWeight);
    inserted += await reinsertRepeatedTwins(trx, target);
    const outcome = await settleUpload(
      trx,
      work,
      { ...opened, target },
      // Every distinct fingerprint staged was new: the version had none.
      { inserted, candidates: { gone: [], matched: [] }, fingerprints: inserted },
    );
    await inMergeTransaction?.(trx, outcome.counts);
    return outcome;
  });
}

/**
 * Staged rows `from` ≤ seq < `to`, the first in report order of each fingerprint. Only the
 * narrow (fingerprint, seq) pairs are sorted: sorting whole rows of a batch spilled to disk.
 */
const firstInReportOrder = (from: number, to: number) => sql`(
  select * from upload_rows where seq >= ${from} and seq < ${to} and seq in (
    select distinct on (fingerprint) seq from upload_rows where seq >= ${from} and seq < ${to}
    order by fingerprint, seq))`;

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
  return (await insertStaged(trx, target, source, false)) - Number(removed.numAffectedRows ?? 0n);
}
