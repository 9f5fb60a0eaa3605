import { sql, type Kysely, type RawBuilder } from 'kysely';
import { inIdRanges } from '../../db/lanes.ts';
import type { DB } from '../../db/schema.ts';
import { isOpen } from '../../domain/findings/lifecycle.ts';
import {
  agePartSql,
  assetWeightSql,
  RISK_FORMULA_VERSION,
  riskScoreSql,
} from '../../domain/findings/risk.ts';

/**
 * How far the stored age part G may lag the day's before a finding is written for it alone: G is
 * at most 0.1 of the score's raw value (× 100 × M), so 0.01 of G is at most 0.1 point. A finding
 * whose score does not move is written when its G has moved by this much — daily for a critical
 * or high finding (1/15, 1/30 a day), every few days for a low or info one — and never once G has
 * reached 1 (open longer than its SLA days), which most old open findings have.
 */
const AGE_STEP = 0.01;

/** Findings per batch of the daily re-score, each its own transaction. */
const BATCH = 20_000;

/**
 * One statement: M from the application's criticality; G = min(1, days open / SLA days) for open
 * and confirmed findings (closed findings keep the age they had when closed); the score from them
 * by the stored formula. S and X are untouched. A finding is written only when its score, M or
 * formula version changes, or G moved by `AGE_STEP` — the parts it keeps always give its score.
 * `updated_at` is not bumped: the score is derived.
 */
async function refresh(db: Kysely<DB>, where: RawBuilder<boolean>): Promise<number> {
  const asset = assetWeightSql(sql.ref('app.asset_criticality'));
  const age = sql<number>`(case when ${isOpen(sql.ref('f.status'))}
    then ${agePartSql(sql.ref('f.severity'), sql.ref('f.first_seen_at'))} else f.risk_age end)`;
  const score = riskScoreSql({
    severity: sql.ref('f.risk_severity'),
    exploitation: sql.ref('f.risk_exploitation'),
    age,
    asset,
  });
  const result = await sql`update findings f
    set risk_asset = ${asset}, risk_age = ${age}, risk_score = ${score},
      risk_formula_version = ${RISK_FORMULA_VERSION}
    from applications app
    where app.id = f.application_id and ${where}
      and (f.risk_score <> ${score} or f.risk_asset <> ${asset}
        or f.risk_formula_version <> ${RISK_FORMULA_VERSION} or abs(f.risk_age - ${age}) >= ${AGE_STEP})`.execute(
    db,
  );
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Recomputes the risk of every finding of one application (after its asset criticality changed),
 * in the caller's transaction (or a new one), so the new criticality and the scores commit together.
 * Returns the number of findings rescored.
 */
export function recomputeRisk(db: Kysely<DB>, { applicationId }: { applicationId: number }): Promise<number> {
  const run = (trx: Kysely<DB>) => refresh(trx, sql<boolean>`f.application_id = ${applicationId}`);
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/**
 * Recomputes the risk of every finding as findings age (job `maintenance-daily`): in batches of
 * ids, each its own transaction, `lanes` at a time (db/lanes.ts). One statement over every finding
 * held the row lock of each until it committed, so an upload or a triage change touching any
 * finding waited for the whole pass. Returns the number of findings rescored.
 */
export async function recomputeAllRisk(
  db: Kysely<DB>,
  { lanes = 1 }: { lanes?: number } = {},
): Promise<number> {
  const bounds = await sql<{ low: number | null; high: number | null }>`
    select min(id) as low, max(id) as high from findings`.execute(db);
  let rescored = 0;
  await inIdRanges(
    db,
    bounds.rows[0] ?? { low: null, high: null },
    { batch: BATCH, lanes },
    (trx, range) => refresh(trx, sql<boolean>`f.id >= ${range.from} and f.id < ${range.to}`),
    (count) => {
      rescored += count;
    },
  );
  return rescored;
}
