import { type Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import { asBackgroundWork } from '../db/pglite-dialect.ts';
import type { DB } from '../db/schema.ts';
import { AppError, badRequest } from '../errors.ts';
import { ingestFirstUploadInChunks } from './chunked-first-upload.ts';
import { mergeInChunks } from './chunked-merge.ts';
import { detectParser } from './detect.ts';
import { findParser, PARSERS } from './parsers/index.ts';
import { ParseError } from './parsers/types.ts';
import { stageUpload, toParseOf } from './stage-upload.ts';
import {
  discardStaged,
  discardUploadStaging,
  NOTHING_STAGED,
  newUploadKey,
  stagingBegins,
  type StageResult,
} from './stage.ts';
import { ingestInOneTransaction, STAGE_THEN_MERGE, type UploadToStage } from './upload-in-transaction.ts';
import { inputFromFile } from './upload-input.ts';
import { openScan, settleUpload, type StagedUpload } from './upload-merge.ts';
import type {
  IngestOptions,
  IngestOutcome,
  InMergeTransaction,
  PreparedUpload,
  UploadedFile,
} from './upload-types.ts';

const supportedList = (): string => PARSERS.map((parser) => parser.name).join(', ');

/** Errors that mean "this content is broken" (bad JSON/XML, corrupt gzip), never a server fault. */
function isContentError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return error instanceof ParseError || (typeof code === 'string' && code.startsWith('Z_'));
}

const malformed = (what: string, error: unknown): AppError =>
  badRequest('malformed_file', `The file could not be read as ${what}: ${(error as Error).message}`);

/**
 * Step 3: the scanner type, named by the caller or detected from content. Unknown, undetectable or
 * disabled types are a 400 before anything is written.
 */
export async function prepareUpload(
  db: Kysely<DB>,
  file: UploadedFile,
  scannerType: string | undefined,
): Promise<PreparedUpload> {
  if (file.size === 0 && !scannerType) {
    throw badRequest(
      'empty_file',
      'The uploaded file is empty; name its scannerType if the tool found nothing',
    );
  }
  const input = await inputFromFile(file.path).catch((error: unknown) => {
    throw isContentError(error) ? malformed('the upload', error) : error;
  });
  if (!scannerType && input.sniff.head.trim() === '[]') {
    throw badRequest(
      'ambiguous_empty_report',
      'An empty list ([]) could come from several tools; name its scannerType',
    );
  }
  const detected = scannerType ? null : await detectParser(input);
  const parser = scannerType ? findParser(scannerType) : detected?.parser;
  if (!parser) {
    const detail = scannerType
      ? `Unknown scanner type "${scannerType}". Supported: ${supportedList()}`
      : `Unrecognised file format. Supported scanner types: ${supportedList()}`;
    throw new AppError(400, 'unsupported_format', detail, { supported: PARSERS.map((p) => p.name) });
  }
  const row = await db
    .selectFrom('scanner_types')
    .select(['id', 'enabled'])
    .where('name', '=', parser.name)
    .executeTakeFirst();
  if (!row) throw new AppError(400, 'unsupported_format', `Scanner type "${parser.name}" is not registered`);
  if (!row.enabled) {
    throw badRequest(
      'scanner_type_disabled',
      `Scanner type "${parser.name}" is disabled by an administrator`,
    );
  }
  // A detection that had to read every top-level key hands the parser that complete sniff.
  return { parser, scannerTypeId: row.id, input: detected?.input ?? input };
}

/**
 * Steps 4–8 for one upload: parse into staging (no transaction held), then merge: resolve the
 * version, write the scan, merge findings, record timeline and events. PostgreSQL merges in one
 * transaction; PGlite, whose one session every request waits for, in short ones (`mergeInChunks`).
 * On any failure nothing but the (failed) scan row of an async upload remains.
 */
