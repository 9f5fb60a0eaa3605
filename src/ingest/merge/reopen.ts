import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { DB, SeverityName } from '../../db/schema.ts';
import { isFixed, reopen } from '../../domain/findings/lifecycle.ts';
import { riskScoreSql } from '../../domain/findings/risk.ts';
import {
  COMPARED_FINDING_COLUMNS,
  RECOMPUTED_FINDING_COLUMNS,
  stagedNameOf,
  UPLOADED_FINDING_COLUMNS,
  type RecomputedFindingColumn,
} from '../../domain/findings/columns.ts';
import { rowKeyOf, stagedRowKey } from '../staged-row-key.ts';
import { arrayLiteral, staged, type MergeTarget, type StatusRow } from './target.ts';

const idArray = arrayLiteral;

/**
 * The compared columns of a finding (`f`) or of its staged row (`s`, `m`), as one row value: where a
 * matched finding is and what it says (domain/findings/columns.ts, `upload: 'compared'`).
 */
const comparedColumns = (alias: string, staged: boolean) =>
  sql.join(
    COMPARED_FINDING_COLUMNS.map((column) => sql.ref(`${alias}.${staged ? stagedNameOf(column) : column}`)),
  );

/**
 * What a matched finding takes from its staged row `m`: the uploaded columns as staged, and those
 * recomputed from them (domain/findings/columns.ts, `upload`).
 */
const uploadedSet = (m: string) => {
  const recomputed: Record<RecomputedFindingColumn, RawBuilder<unknown>> = {
    cwe_id: sql`${sql.ref(`${m}.cwe_ids`)}[1]`,
    risk_score: riskScoreSql({
      severity: sql.ref(`${m}.risk_severity`),
      exploitation: sql.ref('f.risk_exploitation'),
      age: sql.ref('f.risk_age'),
      asset: sql.ref('f.risk_asset'),
    }),
  };
  return sql.join([
    ...UPLOADED_FINDING_COLUMNS.map(
      (column) => sql`${sql.ref(column)} = ${sql.ref(`${m}.${stagedNameOf(column)}`)}`,
    ),
    ...RECOMPUTED_FINDING_COLUMNS.map((column) => sql`${sql.ref(column)} = ${recomputed[column]}`),
  ]);
};

/** A matched finding `f` the merge writes: absent, fixed, or unlike its staged row `s` now. */
export const changedFromStaged = sql`(not f.present or ${isFixed(sql.ref('f.status'))}
  or (${comparedColumns('f', false)}) is distinct from (${comparedColumns('s', true)}))`;

/** Step 2's findings: reported again, and absent, fixed, or somewhere or something else now. */
export const matchedRows = (target: MergeTarget, among: readonly number[] | undefined) => {
  if (among !== undefined) {
    return sql`select f.id, f.status, f.severity as old_severity, f.present, s.*
      from findings f join ${staged(target)} s on ${stagedRowKey('s')} = ${rowKeyOf(target.uploadKey, sql.ref('f.fingerprint'))}
      where f.version_id = ${target.versionId} and f.id = any(${idArray(among)}::integer[]) and ${changedFromStaged}`;
  }
  // Every staged row looks its finding up in the unique index (`offset 0` keeps the lateral join
  // from being flattened). Left to the planner, stale statistics of the version (PGlite, before
  // its maintenance job) put the findings first and read every staged row once per finding: an
  // identical re-upload of 5k secrets took 48 s.
  return sql`select f.id, f.status, f.severity as old_severity, f.present, s.*
    from ${staged(target)} s
    join lateral (select * from findings f
      where f.version_id = ${target.versionId} and f.fingerprint = s.fingerprint offset 0) f on true
    where ${changedFromStaged}`;
};

/** A matched finding's row as step 2 wrote it: its status and severity before and after. */
export type MatchedRow = StatusRow & { from_severity: SeverityName; to_severity: SeverityName };

/**
 * Step 2 of the merge: matched findings come back if absent or fixed, and show where they are now.
 * Only rows where something differs are written, so an identical re-upload writes none. `among`:
 * the candidates found beforehand (none: no statement).
 */
export async function reopenMatched(
  trx: Transaction<DB>,
  target: MergeTarget,
  matchedAmong: readonly number[] | undefined,
): Promise<MatchedRow[]> {
  if (matchedAmong?.length === 0) return [];
  const matched = await sql<MatchedRow>`
    with m as (${matchedRows(target, matchedAmong)} for update of f)
    update findings f
    set present = true,
      status = ${reopen(sql.ref('f.status'))},
      fixed_at = case when ${isFixed(sql.ref('f.status'))} or not f.present then null else f.fixed_at end,
      last_seen_at = now(), last_scan_id = ${target.scanId}, updated_at = now(), ${uploadedSet('m')}
    from m where f.id = m.id
    returning f.id, m.status as from_status, f.status as to_status, m.old_severity as from_severity,
      f.severity as to_severity`.execute(trx);
  return matched.rows;
}
