import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { CopyTable } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { RISK_FORMULA_VERSION, riskScoreSql } from '../../domain/findings/risk.ts';
import { slaDaysLiteralSql, slaDueDateSql } from '../../domain/findings/sla.ts';
import {
  COMPUTED_FINDING_COLUMNS,
  STAGED_FINDING_COLUMNS,
  stagedNameOf,
  type ComputedFindingColumn,
} from '../../domain/findings/columns.ts';
import { staged, type MergeTarget, type StagedRange } from './target.ts';

/**
 * Step 3 of the merge: inserts the staged rows (or a range of them) whose fingerprint the version
 * does not have yet, inheriting nothing yet; returns how many. PGlite calls it chunk by chunk in
 * transactions of their own (pipeline.ts), before the rest of the merge.
 */
export function insertNewFindings(
  trx: Transaction<DB>,
  target: MergeTarget,
  range?: StagedRange,
): Promise<number> {
  return insertStaged(trx, target, staged(target, range), range === undefined ? 'join' : 'probe');
}

/**
 * How an insert keeps out the fingerprints the version has: `probe` looks each staged row's up in
 * the unique index (a slice of the upload), `join` lets the planner join (the whole upload), `none`
 * checks nothing, for rows known to be new (the first of their fingerprint in a version's first
 * upload: landing/postgres-one-transaction.ts).
 */
export type ExistingCheck = 'probe' | 'join' | 'none';

/**
 * Inserts the rows of `source` (staged rows, at most one per fingerprint) whose fingerprint the
 * version does not have yet, checked as `existing` says; returns how many.
 */
export async function insertStaged(
  trx: Transaction<DB>,
  target: MergeTarget,
  source: RawBuilder<unknown>,
  existing: ExistingCheck,
): Promise<number> {
  // No `on conflict`: the version's advisory lock (pipeline.ts) serializes merges, so `not exists`
  // is exact, and a speculative insert cost 10% of the merge of a 100k upload.
  // A slice probes the unique index once per staged row (`offset 0` keeps the subquery from
  // becoming a join): planned as an anti-join instead, each range hashed every finding of the
  // version inserted so far, whenever the statistics predated them (analyzed after an earlier
  // upload, before this version had findings), and the 100 ranges of a 100k upload took 13 minutes.
  // One statement over the whole upload (PostgreSQL) keeps the planner's join.
  const computed: Record<ComputedFindingColumn, RawBuilder<unknown>> = {
    application_id: sql`${target.applicationId}`,
    version_id: sql`${target.versionId}`,
    scanner_type_id: sql`${target.scannerTypeId}`,
    first_scan_id: sql`${target.scanId}`,
    last_scan_id: sql`${target.scanId}`,
    cwe_id: sql`s.cwe_ids[1]`,
    risk_age: sql`0`,
    risk_asset: sql`${target.assetWeight}`,
    risk_score: riskScoreSql({
      severity: sql.ref('s.risk_severity'),
      exploitation: sql.ref('s.risk_exploitation'),
      age: sql.lit(0),
      asset: sql`${target.assetWeight}`,
    }),
    risk_formula_version: sql.lit(RISK_FORMULA_VERSION),
    // First seen is the insert's `now()`; nothing is paused yet.
    due_date: slaDueDateSql({
      severity: sql.ref('s.severity'),
      concern: sql.ref('s.concern'),
      firstSeenAt: sql`now()`,
      pausedSeconds: sql.lit(0),
      days: slaDaysLiteralSql(target.slaDays),
    }),
  };
  // The columns the insert gives a value (the registry's staged and computed ones; the insert's
  // time is the columns' default).
  const columns = [...STAGED_FINDING_COLUMNS, ...COMPUTED_FINDING_COLUMNS];
  const values = [
    ...STAGED_FINDING_COLUMNS.map((column) => sql.ref(`s.${stagedNameOf(column)}`)),
    ...COMPUTED_FINDING_COLUMNS.map((column) => computed[column]),
  ];
  const inserted = await sql`
    insert into findings (${sql.join(columns.map((column) => sql.ref(column)))})
    select ${sql.join(values)}
    from ${source} s
    ${
      existing === 'none'
        ? sql``
        : sql`where not exists (select 1 from findings f
            where f.version_id = ${target.versionId} and f.fingerprint = s.fingerprint
            ${existing === 'probe' ? sql`offset 0` : sql``})`
    }`.execute(trx);

  return Number(inserted.numAffectedRows ?? 0n);
}

/** Whether the version has any finding (any status, present or not). */
export async function versionHasFindings(trx: Transaction<DB>, versionId: number): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`
    select exists (select 1 from findings where version_id = ${versionId}) as found`.execute(trx);
  return rows[0]?.found === true;
}

/**
 * Distinct fingerprints of the upload (after the twins got theirs): its new and existing findings.
 * Every twin row has a fingerprint of its own (merge/identical-findings.ts gives each group's members distinct ones,
 * and no other identity shares a twin's base), so only the others are counted, through their
 * partial index: `count(distinct)` over every staged row took 150 ms of a 100k upload.
 */
export async function countStagedFingerprints(
  trx: Transaction<DB>,
  uploadKey: string,
  twinRows: number,
  staging: CopyTable = 'ingest_staging',
): Promise<number> {
  const { rows } = await sql<{ staged: number }>`
    select count(distinct fingerprint)::integer as staged from ${sql.table(staging)}
    where upload_key = ${uploadKey} and not twin_ordinal`.execute(trx);
  return twinRows + (rows[0]?.staged ?? 0);
}