export async function ingestPrepared(
  database: Database,
  prepared: PreparedUpload,
  file: UploadedFile,
  options: IngestOptions,
  existingScanId?: undefined,
  inMergeTransaction?: InMergeTransaction,
): Promise<IngestOutcome>;
/** An async upload's pending scan; null when another run of its job completed it first. */
export async function ingestPrepared(
  database: Database,
  prepared: PreparedUpload,
  file: UploadedFile,
  options: IngestOptions,
  existingScanId: number,
  inMergeTransaction?: InMergeTransaction,
): Promise<IngestOutcome | null>;
export async function ingestPrepared(
  database: Database,
  prepared: PreparedUpload,
  file: UploadedFile,
  options: IngestOptions,
  existingScanId?: number,
  inMergeTransaction?: InMergeTransaction,
): Promise<IngestOutcome | null> {
  // On PGlite an upload's statements yield the session to requests (pglite-dialect.ts): a 100k
  // upload takes seconds, a page of findings milliseconds. PostgreSQL: no effect.
  return asBackgroundWork(() =>
    ingestInBackground(database, prepared, file, options, existingScanId, inMergeTransaction),
  );
}

/**
 * Staging in the staging thread (stage-in-worker.ts), or below `workerMinBytes` in the server's
 * thread: the server's thread then only writes the chunks. On PGlite, whose COPY runs in the server's thread,
 * the parse overlaps it; on PostgreSQL the parse no longer waits for the COPY's turns of the event
 * loop (a 100k re-upload staged in 4.3–4.4 s in the server's thread).
 */
function stage(database: Database, upload: UploadToStage): Promise<StageResult> {
  return stageUpload(database, toParseOf(upload), { depth: 2 });
}

async function ingestInBackground(
  database: Database,
  prepared: PreparedUpload,
  file: UploadedFile,
  options: IngestOptions,
  existingScanId: number | undefined,
  inMergeTransaction: InMergeTransaction | undefined,
): Promise<IngestOutcome | null> {
  const uploadKey = newUploadKey();
  const startedAt = new Date();
  let stagingDiscarded = false;
  stagingBegins(database, uploadKey);
  try {
    const upload = { category: options.category ?? null, root: options.root ?? null };
    const { copyTransaction } = database;
    const { workerMinBytes } = options;
    const toStage = { prepared, file, options, upload, uploadKey, startedAt, existingScanId, workerMinBytes };
    const contentError = (error: unknown) => {
      throw isContentError(error) ? malformed(prepared.parser.displayName, error) : error;
    };
    if (copyTransaction !== undefined && file.size > 0) {
      const outcome = await ingestInOneTransaction(
        { ...database, copyTransaction },
        toStage,
        inMergeTransaction,
      ).catch(contentError);
      // Committed or rolled back, the transaction took its staged rows with it.
      if (outcome !== STAGE_THEN_MERGE) {
        stagingDiscarded = true;
        return outcome;
      }
    }
    if (database.kind === 'pglite' && file.size > 0) {
      // Its staged rows stay in the shared table until `finally` below.
      const outcome = await ingestFirstUploadInChunks(database, toStage, inMergeTransaction).catch(
        contentError,
      );
      if (outcome !== STAGE_THEN_MERGE) return outcome;
    }
    // A zero-byte report named by its scanner type is a tool that found nothing.
    const staged = file.size === 0 ? NOTHING_STAGED : await stage(database, toStage).catch(contentError);
    const work: StagedUpload = { prepared, file, options, uploadKey, startedAt, staged, existingScanId };
    if (database.kind === 'pglite') return await mergeInChunks(database.db, work, inMergeTransaction);
    const outcome = await database.db.transaction().execute(async (trx) => {
      const opened = await openScan(trx, work);
      if (!opened) return null;
      const result = await settleUpload(trx, work, opened);
      // Everything the upload still has to do happens before the commit.
      await discardStaged(trx, uploadKey);
      await inMergeTransaction?.(trx, result.counts);
      return result;
    });
    stagingDiscarded = outcome !== null;
    return outcome;
  } finally {
    await discardUploadStaging(database, uploadKey, !stagingDiscarded);
  }
}
