import type { Selectable, Transaction } from 'kysely';
import type { DB, ScansTable } from '../db/schema.ts';
import type { AuditContext } from '../events/audit.ts';
import { type MergeCounts } from './merge/target.ts';
import type { ParserInput, ParserModule } from './parse/parsers/types.ts';

/**
 * What an upload is on its way through ingestion: the pipeline (pipeline.ts) and the ways it merges
 * (landing/postgres-one-transaction.ts, landing/pglite-chunked-merge.ts, merge/upload-scan.ts) share these, so they live apart
 * from all of them.
 */

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
  uploadedVia: 'api_key' | 'session' | 'application_token' | 'system';
  idempotencyKey?: string | undefined;
  /** Scope of its own for this upload, like GitHub upload-sarif's `category`; replaces the report's. */
  category?: string | undefined;
  /** Absence closes only findings in the files this upload covers (its results' files, SARIF artifacts). */
  partial?: boolean | undefined;
  /** The scanned directory: stripped from the front of every path (the CLI sends its working directory). */
  root?: string | undefined;
  /**
   * Files this large or larger are parsed in the staging thread (the server's
   * INGEST_WORKER_MIN_BYTES, 0 by default: all); absent, every file is parsed in the server's thread.
   */
  workerMinBytes?: number | undefined;
  /** Who sent it, from where: the upload's audit row (one per upload, written when it completes). */
  audit?: AuditContext | undefined;
}

export interface PreparedUpload {
  parser: ParserModule;
  scannerTypeId: number;
  input: ParserInput;
}

export interface IngestOutcome {
  scanId: number;
  /** The scan row as committed, so the caller answers without another statement. */
  scan: Selectable<ScansTable>;
  counts: MergeCounts & { findings: number };
}

/** Work the caller adds to the merge transaction (it commits with the merge, or not at all). */
export type InMergeTransaction = (trx: Transaction<DB>, counts: IngestOutcome['counts']) => Promise<void>;
