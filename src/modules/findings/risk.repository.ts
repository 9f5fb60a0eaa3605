import { sql, type ExpressionBuilder, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { ASSET_WEIGHT, RISK_FORMULA_VERSION, RISK_SCORE_SQL, SLA_DAYS } from '../../domain/findings/risk.ts';

/** `case <column> when '<key>' then <value> … end` from one of risk.ts's tables. */
function caseOf(column: string, table: Record<string, number>): RawBuilder<number> {
  const arms = Object.entries(table).map(([key, value]) => sql`when ${sql.lit(key)} then ${sql.lit(value)}`);
  return sql<number>`(case ${sql.ref(column)} ${sql.join(arms, sql` `)} end)`;
}

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
        risk_asset: caseOf('applications.asset_criticality', ASSET_WEIGHT),
        risk_age: sql<number>`case when findings.status in ('open', 'confirmed')
          then least(1, greatest(0, extract(epoch from (now() - findings.first_seen_at)) / 86400
            / ${caseOf('findings.severity', SLA_DAYS)}))
          else findings.risk_age end`,
      })
      .whereRef('applications.id', '=', 'findings.application_id')
      .where(scope)
      .execute();
    // A second statement: in one UPDATE the score's expression would still see the old parts.
    const result = await trx
      .updateTable('findings')
      .set({ risk_score: sql.raw<number>(RISK_SCORE_SQL), risk_formula_version: RISK_FORMULA_VERSION })
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
