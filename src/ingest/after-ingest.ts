import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import type { InMergeTransaction } from './upload-types.ts';

/**
 * What an upload's orchestration needs from the rest of the server, as ports: the job queue (the
 * jobs it sends) and the metrics it records. The server passes its `Jobs` and `Metrics`.
 */
export interface IngestJobs {
  send(executor: Transaction<DB>, name: 'ingest-scan', payload: { scanId: number }): Promise<void>;
  send(executor: Transaction<DB>, name: 'vacuum-after-ingest', payload: Record<string, never>): Promise<void>;
  send(executor: Kysely<DB>, name: 'enrichment-apply-version', payload: { versionId: number }): Promise<void>;
  wake(name: 'ingest-scan' | 'vacuum-after-ingest' | 'enrichment-apply-version'): void;
}

/**
 * After an upload committed: copy EPSS and KEV onto its version's findings naming CVEs, in a job
 * (never in the upload's transaction). Only when the upload found something and a snapshot exists.
 */
export async function enrichLater(
  deps: { db: Kysely<DB>; jobs: Pick<IngestJobs, 'send' | 'wake'> },
  scan: { version_id: number; findings_count: number },
): Promise<void> {
  if (scan.findings_count === 0) return;
  const snapshot = await deps.db
    .selectFrom('enrichment_snapshots')
    .select('id')
    .where('current', '=', true)
    .executeTakeFirst();
  if (!snapshot) return;
  await deps.jobs.send(deps.db, 'enrichment-apply-version', { versionId: scan.version_id });
  deps.jobs.wake('enrichment-apply-version');
}

export interface IngestMetrics {
  ingestDuration: { observe(labels: { format: string; mode: 'sync' | 'async' }, seconds: number): void };
  ingestBytes: { inc(labels: { format: string }, value: number): void };
  ingestFindings: { inc(labels: { format: string }, value: number): void };
}

/** PGlite has no autovacuum: clean up after uploads big enough to leave many dead rows. */
const MAINTAIN_AFTER_FINDINGS = 10_000;

/** Whether an upload left enough dead rows on PGlite to be vacuumed after its answer. */
function needsVacuum(database: Database, findings: number): boolean {
  return database.kind === 'pglite' && findings >= MAINTAIN_AFTER_FINDINGS;
}

/**
 * Asks for the vacuum of what a big upload churned, in its merge transaction: a background job
 * (`vacuum-after-ingest`) does it after the answer, yielding to requests on PGlite's one session, as
 * PostgreSQL's autovacuum would. PostgreSQL needs none.
 */
export function vacuumLater(
  database: Database,
  jobs: Pick<IngestJobs, 'send'>,
): InMergeTransaction | undefined {
  if (database.kind !== 'pglite') return undefined;
  return async (trx, counts) => {
    if (needsVacuum(database, counts.findings)) await jobs.send(trx, 'vacuum-after-ingest', {});
  };
}

/** Starts the vacuum `vacuumLater` queued, now that its transaction has committed. */
export function startVacuum(
  deps: { database: Database; jobs: Pick<IngestJobs, 'wake'> },
  findings: number,
): void {
  if (needsVacuum(deps.database, findings)) deps.jobs.wake('vacuum-after-ingest');
}

/** One completed upload in the metrics: its duration, size and findings, by format. */
export function recordIngest(
  metrics: IngestMetrics,
  scan: { scanner_type: string | null; file_size: number | string; findings_count: number },
  startedAt: number,
  mode: 'sync' | 'async',
): void {
  const format = scan.scanner_type ?? 'unknown';
  metrics.ingestDuration.observe({ format, mode }, (performance.now() - startedAt) / 1000);
  metrics.ingestBytes.inc({ format }, Number(scan.file_size));
  metrics.ingestFindings.inc({ format }, scan.findings_count);
}
