import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { CopyTable } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { ASSET_WEIGHT } from '../../domain/findings/risk.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { slaDaysForApplication, type SlaDays } from '../../domain/findings/sla.ts';
import { publishEvents } from '../../events/events.ts';
import { reactInTransaction } from '../../events/subscribers.ts';
import type { MergedAhead } from './candidates.ts';
import { mergeComponents, type ComponentScope } from './components.ts';
import { mergeStaged } from './merge-staged.ts';
import type { MergeTarget } from './target.ts';
import type { ParserModule } from '../parse/parsers/types.ts';
import type { IngestOptions, IngestOutcome, PreparedUpload, UploadedFile } from '../upload-types.ts';
import { resolveVersion, type ResolvedVersion } from '../resolve-version.ts';
import type { StageResult, UploadScope } from '../stage.ts';

/**
 * The steps of an upload's merge both engines share (pipeline.ts runs them in one transaction on
 * PostgreSQL; landing/pglite-chunked-merge.ts in short ones on PGlite): open the scan, then settle the upload.
 */

/** First key of the advisory locks that serialize merges per version (the second is the version id). */
const MERGE_LOCK_SPACE = 0x5ca4;
/** First key of the locks on a version's name while an upload may create it (landing/postgres-one-transaction.ts). */
const VERSION_NAME_LOCK_SPACE = 0x5ca5;
/**
 * The scopes an upload speaks for. A native format's scanner is its tool, so its empty report
 * speaks for every tool of the scanner type (in the upload's category). A SARIF log names its
 * tools in its runs; one with no run at all names none, and closes nothing.
 */
function uploadScopes(parser: ParserModule, scopes: UploadScope[], category: string | null): UploadScope[] {
  if (scopes.length > 0 || parser.name === 'sarif') return scopes;
  return [{ toolName: null, category: category ?? '' }];
}

/** What one upload's merge works with, once its rows are staged. */
export interface StagedUpload {
  prepared: PreparedUpload;
  file: UploadedFile;
  options: IngestOptions;
  uploadKey: string;
  startedAt: Date;
  staged: StageResult;
  /** Where the rows are staged; default the shared `ingest_staging`. */
  staging?: CopyTable;
  /** An async upload's pending scan. */
  existingScanId: number | undefined;
}

/** The scan an upload writes into, in its version. */
export interface OpenedScan {
  applicationId: number;
  versionId: number;
  scanId: number;
  target: MergeTarget;
}

/**
 * Resolves the version and writes (or, for an async upload, locks) the scan, `processing` until the
 * merge completes it. Null when another run of an async upload's job completed it first.
 */
