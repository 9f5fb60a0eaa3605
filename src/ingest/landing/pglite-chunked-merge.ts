import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { hideScanFindingsUntilShown } from '../../domain/findings/unpublished-scans.ts';
import { countStagedFingerprints, insertNewFindings, versionHasFindings } from '../merge/insert.ts';
import { mergeCandidates, type MergedAhead } from '../merge/candidates.ts';
import { stagedRanges } from '../merge/target.ts';
import type { InMergeTransaction, IngestOutcome } from '../upload-types.ts';
import { dropUnusedVersions } from '../resolve-version.ts';
import { assignTwinFingerprints } from '../merge/identical-findings.ts';
import { stageShared, type Landing } from './landing.ts';
import {
  openScan,
  scanStillOpen,
  settleUpload,
  recordUploadAudit,
  type OpenedScan,
  type StagedUpload,
} from '../merge/upload-scan.ts';

/**
 * Staged rows per insert transaction on PGlite: about 0.1 s of its one session each (100k rows took
 * ~10 s in one transaction), so a request waits at most that long for its turn.
 */
export const MERGE_CHUNK_ROWS = 1000;

/** Merges into one version run one at a time, per database (PGlite: this process is its only user). */
const versionQueues = new WeakMap<Kysely<DB>, Map<number, Promise<unknown>>>();

function queuesOf(db: Kysely<DB>): Map<number, Promise<unknown>> {
  let queues = versionQueues.get(db);
  if (!queues) versionQueues.set(db, (queues = new Map()));
  return queues;
}

async function oneAtATime<T>(db: Kysely<DB>, versionId: number, work: () => Promise<T>): Promise<T> {
  const queues = queuesOf(db);
  const previous = queues.get(versionId) ?? Promise.resolve();
  const current = previous.catch(() => undefined).then(work);
  queues.set(versionId, current);
  try {
    return await current;
  } finally {
    if (queues.get(versionId) === current) queues.delete(versionId);
  }
}

/**
 * The version's turn to merge, taken now, or null, having waited for nothing, while another upload
 * holds or waits for it. The returned function gives the turn back.
 */
export function tryTakeTurn(db: Kysely<DB>, versionId: number): (() => void) | null {
  const queues = queuesOf(db);
  if (queues.has(versionId)) return null;
  let giveBack = () => {};
  const turn = new Promise<void>((resolve) => {
    giveBack = resolve;
  });
  queues.set(versionId, turn);
  return () => {
    giveBack();
    if (queues.get(versionId) === turn) queues.delete(versionId);
  };
}

/**
 * PGlite's usual way: staged into the shared table, then merged in short transactions
 * (`mergeInChunks`). Its staged rows stay in the table until it ends.
 */
export const pgliteChunkedMerge = (database: Database): Landing => ({
  land: async (upload, inMergeTransaction) => {
    const staged = await stageShared(database, upload);
    const outcome = await mergeInChunks(database.db, { ...upload, staged }, inMergeTransaction);
    return { outcome, stagingLeft: true };
  },
});

/**
 * PGlite's merge: the scan is opened, the twins assigned and the new findings inserted in short
 * transactions, `MERGE_CHUNK_ROWS` staged rows (a range in report order) at a time, then one
 * transaction does the rest. Until that one commits, the new findings are hidden from every reader
 * (unpublished-scans.ts) and left out of the counts ledger; if anything fails, they are deleted,
 * and a sync upload's scan with them. A crash in between leaves findings of a scan that never
 * completed, which the next start deletes (orphans.ts). Requests get the session between the
 * transactions, before the upload's next one (it runs as background work, pipeline.ts).
 */
export async function mergeInChunks(
  db: Kysely<DB>,
  work: StagedUpload,
  inMergeTransaction: InMergeTransaction | undefined,
): Promise<IngestOutcome | null> {
  const opened = await db.transaction().execute((trx) => openScan(trx, work));
  if (!opened) return null;
  const deleteScan = work.existingScanId === undefined;
  return unpublishedUntilSettled(db, opened.scanId, deleteScan, inMergeTransaction, (settle) =>
    oneAtATime(db, opened.versionId, () => mergeUnderTurn(db, work, opened, settle)),
  );
}

