import { sql, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { isOpen } from '../../domain/findings/lifecycle.ts';
import {
  agePartSql,
  assetWeightSql,
  RISK_FORMULA_VERSION,
  riskScoreSql,
} from '../../domain/findings/risk.ts';

/**
 * Refreshes the parts that change after ingest, then the score, in the caller's transaction (or a
 * new one): M from the application's criticality; G = min(1, days open / SLA days) for open and
 * confirmed findings (closed findings keep the age they had when closed); the score by the stored
 * formula. S and X are untouched. `updated_at` is not bumped: the score is derived, and the nightly
 * run would otherwise touch every open finding every day.
 */
async function recompute(db: Kysely<DB>, applicationId: number | undefined): Promise<number> {
  const scope = (eb: ExpressionBuilder<DB, 'findings'>) =>
    applicationId === undefined ? sql<SqlBool>`true` : eb('findings.application_id', '=', applicationId);
  const run = async (trx: Kysely<DB>): Promise<number> => {
    await trx
      .updateTable('findings')
      .from('applications')
      .set({
        risk_asset: assetWeightSql(sql.ref('applications.asset_criticality')),
        risk_age: sql<number>`case when ${isOpen(sql.ref('findings.status'))}
          then ${agePartSql(sql.ref('findings.severity'), sql.ref('findings.first_seen_at'))}
          else findings.risk_age end`,
      })
      .whereRef('applications.id', '=', 'findings.application_id')
      .where(scope)
      .execute();
    // A second statement: in one UPDATE the score's expression would still see the old parts.
    const result = await trx
      .updateTable('findings')
      .set({
        risk_score: riskScoreSql({
          severity: sql.ref('risk_severity'),
          exploitation: sql.ref('risk_exploitation'),
          age: sql.ref('risk_age'),
          asset: sql.ref('risk_asset'),
        }),
        risk_formula_version: RISK_FORMULA_VERSION,
      })
      .where(scope)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/**
 * Recomputes the risk of every finding of one application (after its asset criticality changed).
 * Returns the number of findings rescored.
 */
export function recomputeRisk(db: Kysely<DB>, { applicationId }: { applicationId: number }): Promise<number> {
  return recompute(db, applicationId);
}

/** Recomputes the risk of every finding (nightly, as findings age). Not scheduled yet. */
export function recomputeAllRisk(db: Kysely<DB>): Promise<number> {
  return recompute(db, undefined);
}
