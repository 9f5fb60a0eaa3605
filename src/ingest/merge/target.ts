import { sql } from 'kysely';
import type { CopyTable } from '../../db/database.ts';
import type { FindingStatus } from '../../domain/findings/lifecycle.ts';
import type { SlaDays } from '../../domain/findings/sla.ts';
import type { StatusMove } from '../../domain/findings/status.ts';
import type { TimelineEntry } from '../../domain/findings/timeline.ts';
import type { UploadScope } from '../stage.ts';

/** What every step of a merge works on: the staged upload and the version it lands in. */

export interface MergeTarget {
  uploadKey: string;
  /**
   * Where its rows are staged: the shared `ingest_staging`, or the merge transaction's own table
   * (landing/postgres-one-transaction.ts), which holds only this upload's rows.
   */
  staging: CopyTable;
  applicationId: number;
  versionId: number;
  scannerTypeId: number;
  scanId: number;
  /** M of the risk formula for this application's asset criticality. */
  assetWeight: number;
  /** The SLA days in force for this application, which set new findings' due dates (domain/findings/sla.ts). */
  slaDays: SlaDays;
  /**
   * The scopes this upload speaks for: findings of the version in one of them that the upload does
   * not report are absent (fixed). `toolName` null stands for every tool of the scanner type (the
   * empty report of a native format, whose tool is the scanner).
   */
  scopes: UploadScope[];
  /** `partial=true`: absence closes only findings in the files the upload covers. */
  partial: boolean;
  /** Files a partial upload covers besides its results' files (SARIF `artifacts`). */
  coveredFiles: string[];
  /** Identity bases that may repeat among the staged twins (`StageResult`); null: any may. */
  twinBases: readonly string[] | null;
  /** Rows the upload staged. */
  stagedRows: number;
  /** Of those, rows told apart by line (`StageResult.twinRows`). */
  twinRows: number;
}

export interface MergeCounts {
  new: number;
  existing: number;
  fixed: number;
  reopened: number;
  inherited: number;
  /** Matched findings whose location, text or severity the upload updated. */
  updated: number;
}

export const INGEST: TimelineEntry['actor'] = { system: 'ingest' };

/** Staged rows in report order: `seq` from `from` (inclusive) to `to` (exclusive). */
export interface StagedRange {
  from: number;
  to: number;
}

/**
 * The staged rows of this upload (or of a range of them), one per fingerprint. Twins got distinct
 * fingerprints (identical-findings.ts), so only results that are not told apart by line (a secret reported twice
 * by its hash) can repeat one: of those the first in report order is taken, so the same report
 * always gives the same values. A range holds the first row of each of its fingerprints that no
 * earlier range holds, and the insert skips fingerprints the version has (`probe`), so ranges
 * inserted in order keep that rule.
 *
 * A row the staging thread knows to be the first of its fingerprint (`maybe_repeat` false: its
 * filter has no false negatives, stage.ts) is taken as it is. Only the others, repeats and the
 * filter's rare false alarms, are sorted, and only by (fingerprint, seq): one of them is taken when
 * no first row has its fingerprint. Sorting every whole row, as this did, took an identical 100k
 * re-upload's comparison 0.58–0.62 s instead of 0.43–0.48 s (`psql`, the sort spilling 78 MB to
 * disk).
 */
export const staged = (target: Pick<MergeTarget, 'uploadKey' | 'staging'>, range?: StagedRange) => {
  const rows = sql.table(target.staging);
  const inRange = range
    ? sql`upload_key = ${target.uploadKey} and seq >= ${range.from} and seq < ${range.to}`
    : sql`upload_key = ${target.uploadKey}`;
  const unsure = sql`${inRange} and not twin_ordinal and maybe_repeat`;
  return sql`(select * from ${rows} where ${inRange} and (twin_ordinal or not maybe_repeat)
    union all
    select * from ${rows} where ${unsure} and seq in (
      select distinct on (fingerprint) seq from ${rows} r where ${unsure}
        and not exists (select 1 from ${rows} first where first.upload_key = ${target.uploadKey}
          and first.fingerprint = r.fingerprint and not first.twin_ordinal and not first.maybe_repeat)
      order by fingerprint, seq))`;
};

/** Ranges of `rowsPerRange` of `stagedRows` staged rows (seq 0 to stagedRows − 1), at least one. */
export function stagedRanges(stagedRows: number, rowsPerRange: number): StagedRange[] {
  const count = Math.max(1, Math.ceil(stagedRows / rowsPerRange));
  return Array.from({ length: count }, (_, index) => ({
    from: index * rowsPerRange,
    to: Math.min((index + 1) * rowsPerRange, stagedRows),
  }));
}

export type StatusRow = { id: number; from_status: FindingStatus; to_status: FindingStatus };

/** Rows the merge moved, as moves for changeStatus. */
export const movesOf = <Row extends StatusRow>(
  rows: Row[],
  target: MergeTarget,
  detail?: (row: Row) => Record<string, unknown>,
): StatusMove[] =>
  rows.map((row) => ({
    findingId: row.id,
    applicationId: target.applicationId,
    from: row.from_status,
    to: row.to_status,
    ...(detail ? { detail: detail(row) } : {}),
  }));

/**
 * An array literal as one text parameter, the same on both drivers: for integers and hex digests
 * (fingerprints, identity bases), which need no quoting inside it.
 */
export const arrayLiteral = (items: readonly (number | string)[]): string => `{${items.join(',')}}`;