/** The chunked merge's steps, each in a short transaction, once the upload holds its version's turn. */
async function mergeUnderTurn(
  db: Kysely<DB>,
  work: StagedUpload,
  opened: OpenedScan,
  settle: (work: StagedUpload, opened: OpenedScan, ahead: MergedAhead) => Promise<IngestOutcome>,
): Promise<IngestOutcome | null> {
  const { scanId, versionId, target } = opened;
  const inTransaction = <T>(step: (trx: Transaction<DB>) => Promise<T>) => db.transaction().execute(step);
  // A second run of the same job may have waited here for the first one.
  const stillOpen =
    work.existingScanId === undefined || (await inTransaction((trx) => scanStillOpen(trx, scanId)));
  if (!stillOpen) return null;
  // One short transaction per step: under the version's lock, only this upload changes the
  // findings these steps read, and its staged rows are its own.
  await inTransaction((trx) => assignTwinFingerprints(trx, work.uploadKey, versionId, target.twinBases));
  const ranges = stagedRanges(target.stagedRows, MERGE_CHUNK_ROWS);
  // A version without findings has none absent, matched or already there: every distinct
  // fingerprint is inserted, and the candidates are none. Their queries, planned on the
  // statistics of other versions, once took 56 s for a 5k-result first upload.
  const firstInVersion = !(await inTransaction((trx) => versionHasFindings(trx, versionId)));
  const candidates = firstInVersion
    ? { gone: [], matched: [] }
    : await inTransaction((trx) => mergeCandidates(trx, target));
  const counted = firstInVersion
    ? undefined
    : await inTransaction((trx) => countStagedFingerprints(trx, work.uploadKey, work.staged.twinRows));
  let inserted = 0;
  for (const range of ranges) {
    inserted += await inTransaction((trx) => insertNewFindings(trx, target, range));
  }
  return settle(work, opened, { inserted, candidates, fingerprints: counted ?? inserted });
}

/**
 * Runs a chunked upload's steps (PGlite: this merge, landing/pglite-first-upload.ts) with its scan's new
 * findings hidden from every reader until the transaction `settle` runs commits, and deleted
 * (`discardUnpublished`) if anything fails first.
 */
export async function unpublishedUntilSettled<T>(
  db: Kysely<DB>,
  scanId: number,
  deleteScanOnFailure: boolean,
  inMergeTransaction: InMergeTransaction | undefined,
  run: (
    settle: (work: StagedUpload, opened: OpenedScan, ahead: MergedAhead) => Promise<IngestOutcome>,
  ) => Promise<T>,
): Promise<T> {
  const show = hideScanFindingsUntilShown(db, scanId);
  const settle = (work: StagedUpload, opened: OpenedScan, ahead: MergedAhead) =>
    db.transaction().execute(async (trx) => {
      const outcome = await settleUpload(trx, work, opened, ahead);
      await inMergeTransaction?.(trx, outcome.counts);
      await recordUploadAudit(trx, work, outcome);
      // Shown from the commit on: readers wait for the session until then.
      show();
      return outcome;
    });
  try {
    return await run(settle);
  } catch (error) {
    await discardUnpublished(db, scanId, deleteScanOnFailure);
    throw error;
  } finally {
    show();
  }
}

/**
 * Deletes what a failed chunked merge inserted: its scan never completed, so the ledger never
 * counted these findings; their counts, set apart for the scan, go with them. A sync upload's scan
 * goes too, and the version it created if nothing else uses it; an async one's stays for its job to
 * mark failed.
 *
 * The findings go `MERGE_CHUNK_ROWS` at a time, each batch in a transaction of its own, as they came:
 * deleting 100k findings in one statement held PGlite's session for 5–8 s (a copied data dir, a
 * scratch script). Readers never saw them (the scan is unpublished), so a half-deleted scan shows
 * nothing either, and a crash in between leaves what orphans.ts deletes at the next start.
 */
export async function discardUnpublished(db: Kysely<DB>, scanId: number, deleteScan: boolean): Promise<void> {
  const stillUnpublished = async (trx: Transaction<DB>) => {
    const scan = await trx.selectFrom('scans').select('status').where('id', '=', scanId).executeTakeFirst();
    return scan !== undefined && scan.status !== 'completed';
  };
  for (;;) {
    const deleted = await db.transaction().execute(async (trx) => {
      if (!(await stillUnpublished(trx))) return 0;
      const batch = trx
        .selectFrom('findings')
        .select('id')
        .where('first_scan_id', '=', scanId)
        .limit(MERGE_CHUNK_ROWS);
      const result = await trx.deleteFrom('findings').where('id', 'in', batch).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
    if (deleted < MERGE_CHUNK_ROWS) break;
  }
  // The last batch came short: none of the scan's findings is left (nothing else writes them).
  await db.transaction().execute(async (trx) => {
    if (!(await stillUnpublished(trx))) return;
    // Their counts were set apart for the scan and now sum to zero.
    await trx.deleteFrom('finding_counts_unpublished').where('scan_id', '=', scanId).execute();
    if (!deleteScan) return;
    const scan = await trx
      .deleteFrom('scans')
      .where('id', '=', scanId)
      .returning(['version_id', 'created_version'])
      .executeTakeFirst();
    // All or nothing: the version this upload created goes with it, unless another upload uses it.
    if (scan?.created_version) await dropUnusedVersions(trx, [scan.version_id]);
  });
}
