import type { Kysely, Transaction } from 'kysely';
import { authorizeOne, whereAccessible } from '../../access/access.ts';
import { isAdmin, type UserPrincipal } from '../../access/principal.ts';
import type { LicensePolicyRow } from '../../access/resources.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import type { JobSender } from '../../jobs/job-map.ts';
import { badRequest, forbidden } from '../../errors.ts';
import { entryProblem } from './license-evaluation.ts';
import { presentLicensePolicy } from './license-policies.presenter.ts';
import type {
  CreateLicensePolicyInput,
  LicensePolicyRecord,
  UpdateLicensePolicyInput,
} from './license-policies.schema.ts';

/**
 * Licence policies (docs/architecture.md, "Licence policies"). Who may do what, as for SLA
 * configurations: a global policy is read by every user and written by admins; a group's is written
 * by whoever may write the group and read by whoever may read it. Every change sends the evaluation
 * job for the applications the policy covers, in the change's transaction: their `license` findings
 * follow (new, fixed, reopened) once it has run.
 */

export interface LicensePolicyDeps {
  db: Kysely<DB>;
  jobs: Pick<JobSender, 'send'>;
}

/** Trimmed, distinct entries; each an SPDX id, range, id WITH exception or OR of those (else 400). */
function checkedLicenses(licenses: readonly string[]): string[] {
  const entries = [...new Set(licenses.map((entry) => entry.trim()))];
  const issues = entries.flatMap((entry, index) => {
    const problem = entry === '' ? 'must not be blank' : entryProblem(entry);
    return problem === null ? [] : [{ path: `body.licenses.${index}`, message: problem }];
  });
  if (issues.length > 0) {
    throw badRequest('invalid_license_expression', 'A licence entry is not a usable SPDX expression', issues);
  }
  return entries;
}

function audited(action: string, before: LicensePolicyRow | null, after: LicensePolicyRow | null) {
  const fields = (row: LicensePolicyRow) => ({
    name: row.name,
    owner_group_id: row.owner_group_id,
    mode: row.mode,
    licenses: row.licenses,
    severity: row.severity,
    enabled: row.enabled,
  });
  const row = (after ?? before) as LicensePolicyRow;
  return {
    action,
    target: { type: 'license_policy', id: row.id, label: row.name },
    applicationId: null,
    before: before ? fields(before) : null,
    after: after ? fields(after) : null,
  };
}

/** Re-evaluation of what the policy covers, committed with the change. */
const reevaluate = (trx: Transaction<DB>, jobs: LicensePolicyDeps['jobs'], row: LicensePolicyRow) =>
  jobs.send(trx, 'license-evaluate', { ownerGroupId: row.owner_group_id });

/** Global policies and those of groups the caller can read, by name. */
export async function listLicensePolicies(
  db: Kysely<DB>,
  viewer: UserPrincipal,
  query: { owner_group_id?: number | undefined },
): Promise<LicensePolicyRecord[]> {
  const rows = await db
    .selectFrom('license_policies as lp')
    .selectAll('lp')
    .where(whereAccessible(viewer, 'license_policy', 'read', 'lp.id'))
    .$if(query.owner_group_id !== undefined, (q) =>
      q.where('lp.owner_group_id', '=', query.owner_group_id ?? 0),
    )
    .orderBy('lp.name')
    .orderBy('lp.id')
    .execute();
  return rows.map(presentLicensePolicy);
}

export async function createLicensePolicy(
  { db, jobs }: LicensePolicyDeps,
  creator: UserPrincipal,
  input: CreateLicensePolicyInput,
  audit: AuditContext,
): Promise<LicensePolicyRecord> {
  const ownerId = input.owner_group_id ?? null;
  if (ownerId === null && !isAdmin(creator)) {
    throw forbidden('Only an admin may create a global licence policy; name an owner_group_id you may write');
  }
  if (ownerId !== null) await authorizeOne(db, creator, 'group', String(ownerId), 'write');
  const licenses = checkedLicenses(input.licenses);
  const row = await db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('license_policies')
      .values({
        name: input.name,
        description: input.description ?? null,
        owner_group_id: ownerId,
        mode: input.mode,
        licenses,
        severity: input.severity ?? 'high',
        enabled: input.enabled ?? true,
        created_by: creator.id,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await reevaluate(trx, jobs, inserted);
    await recordAudit(trx, audit, audited('license_policy.created', null, inserted));
    return inserted;
  });
  return presentLicensePolicy(row);
}

export async function updateLicensePolicy(
  { db, jobs }: LicensePolicyDeps,
  existing: LicensePolicyRow,
  input: UpdateLicensePolicyInput,
  audit: AuditContext,
): Promise<LicensePolicyRecord> {
  const licenses = input.licenses === undefined ? undefined : checkedLicenses(input.licenses);
  const row = await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('license_policies')
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.mode !== undefined ? { mode: input.mode } : {}),
        ...(licenses !== undefined ? { licenses } : {}),
        ...(input.severity !== undefined ? { severity: input.severity } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        updated_at: new Date(),
      })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await reevaluate(trx, jobs, updated);
    await recordAudit(trx, audit, audited('license_policy.updated', existing, updated));
    return updated;
  });
  return presentLicensePolicy(row);
}

/** Deletes a policy; the findings only it raised are fixed by the re-evaluation. */
export async function deleteLicensePolicy(
  { db, jobs }: LicensePolicyDeps,
  existing: LicensePolicyRow,
  audit: AuditContext,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('license_policies').where('id', '=', existing.id).execute();
    await reevaluate(trx, jobs, existing);
    await recordAudit(trx, audit, audited('license_policy.deleted', existing, null));
  });
}
