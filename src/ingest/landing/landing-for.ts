import type { Database } from '../../db/database.ts';
import type { UploadedFile } from '../upload-types.ts';
import { STAGE_THEN_MERGE, type Landing } from './landing.ts';
import { pgliteChunkedMerge } from './pglite-chunked-merge.ts';
import { pgliteFirstUpload } from './pglite-first-upload.ts';
import { postgresOneTransaction } from './postgres-one-transaction.ts';
import { postgresStageThenMerge } from './postgres-stage-then-merge.ts';

/** `first`, and where it declines, `then` (which never declines). */
const orElse = (first: Landing, then: Landing): Landing => ({
  land: async (upload, inMergeTransaction) => {
    const landed = await first.land(upload, inMergeTransaction);
    return landed === STAGE_THEN_MERGE ? then.land(upload, inMergeTransaction) : landed;
  },
});

/**
 * The way `upload` lands in `database`, one of four:
 * - PostgreSQL: in one transaction opened before the parse, its rows copied into the transaction's
 *   own table, a first upload's straight into `findings` (postgres-one-transaction.ts); where that
 *   declines, staged into the shared table and merged in one transaction (postgres-stage-then-merge.ts);
 * - PGlite: a version's first upload written in short transactions while it is parsed
 *   (pglite-first-upload.ts); any other staged, then merged in short transactions
 *   (pglite-chunked-merge.ts), so requests get PGlite's one session in between.
 * A zero-byte report (a tool that found nothing, named by its scanner type) has nothing to copy:
 * it takes the usual way.
 */
export function landingFor(database: Database, upload: { file: UploadedFile }): Landing {
  const empty = upload.file.size === 0;
  if (database.kind === 'pglite') {
    const usual = pgliteChunkedMerge(database);
    return empty ? usual : orElse(pgliteFirstUpload(database), usual);
  }
  const usual = postgresStageThenMerge(database);
  const { copyTransaction } = database;
  if (empty || copyTransaction === undefined) return usual;
  return orElse(postgresOneTransaction({ ...database, copyTransaction }), usual);
}
