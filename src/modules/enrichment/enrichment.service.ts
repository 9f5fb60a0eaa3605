import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { AppError } from '../../errors.ts';
import { badRequest, conflict } from '../../errors.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import type { JobSender } from '../../jobs/job-map.ts';
import {
  createSnapshot,
  currentSnapshot,
  lockSource,
  makeCurrent,
  settleEpss,
  settleKev,
  settleRowCount,
  snapshotByKey,
  stageEpss,
  stageKev,
  startStaging,
  type SnapshotRow,
} from './enrichment.repository.ts';
import { presentSnapshot, type SnapshotRecord } from './enrichment.presenter.ts';
import { EnrichmentFormatError, openEnrichmentFile, type EnrichmentFile } from './sources/index.ts';

/** EPSS rows per statement: three array parameters, so the statement size does not grow with it. */
const EPSS_BATCH = 10_000;

export interface ImportOptions {
  /** Accept a file older than the current snapshot (it becomes current). */
  force?: boolean;
  fileName: string | null;
  sha256: string | null;
  origin: 'upload' | 'fetch';
  importedBy: number | null;
  audit: AuditContext;
}

export interface ImportResult {
  /**
   * `imported`: a new snapshot replaced the source's data; `merged`: rows added to the current
   * snapshot (the same file in pieces); `unchanged`: the file said nothing new.
   */
  outcome: 'imported' | 'merged' | 'unchanged';
  snapshot: SnapshotRecord;
  rows_read: number;
  rows_changed: number;
}

function formatError(error: EnrichmentFormatError): AppError {
  return badRequest('invalid_enrichment_file', `The file is malformed at ${error.message}`, [
    { path: error.where, message: error.message.slice(error.where.length + 2) },
  ]);
}

/** Zlib and stream failures while rows are read are the file's fault, not the server's. */
function readError(error: unknown): unknown {
  if (error instanceof EnrichmentFormatError) return formatError(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return badRequest('invalid_enrichment_file', 'The gzip content is corrupt', [
      { path: 'file', message: 'the gzip content is corrupt' },
    ]);
  }
  return error;
}

/**
 * Imports one enrichment file (EPSS CSV, KEV JSON or CSV; gzip or plain) as a snapshot, in one
 * transaction: all of it or nothing. The same snapshot again (same source, date and version) merges
 * into it, so a file sent twice or in pieces ends in the same state and writes only what differs; a
 * newer one replaces the source's data; an older one is refused (409 `stale_snapshot`) unless
 * `force`. When anything changed, the set-wise re-score of findings is queued
 * (`enrichment-apply`), never run in the request.
 */
export async function importEnrichmentFile(
  deps: { db: Kysely<DB>; jobs: Pick<JobSender, 'send' | 'wake'> },
  path: string,
  options: ImportOptions,
): Promise<ImportResult> {
  let file: EnrichmentFile;
  try {
    file = await openEnrichmentFile(path);
  } catch (error) {
    throw readError(error);
  }
  const header = file.source === 'epss' ? file.reader.header : file.header;
  try {
    return await deps.db.transaction().execute(async (trx) => {
      await lockSource(trx, header.source);
      const current = await currentSnapshot(trx, header.source);
      const same = current && current.data_date === header.dataDate && current.version === header.version;
      if (current && !same && header.dataDate < current.data_date && !options.force) {
        throw conflict(
          'stale_snapshot',
          `The file is of ${header.dataDate}, older than the current ${header.source.toUpperCase()} snapshot of ${current.data_date}; send force=true to import it anyway`,
          { current: presentSnapshot(current) },
        );
      }
      let snapshot: SnapshotRow;
      if (same) snapshot = current;
      else {
        snapshot = (await snapshotByKey(trx, header)) ?? (await createSnapshot(trx, header, options));
        await makeCurrent(trx, header.source, snapshot.id);
      }
      // The file's rows are staged, then the source's rows brought to them in one statement: only
      // rows whose values differ are written, and their CVEs recorded for the re-score; a new
      // snapshot also drops the CVEs it no longer names (enrichment.repository.ts, `settle`).
      await startStaging(trx, header.source);
      let read = 0;
      let changed: number;
      if (file.source === 'epss') {
        for await (const batch of file.reader.batches(EPSS_BATCH)) {
          read += batch.length;
          await stageEpss(trx, batch);
        }
        changed = await settleEpss(trx, snapshot.id, !same);
      } else {
        read = file.rows.length;
        await stageKev(trx, file.rows);
        changed = await settleKev(trx, snapshot.id, !same);
      }
      const rowCount = await settleRowCount(trx, snapshot);
      const outcome: ImportResult['outcome'] = !same ? 'imported' : changed > 0 ? 'merged' : 'unchanged';
      if (outcome !== 'unchanged') {
        await deps.jobs.send(trx, 'enrichment-apply', {});
        await recordAudit(trx, options.audit, {
          action: 'enrichment.imported',
          target: {
            type: 'enrichment_snapshot',
            id: snapshot.id,
            label: `${header.source} ${header.dataDate}`,
          },
          before: null,
          after: {
            source: header.source,
            format: header.format,
            version: header.version,
            data_date: header.dataDate,
            row_count: rowCount,
            outcome,
            origin: options.origin,
            forced: Boolean(options.force && current && header.dataDate < current.data_date),
          },
        });
      }
      const settled = { ...snapshot, row_count: rowCount, current: true };
      return { outcome, snapshot: presentSnapshot(settled), rows_read: read, rows_changed: changed };
    });
  } catch (error) {
    throw readError(error);
  } finally {
    deps.jobs.wake('enrichment-apply');
  }
}
