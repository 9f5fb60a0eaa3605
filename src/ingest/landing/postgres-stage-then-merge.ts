import type { Database } from '../../db/database.ts';
import { discardStaged } from '../stage.ts';
import { openScan, recordUploadAudit, settleUpload, type StagedUpload } from '../merge/upload-scan.ts';
import { stageShared, type Landing } from './landing.ts';

/**
 * PostgreSQL's usual way: staged into the shared table with no transaction held, then merged in one
 * transaction, which waits for the version's lock only once the rows are staged. The staged rows are
 * deleted before the commit; on any failure nothing but the (failed) scan row of an async upload
 * remains.
 */
export const postgresStageThenMerge = (database: Database): Landing => ({
  land: async (upload, inMergeTransaction) => {
    const staged = await stageShared(database, upload);
    const work: StagedUpload = { ...upload, staged };
    const outcome = await database.db.transaction().execute(async (trx) => {
      const opened = await openScan(trx, work);
      if (!opened) return null;
      const result = await settleUpload(trx, work, opened);
      // Everything the upload still has to do happens before the commit.
      await discardStaged(trx, upload.uploadKey);
      await inMergeTransaction?.(trx, result.counts);
      await recordUploadAudit(trx, work, result);
      return result;
    });
    return { outcome, stagingLeft: outcome === null };
  },
});
