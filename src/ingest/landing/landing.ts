import type { Database } from '../../db/database.ts';
import type { StageResult, UploadContext } from '../stage.ts';
import type {
  IngestOptions,
  IngestOutcome,
  InMergeTransaction,
  PreparedUpload,
  UploadedFile,
} from '../upload-types.ts';
import { stageUpload, toParseOf } from '../stage-upload.ts';
import { NOTHING_STAGED } from '../stage.ts';

/** An upload about to land: parsed, staged and merged into its version's findings. */
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
 * Another upload holds the version, or the version has findings and the way does not serve such a
 * version: the upload is staged, then merged, the usual way (which waits for the version's lock only
 * once its rows are staged).
 */
export const STAGE_THEN_MERGE = Symbol('stage, then merge');

/** How an upload ended: its outcome, and whether staged rows of it may be left in `ingest_staging`. */
export interface Landed {
  /** null: another run of an async upload's job completed its scan first. */
  outcome: IngestOutcome | null;
  /** Its rows in the shared staging table, if any, are deleted after (`discardUploadStaging`). */
  stagingLeft: boolean;
}

/** One way an upload lands in the database (`landingFor` picks it). */
export interface Landing {
  /**
   * Lands the upload, or declines (`STAGE_THEN_MERGE`) having written nothing but, maybe, its
   * version row. `inMergeTransaction` runs in the transaction that completes the scan.
   */
  land(
    upload: UploadToStage,
    inMergeTransaction: InMergeTransaction | undefined,
  ): Promise<Landed | typeof STAGE_THEN_MERGE>;
}

/**
 * The usual way's staging, into the shared `ingest_staging` table: in the staging thread
 * (stage-in-worker.ts), or below `workerMinBytes` in the server's thread, which then only writes the
 * chunks. On PGlite, whose COPY runs in the server's thread, the parse overlaps it; on PostgreSQL the
 * parse no longer waits for the COPY's turns of the event loop (a 100k re-upload staged in 4.3–4.4 s
 * in the server's thread). A zero-byte report named by its scanner type is a tool that found nothing.
 */
export function stageShared(database: Database, upload: UploadToStage): Promise<StageResult> {
  if (upload.file.size === 0) return Promise.resolve(NOTHING_STAGED);
  return stageUpload(database, toParseOf(upload), { depth: 2 });
}
