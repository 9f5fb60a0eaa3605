import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { isInherited, NEW_STATUS } from '../../domain/findings/lifecycle.ts';
import type { MergeTarget, StatusRow } from './target.ts';

/** Whether another version of the application has findings triaged as confirmed or false positive. */
async function triagedElsewhere(trx: Transaction<DB>, target: MergeTarget): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`select exists (select 1 from findings
    where application_id = ${target.applicationId} and ${isInherited(sql.ref('status'))}
      and version_id <> ${target.versionId}) as found`.execute(trx);
  return rows[0]?.found === true;
}

/** A new finding that took another version's triage, and where from. */
export type InheritedRow = StatusRow & { source_finding_id: number; source_version_id: number };

/**
 * Step 3's inheritance: triage made in another version of the application carries over to the same
 * finding here, by one set-wise join from this upload's new findings to the other versions' triaged
 * ones. The join only runs when another version has triage to give: most uploads, none at all.
 */
export async function inheritTriage(trx: Transaction<DB>, target: MergeTarget): Promise<InheritedRow[]> {
  if (!(await triagedElsewhere(trx, target))) return [];
  const { versionId, scanId } = target;
  const inherited = await sql<InheritedRow>`
    select n.id, n.status as from_status, o.status as to_status, o.id as source_finding_id,
      o.version_id as source_version_id
    from findings n
    join (
      select distinct on (fingerprint) id, fingerprint, status, version_id
      from findings
      where application_id = ${target.applicationId} and version_id <> ${versionId}
        and ${isInherited(sql.ref('status'))}
        -- A finding an acceptance covers passes on nothing: the acceptance covers the new one itself
        -- while it is active (merge-staged.ts, step 5), and not after.
        and acceptance_id is null
      order by fingerprint, updated_at desc
    ) o on n.fingerprint = o.fingerprint
    where n.first_scan_id = ${scanId} and n.version_id = ${versionId} and n.status = ${sql.lit(NEW_STATUS)}`.execute(
    trx,
  );
  return inherited.rows;
}
