import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { AcceptancesTable, DB } from '../../db/schema.ts';
import { matchedBy } from '../../domain/findings/acceptance-coverage.ts';

type Executor = Kysely<DB> | Transaction<DB>;
export type AcceptanceRow = Selectable<AcceptancesTable>;

export async function insertAcceptance(
  trx: Transaction<DB>,
  row: Insertable<AcceptancesTable>,
  fingerprints: readonly string[],
): Promise<AcceptanceRow> {
  const inserted = await trx.insertInto('acceptances').values(row).returningAll().executeTakeFirstOrThrow();
  if (fingerprints.length > 0) {
    await sql`insert into acceptance_fingerprints (acceptance_id, fingerprint)
      select ${inserted.id}::integer, x from json_array_elements_text(${JSON.stringify([...new Set(fingerprints)])}::json) x
      on conflict do nothing`.execute(trx);
  }
  return inserted;
}

export async function acceptanceById(db: Executor, id: number): Promise<AcceptanceRow | undefined> {
  return db.selectFrom('acceptances').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Locks an acceptance for a change of its state. */
export async function lockAcceptance(trx: Transaction<DB>, id: number): Promise<AcceptanceRow | undefined> {
  return trx.selectFrom('acceptances').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** An acceptance made earlier from the same source (a VEX statement imported again), still in force or waiting. */
export async function acceptanceBySourceKey(
  trx: Transaction<DB>,
  groupId: number,
  applicationId: number | null,
  key: string,
): Promise<AcceptanceRow | undefined> {
  return trx
    .selectFrom('acceptances')
    .selectAll()
    .where('group_id', '=', groupId)
    .where((eb) =>
      applicationId === null ? eb('application_id', 'is', null) : eb('application_id', '=', applicationId),
    )
    .where('status', 'in', ['pending', 'active'])
    .where(sql<boolean>`source ->> 'key' = ${key}`)
    .orderBy('id')
    .executeTakeFirst();
}

/** The findings of `ids` in the acceptance's scope: their fingerprints and the worst severity. */
export async function findingsInScope(
  trx: Transaction<DB>,
  ids: readonly number[],
  groupId: number,
  applicationId: number | null,
) {
  return trx
    .selectFrom('findings as f')
    .innerJoin('applications as app', 'app.id', 'f.application_id')
    .select(['f.id', 'f.fingerprint', 'f.severity_rank'])
    .where('f.id', 'in', [...ids])
    .where('app.group_id', '=', groupId)
    .where((eb) => (applicationId === null ? eb.lit(true) : eb('f.application_id', '=', applicationId)))
    .execute();
}

export interface RuleMatch {
  cve: string | null;
  ruleId: string | null;
  packageName: string | null;
  pathPrefix: string | null;
}

/** The worst severity rank (5 critical … 1 info) of the unfixed findings a rule matches now; null: none. */
export async function worstRankMatching(
  trx: Transaction<DB>,
  groupId: number,
  applicationId: number | null,
  rule: RuleMatch,
): Promise<number | null> {
  const { rows } = await sql<{ rank: number | null }>`
    select max(f.severity_rank) as rank
    from findings f join applications app on app.id = f.application_id
    where app.group_id = ${groupId}
      and (${applicationId}::integer is null or f.application_id = ${applicationId}::integer)
      and f.status <> 'fixed'
      and (${rule.cve}::text is null or ${rule.cve}::text = any (f.cve_ids))
      and (${rule.ruleId}::text is null or f.rule_id = ${rule.ruleId}::text)
      and (${rule.packageName}::text is null or f.package_name = ${rule.packageName}::text)
      and (${rule.pathPrefix}::text is null or starts_with(f.file_path, ${rule.pathPrefix}::text))`.execute(
    trx,
  );
  const rank = rows[0]?.rank;
  return rank === null || rank === undefined ? null : Number(rank);
}

/** Application ids an acceptance reaches (its own, or every one of its group), for events. */
export async function applicationsOf(db: Executor, acceptance: AcceptanceRow): Promise<number[]> {
  if (acceptance.application_id !== null) return [acceptance.application_id];
  const rows = await db
    .selectFrom('applications')
    .select('id')
    .where('group_id', '=', acceptance.group_id)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/** Ids of the findings an acceptance covers now. */
export async function coveredFindingIds(db: Executor, acceptanceId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('findings')
    .select('id')
    .where('acceptance_id', '=', acceptanceId)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/** The worst severity rank of the unfixed findings a stored acceptance matches; null: none. */
export async function worstRankOf(trx: Transaction<DB>, acceptance: AcceptanceRow): Promise<number | null> {
  const { rows } = await sql<{ rank: number | null }>`
    select max(f.severity_rank) as rank
    from findings f join applications app on app.id = f.application_id
    where app.group_id = ${acceptance.group_id}::integer
      and (${acceptance.application_id}::integer is null or f.application_id = ${acceptance.application_id}::integer)
      and f.status <> 'fixed' and ${matchedBy(acceptance.id)}`.execute(trx);
  const rank = rows[0]?.rank;
  return rank === null || rank === undefined ? null : Number(rank);
}
