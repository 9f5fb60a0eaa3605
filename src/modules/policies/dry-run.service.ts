import { sql, type Kysely, type SqlBool } from 'kysely';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { publishedOnly } from '../../domain/findings/unpublished-scans.ts';
import type { PolicyDefinition } from '../../domain/policies/definition.ts';
import { matchingFindings } from '../../domain/policies/runner.ts';
import type { DryRunInput, DryRunRecord } from './policies.schema.ts';
import type { PolicyRow } from '../../access/resources.ts';
import { checkedDefinition, resolveScope, type Scope } from './policies.service.ts';

const SHOWN = 100;

/**
 * What a policy would do to the findings that exist now in its scope (events aside): which match,
 * and per action how many it would change. Reads only: it runs in a transaction that is rolled back,
 * so even a mistake here could not change a row. Trying a policy needs the right to write it, since
 * the answer lists findings across its whole scope.
 */
async function dryRun(db: Kysely<DB>, scope: Scope, definition: PolicyDefinition): Promise<DryRunRecord> {
  const rollback = Symbol('dry run');
  let record: DryRunRecord | undefined;
  try {
    await db.transaction().execute(async (trx) => {
      const policy = { ...scope, conditions: definition.conditions };
      // Findings of an upload still merging (PGlite, in chunks) are not there yet for anyone.
      const shown = publishedOnly(db, 'f.first_scan_id');
      const matched = await matchingFindings(trx, policy, shown[0] ?? sql<SqlBool>`true`);
      const listed = matched.slice(0, SHOWN).map((finding) => finding.id);
      const rows = listed.length
        ? await trx
            .selectFrom('findings')
            .select(['id', 'application_id', 'title', 'severity', 'status', 'assignee_id'])
            .where('id', 'in', listed)
            .orderBy('id')
            .execute()
        : [];
      record = {
        matched: matched.length,
        findings: rows,
        effects: definition.actions.map((action) => {
          switch (action.type) {
            case 'change_status': {
              const count = matched.filter((finding) => finding.status !== action.target).length;
              return { ...action, would_change: count, detail: `${count} would move to ${action.target}` };
            }
            case 'assign_to': {
              const count = matched.filter((finding) => finding.assignee_id !== action.target).length;
              return {
                ...action,
                would_change: count,
                detail: `${count} would be assigned to user ${action.target}`,
              };
            }
            case 'comment':
              return {
                ...action,
                would_change: matched.length,
                detail: `${matched.length} would get a comment`,
              };
            case 'webhook':
              return {
                ...action,
                would_change: matched.length,
                detail: `${matched.length} would be sent to every active webhook of their application`,
              };
          }
        }),
      };
      throw rollback;
    });
  } catch (error) {
    if (error !== rollback) throw error;
  }
  if (!record) throw new Error('dry run produced no result');
  return record;
}

/** `POST /api/policies/{id}/test`. */
export async function tryPolicy(db: Kysely<DB>, policy: PolicyRow): Promise<DryRunRecord> {
  return dryRun(
    db,
    { scope_type: policy.scope_type, application_id: policy.application_id, group_id: policy.group_id },
    { eventTypes: policy.event_types, conditions: policy.conditions, actions: policy.actions },
  );
}

/** `POST /api/policies/test`: a policy body, tried without saving it. */
export async function tryDefinition(
  db: Kysely<DB>,
  user: UserPrincipal,
  input: DryRunInput,
): Promise<DryRunRecord> {
  const scope = await resolveScope(db, user, input);
  return dryRun(db, scope, await checkedDefinition(db, input, scope));
}
