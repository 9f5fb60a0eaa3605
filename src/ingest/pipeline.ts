import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DB, ScansTable } from '../db/schema.ts';
import { runPolicies } from '../domain/policies/runner.ts';
import { publishEvents } from '../events/events.ts';
import { AppError, badRequest } from '../errors.ts';
import { ASSET_WEIGHT } from '../domain/findings/risk.ts';
import { detectParser } from './detect.ts';
import { mergeStaged, type MergeCounts } from './merge.ts';
import { findParser, PARSERS } from './parsers/index.ts';
import { ParseError, type ParserInput, type ParserModule } from './parsers/types.ts';
import { resolveVersion } from './resolve-version.ts';
import { discardStaged, newUploadKey, stageFindings, type UploadScope } from './stage.ts';
import { inputFromFile } from './upload-input.ts';

export interface UploadedFile {
  path: string;
  size: number;
  sha256: string;
  name: string | null;
}

export interface IngestOptions {
  applicationId: number;
  versionName?: string | undefined;
  branch?: string | undefined;
  scannerType?: string | undefined;
  uploadedBy: number | null;
  uploadedVia: 'api_key' | 'session' | 'application_token';
  idempotencyKey?: string | undefined;
  /** Scope of its own for this upload, like GitHub upload-sarif's `category`; replaces the report's. */
  category?: string | undefined;
  /** Absence closes only findings in the files this upload covers (its results' files, SARIF artifacts). */
  partial?: boolean | undefined;
  /** The scanned directory: stripped from the front of every path (the CLI sends its working directory). */
  root?: string | undefined;
}

export interface PreparedUpload {
  parser: ParserModule;
  scannerTypeId: number;
  input: ParserInput;
}

