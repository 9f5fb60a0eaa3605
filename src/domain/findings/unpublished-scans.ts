import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../db/schema.ts';

/**
 * Scans whose new findings are in the database but not yet shown, per database handle.
 *
 * PGlite has one session, so a 100k upload merged in one transaction held every request for ~10 s.
 * There the merge inserts new findings in short transactions (pipeline.ts) and they stay hidden
 * until the transaction that completes the scan: readers leave out findings whose first scan is
 * listed here, and the counts ledger ignores them until the scan completes (migration
 * 2026-11-24T1500). PGlite allows one process per data directory, so this process knows every
 * merge in flight; on PostgreSQL the list stays empty, as each merge is one transaction there.
 */
const hiddenScans = new WeakMap<Kysely<DB>, Map<number, number>>();

/** Hides a scan's findings until each `hideScanFindings` is matched by a `showScanFindings` (a job run twice). */
function hideScanFindings(db: Kysely<DB>, scanId: number): void {
  let scans = hiddenScans.get(db);
  if (!scans) hiddenScans.set(db, (scans = new Map()));
  scans.set(scanId, (scans.get(scanId) ?? 0) + 1);
}

function showScanFindings(db: Kysely<DB>, scanId: number): void {
  const scans = hiddenScans.get(db);
  const holds = scans?.get(scanId) ?? 0;
  if (holds > 1) scans?.set(scanId, holds - 1);
  else scans?.delete(scanId);
}

/**
 * Hides a scan's findings for one merge; the function returned shows them, once however often it is
 * called (at the commit that completes the scan, and again in a `finally`).
 */
export function hideScanFindingsUntilShown(db: Kysely<DB>, scanId: number): () => void {
  hideScanFindings(db, scanId);
  let hidden = true;
  return () => {
    if (hidden) showScanFindings(db, scanId);
    hidden = false;
  };
}

/**
 * The condition that keeps hidden findings out, on the column holding a finding's first scan; none
 * while no merge is in flight, so queries keep their plans (and index-only scans) the rest of the time.
 */
export function publishedOnly(db: Kysely<DB>, firstScanColumn: string): Expression<SqlBool>[] {
  const scans = hiddenScans.get(db);
  if (!scans || scans.size === 0) return [];
  // An array literal of integers (one text parameter, the same on both drivers). A finding whose
  // first scan was deleted (null) is shown.
  const ids = `{${[...scans.keys()].join(',')}}`;
  return [sql<SqlBool>`coalesce(${sql.ref(firstScanColumn)} <> all(${ids}::integer[]), true)`];
}
