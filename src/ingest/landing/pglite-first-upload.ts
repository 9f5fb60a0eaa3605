import type { Transaction } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { DirectFindings } from '../finding-copy-rows.ts';
import { insertWhileStaging } from '../first-upload.ts';
import { versionHasFindings } from '../merge/insert.ts';
import { stageUpload, toParseOf } from '../stage-upload.ts';
import { NOTHING_STAGED, type AfterCopy } from '../stage.ts';
import { lockVersion, openScan, type OpenedScan, type StagedUpload } from '../merge/upload-scan.ts';
import type { IngestOutcome, InMergeTransaction } from '../upload-types.ts';
import { STAGE_THEN_MERGE, type Landing, type UploadToStage } from './landing.ts';
import { MERGE_CHUNK_ROWS, tryTakeTurn, unpublishedUntilSettled } from './pglite-chunked-merge.ts';

/**
 * COPY chunks (512 KiB each) the parse may run ahead of the session: its batches' inserts take
 * longer than the parse, which should not wait for them.
 */
const QUEUED_CHUNKS = 16;

/** Rolls back the transaction that would have opened the scan: the usual path goes on. */
class TakeUsualPath extends Error {}

/**
 * PGlite: a version's first upload, written while the staging thread parses the rest
 * (first-upload.ts): its certain firsts copied into `findings` chunk by chunk, its staged rows
 * inserted every `MERGE_CHUNK_ROWS` rows, each batch in a short transaction of its own. Staged first
 * and merged after, a 100k upload's session sat idle for ~1.4 s of its 3.3 s of parse, and the parse
 * thread for the 5 s of inserts after it.
 *
 * The findings stay hidden until the scan completes, and a failure deletes them, as in the chunked
 * merge (landing/pglite-chunked-merge.ts), with the version when this upload created it and nothing else uses it.
 * A crash in between leaves them for the next start to delete (orphans.ts), the version too.
 *
 * Returns `STAGE_THEN_MERGE`, having written nothing, when the version has findings or another
 * upload holds or waits for its turn; null when another run of an async upload's job completed its
 * scan first.
 */
export async function ingestFirstUploadInChunks(
  database: Database,
  upload: UploadToStage,
  inMergeTransaction: InMergeTransaction | undefined,
): Promise<IngestOutcome | null | typeof STAGE_THEN_MERGE> {
  const { db } = database;
  const provisional: StagedUpload = { ...upload, staged: NOTHING_STAGED };
  const turn: { giveBack?: () => void } = {};
  try {
    const opening = await db
      .transaction()
      .execute(async (trx) => {
        const locked = await lockVersion(trx, upload.options);
        if (!locked.version.created && (await versionHasFindings(trx, locked.version.id))) {
          throw new TakeUsualPath();
        }
        // In this transaction: on PGlite's one session no other upload opens a scan meanwhile.
        const giveBack = tryTakeTurn(db, locked.version.id);
        if (giveBack === null) throw new TakeUsualPath();
        turn.giveBack = giveBack;
        const opened = await openScan(trx, provisional, locked);
        return opened;
      })
      .catch((error: unknown) => {
        if (error instanceof TakeUsualPath) return undefined;
        throw error;
      });
    if (opening === undefined) return STAGE_THEN_MERGE;
    if (opening === null) return null;
    return await insertAndSettle(database, upload, provisional, opening, inMergeTransaction);
  } finally {
    turn.giveBack?.();
  }
}

/** `ingestFirstUploadInChunks` as a landing; its staged rows stay in the shared table until it ends. */
export const pgliteFirstUpload = (database: Database): Landing => ({
  land: async (upload, inMergeTransaction) => {
    const outcome = await ingestFirstUploadInChunks(database, upload, inMergeTransaction);
    return outcome === STAGE_THEN_MERGE ? STAGE_THEN_MERGE : { outcome, stagingLeft: true };
  },
});

async function insertAndSettle(
  database: Database,
  upload: UploadToStage,
  provisional: StagedUpload,
  opened: OpenedScan,
  inMergeTransaction: InMergeTransaction | undefined,
): Promise<IngestOutcome> {
  const { db } = database;
  const deleteScan = upload.existingScanId === undefined;
  return unpublishedUntilSettled(db, opened.scanId, deleteScan, inMergeTransaction, async (settle) => {
    const steps = {
      stage: (afterCopy: AfterCopy, direct: DirectFindings) =>
        stageUpload(database, toParseOf(upload), { depth: QUEUED_CHUNKS, afterCopy, direct }),
      step: <T>(step: (trx: Transaction<DB>) => Promise<T>) => db.transaction().execute(step),
    };
    const settling = await insertWhileStaging(steps, provisional, opened, MERGE_CHUNK_ROWS);
    return settle(settling.parsed, settling.opened, settling.ahead);
  });
}