export async function openScan(
  trx: Transaction<DB>,
  work: StagedUpload,
  locked?: LockedVersion,
): Promise<OpenedScan | null> {
  const { file, options, existingScanId } = work;
  if (existingScanId !== undefined && !(await scanStillOpen(trx, existingScanId))) return null;
  const { application, version } = locked ?? (await lockVersion(trx, options));
  const scanId =
    existingScanId ??
    (
      await trx
        .insertInto('scans')
        .values({
          ...uploadScanRow(application.id, version, file, options),
          ...scanColumns(work, version.id),
          status: 'processing',
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const opened = { applicationId: application.id, versionId: version.id, scanId };
  const slaDays = await slaDaysForApplication(trx, application.id);
  return {
    ...opened,
    target: mergeTarget(work, opened, ASSET_WEIGHT[application.asset_criticality], slaDays),
  };
}

/** The merge's view of an upload in its scan: what it staged, and where it goes. */
export function mergeTarget(
  work: StagedUpload,
  opened: Omit<OpenedScan, 'target'>,
  assetWeight: number,
  slaDays: SlaDays,
): MergeTarget {
  const { prepared, options, staged } = work;
  return {
    uploadKey: work.uploadKey,
    staging: work.staging ?? 'ingest_staging',
    applicationId: opened.applicationId,
    versionId: opened.versionId,
    scannerTypeId: prepared.scannerTypeId,
    scanId: opened.scanId,
    assetWeight,
    slaDays,
    scopes: uploadScopes(prepared.parser, staged.scopes, options.category ?? null),
    partial: options.partial ?? false,
    coveredFiles: staged.coveredFiles,
    twinBases: staged.twinBases,
    stagedRows: staged.findingsCount,
    twinRows: staged.twinRows,
  };
}

/** An upload's application and version, the version locked for this transaction's merge. */
export interface LockedVersion {
  application: { id: number; asset_criticality: keyof typeof ASSET_WEIGHT };
  version: Pick<ResolvedVersion, 'id' | 'created'>;
}

/** Resolves (creating if need be) the upload's version and takes its merge lock. */
export async function lockVersion(trx: Transaction<DB>, options: IngestOptions): Promise<LockedVersion> {
  const application = await applicationOf(trx, options);
  const version = await resolveVersion(trx, application.id, options.versionName, options.branch);
  // Uploads into one version merge one at a time (parsing and staging still run side by side):
  // concurrent merges over the same findings deadlocked on PostgreSQL, and "absent from this
  // upload" only means something against the state the previous upload left.
  await sql`select pg_advisory_xact_lock(${MERGE_LOCK_SPACE}, ${version.id})`.execute(trx);
  return { application, version };
}

/**
 * `lockVersion` for a transaction that would hold the lock through a parse: null, having waited
 * for nothing, when another upload holds the version's lock or is creating it (its name's lock,
 * taken before the version row is written: waiting on an uncommitted row would hold this
 * transaction's connection for the other's whole parse).
 */
export async function tryLockVersion(
  trx: Transaction<DB>,
  options: IngestOptions,
): Promise<LockedVersion | null> {
  const application = await applicationOf(trx, options);
  const name = options.versionName ?? options.branch;
  if (
    name !== undefined &&
    !(await tryLock(trx, VERSION_NAME_LOCK_SPACE, sql`hashtext(${`${application.id}:${name}`})`))
  )
    return null;
  const version = await resolveVersion(trx, application.id, options.versionName, options.branch);
  return (await tryLock(trx, MERGE_LOCK_SPACE, sql`${version.id}::integer`))
    ? { application, version }
    : null;
}

async function tryLock(trx: Transaction<DB>, space: number, key: RawBuilder<unknown>): Promise<boolean> {
  const { rows } = await sql<{ locked: boolean }>`
    select pg_try_advisory_xact_lock(${space}::integer, ${key}) as locked`.execute(trx);
  return rows[0]?.locked === true;
}

const applicationOf = (trx: Transaction<DB>, options: IngestOptions) =>
  trx
    .selectFrom('applications')
    .select(['id', 'asset_criticality'])
    .where('id', '=', options.applicationId)
    .executeTakeFirstOrThrow();

/**
 * A job delivered twice (its first worker seemed dead, or was slow) merges once: the second run
 * waits on the scan row and finds it completed.
 */
export async function scanStillOpen(trx: Transaction<DB>, scanId: number): Promise<boolean> {
  const current = await trx
    .selectFrom('scans')
    .select('status')
    .where('id', '=', scanId)
    .forUpdate()
    .executeTakeFirst();
  return current !== undefined && current.status !== 'completed';
}

/**
 * A scan's columns that its upload's file and options give, whether the scan is written when the
 * upload is taken (`async`, pending) or when its merge opens it (`openScan`).
 */
export const uploadScanRow = (
  applicationId: number,
  version: Pick<ResolvedVersion, 'id' | 'created'>,
  file: UploadedFile,
  options: IngestOptions,
) => ({
  application_id: applicationId,
  version_id: version.id,
  created_version: version.created,
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
  upload_audit: options.audit ? JSON.stringify(options.audit) : null,
});

/** The context of an upload's audit row: the request's, else (older stored scans) the uploader alone. */
function uploadAuditContext(options: IngestOptions): AuditContext {
  if (options.audit) return options.audit;
  const actor =
    options.uploadedVia === 'application_token'
      ? {
          type: 'application_token' as const,
          id: String(options.applicationId),
          label: `application ${options.applicationId}`,
        }
      : {
          type: options.uploadedVia === 'api_key' ? ('api_key' as const) : ('user' as const),
          id: options.uploadedBy === null ? null : String(options.uploadedBy),
          label: null,
        };
  return { actor, requestId: null, ip: null, userAgent: null };
}

const scanColumns = (work: StagedUpload, versionId: number) => ({
  version_id: versionId,
  scanner_type_id: work.prepared.scannerTypeId,
  scanner_type: work.prepared.parser.name,
  tool_name: work.staged.toolName ?? work.prepared.parser.displayName,
  tool_version: work.staged.toolVersion,
  started_at: work.startedAt,
  findings_count: work.staged.findingsCount,
});

/**
 * The scope an upload's components replace: its version, the tool the report speaks for (an SBOM's
 * generator), the upload's category.
 */
function componentScope(work: StagedUpload, opened: OpenedScan): ComponentScope {
  const tool = work.staged.scopes[0]?.toolName ?? work.staged.toolName ?? work.prepared.parser.displayName;
  return {
    applicationId: opened.applicationId,
    versionId: opened.versionId,
    scanId: opened.scanId,
    toolName: tool,
    category: work.options.category ?? '',
  };
}

/**
 * The merge and what follows it in the same transaction: policies on the new findings, the scan
 * completed (and its findings counted: they count once it completes), `scan.completed` and its
 * policies. `ahead`: what a chunked merge did beforehand.
 */
export async function settleUpload(
  trx: Transaction<DB>,
  work: StagedUpload,
  opened: OpenedScan,
  ahead?: MergedAhead,
): Promise<IngestOutcome> {
  const { applicationId, versionId, scanId } = opened;
  const counts = await mergeStaged(trx, opened.target, ahead);
  // Reports that list no components (SARIF, most scanners) skip this: not one statement.
  const components =
    work.staged.components === null
      ? null
      : await mergeComponents(trx, componentScope(work, opened), work.staged.components);
  // Step 7 of the spec's flow: policies act before the answer (and before webhooks, which are
  // dispatched after commit). Status moves by ingest ran them inside mergeStaged.
  const uploaded = { versionId, scanId };
  const applicationIds = [applicationId];
  await reactInTransaction(trx, {
    event: 'finding.created',
    applicationIds,
    findings: { ...uploaded, newOnly: true },
  });
  const completed = await trx
    .updateTable('scans')
    .set({
      ...scanColumns(work, versionId),
      status: 'completed',
      completed_at: new Date(),
      new_findings_count: counts.new,
      existing_findings_count: counts.existing,
      fixed_findings_count: counts.fixed,
      reopened_findings_count: counts.reopened,
      ...(components === null
        ? {}
        : { components_added: components.added, components_removed: components.removed }),
      spool_path: null,
      updated_at: new Date(),
    })
    .where('id', '=', scanId)
    .returningAll()
    .executeTakeFirstOrThrow();
  // The scan's findings were counted apart until it completed; they join the ledger now, and later
  // changes to them go there directly (migration 2026-11-24T1500).
  await sql`select publish_finding_counts(${scanId}::integer)`.execute(trx);
  await publishEvents(trx, [
    {
      type: 'scan.completed',
      applicationId,
      scanId,
      data: {
        findings: work.staged.findingsCount,
        new: counts.new,
        existing: counts.existing,
        fixed: counts.fixed,
      },
    },
  ]);
  await reactInTransaction(trx, {
    event: 'scan.completed',
    applicationIds,
    findings: { ...uploaded, newOnly: false },
  });
  return { scanId, scan: completed, counts: { ...counts, findings: work.staged.findingsCount } };
}

/**
 * An upload's one audit row (never one per finding). Each landing calls it last in its merge
 * transaction, after whatever else that transaction does (the staged rows' delete, the vacuum's job):
 * from this statement until commit the transaction holds the audit chain's head, and every other
 * writer of the trail waits for it.
 */
export async function recordUploadAudit(
  trx: Transaction<DB>,
  work: StagedUpload,
  outcome: IngestOutcome,
): Promise<void> {
  const { scan, counts } = outcome;
  await recordAudit(trx, uploadAuditContext(work.options), {
    action: 'upload.completed',
    target: { type: 'scan', id: outcome.scanId, label: work.file.name },
    applicationId: scan.application_id,
    details: {
      version_id: scan.version_id,
      scanner: work.prepared.parser.name,
      file_size: work.file.size,
      file_sha256: work.file.sha256,
      findings: counts.findings,
      new: counts.new,
      existing: counts.existing,
      fixed: counts.fixed,
      reopened: counts.reopened,
    },
  });
}