/** First key of the advisory locks that serialize merges per version (the second is the version id). */
const MERGE_LOCK_SPACE = 0x5ca4;

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
 * The scopes an upload speaks for. A native format's scanner is its tool, so its empty report
 * speaks for every tool of the scanner type (in the upload's category). A SARIF log names its
 * tools in its runs; one with no run at all names none, and closes nothing.
 */
function uploadScopes(parser: ParserModule, scopes: UploadScope[], category: string | null): UploadScope[] {
  if (scopes.length > 0 || parser.name === 'sarif') return scopes;
  return [{ toolName: null, category: category ?? '' }];
}

export interface IngestOutcome {
  scanId: number;
  /** The scan row as committed, so the caller answers without another statement. */
  scan: Selectable<ScansTable>;
  counts: MergeCounts & { findings: number };
}

/** Work the caller adds to the merge transaction (it commits with the merge, or not at all). */
export type InMergeTransaction = (trx: Transaction<DB>, counts: IngestOutcome['counts']) => Promise<void>;

/**
 * Steps 4–8 for one upload: parse into staging (no transaction held), then one transaction that
 * resolves the version, writes the scan, merges findings, records timeline and events. On any
 * failure nothing but the (failed) scan row of an async upload remains.
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
  const { db } = database;
  const uploadKey = newUploadKey();
  const startedAt = new Date();
  let stagingDiscarded = false;
  try {
    const upload = { category: options.category ?? null, root: options.root ?? null };
    // A zero-byte report named by its scanner type is a tool that found nothing.
    const staged =
      file.size === 0
        ? { findingsCount: 0, toolName: null, toolVersion: null, scopes: [], coveredFiles: [] }
        : await stageFindings(database, prepared.parser, prepared.input, uploadKey, upload).catch(
            (error: unknown) => {
              throw isContentError(error) ? malformed(prepared.parser.displayName, error) : error;
            },
          );
    const outcome = await db.transaction().execute(async (trx) => {
      if (existingScanId !== undefined) {
        // A job delivered twice (its first worker seemed dead, or was slow) merges once: the second
        // run waits on the scan row and finds it completed.
        const current = await trx
          .selectFrom('scans')
          .select('status')
          .where('id', '=', existingScanId)
          .forUpdate()
          .executeTakeFirst();
        if (!current || current.status === 'completed') return null;
      }
      const application = await trx
        .selectFrom('applications')
        .select(['id', 'asset_criticality'])
        .where('id', '=', options.applicationId)
        .executeTakeFirstOrThrow();
      const version = await resolveVersion(trx, application.id, options.versionName, options.branch);
      // Uploads into one version merge one at a time (parsing and staging still run side by side):
      // concurrent merges over the same findings deadlocked on PostgreSQL, and "absent from this
      // upload" only means something against the state the previous upload left.
      await sql`select pg_advisory_xact_lock(${MERGE_LOCK_SPACE}, ${version.id})`.execute(trx);
      const scanColumns = {
        version_id: version.id,
        scanner_type_id: prepared.scannerTypeId,
        scanner_type: prepared.parser.name,
        tool_name: staged.toolName ?? prepared.parser.displayName,
        tool_version: staged.toolVersion,
        status: 'completed' as const,
        started_at: startedAt,
        completed_at: new Date(),
        findings_count: staged.findingsCount,
      };
      const scan =
        existingScanId === undefined
          ? await trx
              .insertInto('scans')
              .values({
                application_id: application.id,
                file_name: file.name,
                file_size: file.size,
                file_sha256: file.sha256,
                uploaded_by: options.uploadedBy,
                uploaded_via: options.uploadedVia,
                idempotency_key: options.idempotencyKey ?? null,
                branch: options.branch ?? null,
                category: options.category ?? null,
                partial: options.partial ?? false,
                root: options.root ?? null,
                ...scanColumns,
              })
              .returning('id')
              .executeTakeFirstOrThrow()
          : { id: existingScanId };
      const counts = await mergeStaged(trx, {
        uploadKey,
        applicationId: application.id,
        versionId: version.id,
        scannerTypeId: prepared.scannerTypeId,
        scanId: scan.id,
        assetWeight: ASSET_WEIGHT[application.asset_criticality],
        scopes: uploadScopes(prepared.parser, staged.scopes, upload.category),
        partial: options.partial ?? false,
        coveredFiles: staged.coveredFiles,
      });
      // Step 7 of the spec's flow: policies act before the answer (and before webhooks, which are
      // dispatched after commit). Status moves by ingest ran them inside mergeStaged.
      const uploaded = { versionId: version.id, scanId: scan.id };
      const applicationIds = [application.id];
      await runPolicies(trx, {
        event: 'finding.created',
        applicationIds,
        findings: { ...uploaded, newOnly: true },
      });
      const completed = await trx
        .updateTable('scans')
        .set({
          ...scanColumns,
          completed_at: new Date(),
          new_findings_count: counts.new,
          existing_findings_count: counts.existing,
          fixed_findings_count: counts.fixed,
          reopened_findings_count: counts.reopened,
          spool_path: null,
          updated_at: new Date(),
        })
        .where('id', '=', scan.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await publishEvents(trx, [
        {
          type: 'scan.completed',
          applicationId: application.id,
          scanId: scan.id,
          data: {
            findings: staged.findingsCount,
            new: counts.new,
            existing: counts.existing,
            fixed: counts.fixed,
          },
        },
      ]);
      await runPolicies(trx, {
        event: 'scan.completed',
        applicationIds,
        findings: { ...uploaded, newOnly: false },
      });
      const allCounts = { ...counts, findings: staged.findingsCount };
      // Everything the upload still has to do happens before the commit: on PGlite's one session,
      // each statement after it would queue behind the background work the commit sets off.
      await discardStaged(trx, uploadKey);
      await inMergeTransaction?.(trx, allCounts);
      return { scanId: scan.id, scan: completed, counts: allCounts };
    });
    stagingDiscarded = outcome !== null;
    return outcome;
  } finally {
    if (!stagingDiscarded) await discardStaged(db, uploadKey);
  }
}
