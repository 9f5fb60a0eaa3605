import { type Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import { asBackgroundWork } from '../db/pglite-dialect.ts';
import type { DB } from '../db/schema.ts';
import { AppError, badRequest } from '../errors.ts';
import { detectParser } from './parse/detect.ts';
import { findParser, PARSERS } from './parse/parsers/index.ts';
import { ParseError } from './parse/parsers/types.ts';
import { STAGE_THEN_MERGE, type UploadToStage } from './landing/landing.ts';
import { landingFor } from './landing/landing-for.ts';
import { discardUploadStaging, newUploadKey, stagingBegins } from './stage.ts';
import { inputFromFile } from './upload-input.ts';
import type {
  IngestOptions,
  IngestOutcome,
  InMergeTransaction,
  PreparedUpload,
  UploadedFile,
} from './upload-types.ts';

const UPLOADABLE = PARSERS.filter((parser) => !parser.internal);
const supportedList = (): string => UPLOADABLE.map((parser) => parser.name).join(', ');

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
  origin: 'upload' | 'scanhub' = 'upload',
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
  const named = scannerType ? findParser(scannerType) : detected?.parser;
  // scanhub's own reports (licence policy evaluations) are not for uploads to name.
  const parser = named?.internal && origin === 'upload' ? undefined : named;
  if (!parser) {
    const detail = scannerType
      ? `Unknown scanner type "${scannerType}". Supported: ${supportedList()}`
      : `Unrecognised file format. Supported scanner types: ${supportedList()}`;
    throw new AppError(400, 'unsupported_format', detail, { supported: UPLOADABLE.map((p) => p.name) });
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

async function ingestInBackground(
  database: Database,
  prepared: PreparedUpload,
  file: UploadedFile,
  options: IngestOptions,
  existingScanId: number | undefined,
  inMergeTransaction: InMergeTransaction | undefined,
): Promise<IngestOutcome | null> {
  const uploadKey = newUploadKey();
  let stagingLeft = true;
  stagingBegins(database, uploadKey);
  try {
    const upload: UploadToStage = {
      prepared,
      file,
      options,
      upload: { category: options.category ?? null, root: options.root ?? null },
      uploadKey,
      startedAt: new Date(),
      existingScanId,
      workerMinBytes: options.workerMinBytes,
    };
    const landed = await landingFor(database, upload)
      .land(upload, inMergeTransaction)
      .catch((error: unknown) => {
        throw isContentError(error) ? malformed(prepared.parser.displayName, error) : error;
      });
    // The last way `landingFor` names never declines.
    if (landed === STAGE_THEN_MERGE) throw new Error('every way of landing the upload declined it');
    stagingLeft = landed.stagingLeft;
    return landed.outcome;
  } finally {
    await discardUploadStaging(database, uploadKey, stagingLeft);
  }
}
