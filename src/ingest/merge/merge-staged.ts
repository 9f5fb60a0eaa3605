import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { publishEvents } from '../../events/events.ts';
import { acceptancesApply, coverFindings } from '../../domain/findings/acceptance-coverage.ts';
import { changeStatus } from '../../domain/findings/status.ts';
import { recordTimeline } from '../../domain/findings/timeline.ts';
import { closeAbsent } from './close-absent.ts';
import { inheritTriage } from './inherit-triage.ts';
import { countStagedFingerprints, insertNewFindings, versionHasFindings } from './insert.ts';
import { compareLargeUpload, insertFresh, LARGE_UPLOAD_ROWS, type MergedAhead } from './candidates.ts';
import { reopenMatched } from './reopen.ts';
import { INGEST, movesOf, type MergeCounts, type MergeTarget } from './target.ts';
import { assignTwinFingerprints } from './identical-findings.ts';

/**
 * Merges one staged upload into the version's findings, set-wise in SQL (no per-finding queries),
 * writing only the findings whose presence, status or content changes:
 * 0. twins (one identity on several lines) get the fingerprints of their nearest stored findings;
 * 1. present findings of this upload's scopes that it no longer reports stop being present
 *    (open/confirmed ones become `fixed`, as GitHub closes alerts), keeping the scope's last sighting;
 *    a partial upload closes only those in the files it covers;
 * 2. matched findings take the upload's location, text and severity where they differ; those
 *    absent or `fixed` are present and open again;
 * 3. new fingerprints are inserted (the unique (version, fingerprint) index makes concurrent
 *    uploads unable to create twins), inheriting triage from other versions;
 * 4. the scopes record this scan as their latest sighting — the "last seen" of every present finding;
 * 5. new and reopened findings an active acceptance matches are covered by it (`false_positive`).
 * Timeline entries (status and severity changes) and outbox events are written in the same transaction.
 *
 * `ahead`: the twins were assigned, steps 1–2's candidates found and step 3 done beforehand, in
 * chunks (PGlite). Inserting before steps 1–2 changes nothing: new fingerprints are staged, so never
 * absent, and were inserted from their staged row, so never differ from it.
 */
export async function mergeStaged(
  trx: Transaction<DB>,
  target: MergeTarget,
  ahead?: MergedAhead,
): Promise<MergeCounts> {
  const { uploadKey, versionId, scanId } = target;
  // A version's first upload finds none of its fingerprints stored: each distinct one is inserted,
  // so the new findings are all it staged, without counting them again (150 ms of a 100k upload).
  const firstInVersion = ahead === undefined && !(await versionHasFindings(trx, versionId));
  if (ahead === undefined) {
    await assignTwinFingerprints(trx, uploadKey, versionId, target.twinBases, target.staging);
  }
  const large =
    ahead === undefined && target.stagedRows >= LARGE_UPLOAD_ROWS
      ? await compareLargeUpload(trx, target)
      : undefined;

  const fixed = await closeAbsent(trx, target, ahead?.candidates.gone ?? large?.gone);

  const matched = await reopenMatched(trx, target, ahead?.candidates.matched ?? large?.matched);
  const reopened = matched.filter((row) => row.from_status !== row.to_status);
  const severityChanged = matched.filter((row) => row.from_severity !== row.to_severity);

  const newCount =
    ahead?.inserted ??
    (large ? await insertFresh(trx, target, large.fresh) : await insertNewFindings(trx, target));

  const inherited = await inheritTriage(trx, target);

  const namedScopes = target.scopes.filter((scope) => scope.toolName !== null);
  if (namedScopes.length > 0) {
    await sql`
      insert into finding_scopes (version_id, scanner_type_id, tool_name, category, last_scan_id, last_seen_at)
      select ${versionId}::integer, ${target.scannerTypeId}::integer, x.tool_name, x.category, ${scanId}::integer, now()
      from json_to_recordset(${JSON.stringify(namedScopes.map((scope) => ({ tool_name: scope.toolName, category: scope.category })))}::json)
        as x(tool_name text, category text)
      on conflict (version_id, scanner_type_id, tool_name, category)
      do update set last_scan_id = excluded.last_scan_id, last_seen_at = excluded.last_seen_at`.execute(trx);
  }

  const stagedCount =
    ahead?.fingerprints ??
    (firstInVersion
      ? newCount
      : await countStagedFingerprints(trx, uploadKey, target.twinRows, target.staging));

  // New findings are announced by one outbox row per upload (data.first_scan_id names them):
  // a 100k-finding upload must not write 100k event rows in its transaction.
  if (newCount > 0) {
    await publishEvents(trx, [
      {
        type: 'finding.created',
        applicationId: target.applicationId,
        scanId,
        data: { count: newCount, first_scan_id: scanId, version_id: versionId },
      },
    ]);
  }
  // Fixed and reopened statuses were set above together with presence and content (one pass
  // each), so changeStatus records those moves; inherited triage it writes itself.
  const moved = { actor: INGEST, scanId, statusWritten: true } as const;
  await changeStatus(trx, movesOf(reopened, target), { ...moved, reason: 'reopened' });
  await changeStatus(
    trx,
    movesOf(inherited, target, (row) => ({
      source_finding_id: row.source_finding_id,
      source_version_id: row.source_version_id,
    })),
    { actor: INGEST, scanId, reason: 'inherited' },
  );
  await changeStatus(trx, movesOf(fixed, target), { ...moved, reason: 'fixed' });
  await coverArrivals(trx, target, reopened);
  await recordTimeline(
    trx,
    severityChanged.map((row) => ({
      findingId: row.id,
      type: 'severity_changed',
      actor: INGEST,
      scanId,
      detail: { from: row.from_severity, to: row.to_severity },
    })),
  );

  return {
    new: newCount,
    existing: stagedCount - newCount,
    fixed: fixed.length,
    reopened: reopened.length,
    inherited: inherited.length,
    updated: matched.length,
  };
}

/**
 * Step 5: the upload's new findings and those it reopened are covered by the active acceptances
 * that match them, set-wise (acceptance-coverage.ts). Most applications have no active acceptance:
 * one indexed lookup says so and nothing else runs.
 */
async function coverArrivals(
  trx: Transaction<DB>,
  target: MergeTarget,
  reopened: readonly { id: number }[],
): Promise<void> {
  const now = new Date();
  if (!(await acceptancesApply(trx, target.applicationId, now))) return;
  const reopenedIds = JSON.stringify(reopened.map((row) => row.id));
  await coverFindings(
    trx,
    sql<boolean>`f.version_id = ${target.versionId}::integer and (f.first_scan_id = ${target.scanId}::integer
      or f.id in (select json_array_elements_text(${reopenedIds}::json)::integer))`,
    { now, scanId: target.scanId },
  );
}
