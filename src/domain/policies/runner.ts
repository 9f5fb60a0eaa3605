import { sql, type Expression, type SqlBool, type Transaction } from 'kysely';
import type { DB, FindingStatus } from '../../db/schema.ts';
import { subscribesTo, type EventType } from '../../events/event-types.ts';
import type { Cascade, Change, FindingSelection } from '../../events/subscribers.ts';
import { conditionsSql, regexFilter, REGEX_SUBJECT_SQL, type RegexSubject } from './conditions.ts';
import type { Action, Condition } from './definition.ts';

/**
 * Decides which policies act on a change, and on which findings: it changes nothing but
 * returns its decision as data, which apply.ts carries out. Set-wise: per policy, one statement
 * selects its matches among the changed findings. A policy's own changes (a status change, a
 * reassignment) are decided on again — up to depth 3, and a policy acts at most once per finding in
 * one cascade (`Cascade.acted` holds `policyId:findingId`).
 */

export const MAX_CASCADE_DEPTH = 3;

export interface PolicyRow {
  id: number;
  name: string;
  scope_type: string;
  application_id: number | null;
  group_id: number | null;
  event_types: string[];
  conditions: Condition[];
  actions: Action[];
}

export interface MatchedFinding {
  id: number;
  application_id: number;
  status: FindingStatus;
  assignee_id: number | null;
}

export const idsParam = (ids: readonly number[]) =>
  sql<number>`(select json_array_elements_text(${JSON.stringify(ids)}::json)::integer)`;

function selectionSql(selection: FindingSelection): Expression<SqlBool> {
  if ('ids' in selection) return sql<SqlBool>`f.id in ${idsParam(selection.ids)}`;
  return selection.newOnly
    ? sql<SqlBool>`(f.version_id = ${selection.versionId} and f.first_scan_id = ${selection.scanId})`
    : sql<SqlBool>`(f.version_id = ${selection.versionId} and f.last_scan_id = ${selection.scanId})`;
}

function scopeSql(
  policy: Pick<PolicyRow, 'scope_type' | 'application_id' | 'group_id'>,
): Expression<SqlBool> {
  if (policy.scope_type === 'application') return sql<SqlBool>`f.application_id = ${policy.application_id}`;
  if (policy.scope_type === 'group') {
    return sql<SqlBool>`f.application_id in (select a.id from applications a where a.group_id = ${policy.group_id})`;
  }
  return sql<SqlBool>`true`;
}

const isEmpty = (selection: FindingSelection) => 'ids' in selection && selection.ids.length === 0;

/** Enabled policies whose scope covers one of `applicationIds` and that react to `event`. */
async function policiesFor(trx: Transaction<DB>, applicationIds: readonly number[], event: string) {
  const rows = await sql<PolicyRow>`
    select id, name, scope_type, application_id, group_id, event_types, conditions, actions
    from policies p
    where p.enabled and (
      p.scope_type = 'global'
      or p.application_id in ${idsParam(applicationIds)}
      or p.group_id in (select a.group_id from applications a where a.id in ${idsParam(applicationIds)}))
    order by p.id`.execute(trx);
  // Same rule as webhook subscriptions (a policy cannot hold `*`, so `finding.updated` is the alias that matters).
  return rows.rows.filter((policy) => subscribesTo(policy.event_types, event));
}

/** The findings of `selection` that `policy` matches (and has not acted on in this cascade). */
export async function matchingFindings(
  trx: Transaction<DB>,
  policy: Pick<PolicyRow, 'scope_type' | 'application_id' | 'group_id' | 'conditions'>,
  selection: Expression<SqlBool>,
  excluded: readonly number[] = [],
): Promise<MatchedFinding[]> {
  const regex = regexFilter(policy.conditions);
  const rows = await sql<MatchedFinding & Partial<RegexSubject>>`
    select f.id, f.application_id, f.status, f.assignee_id${regex ? sql`, ${REGEX_SUBJECT_SQL}` : sql``}
    from findings f
    where ${selection} and ${scopeSql(policy)} and ${conditionsSql(policy.conditions)}
      ${excluded.length > 0 ? sql`and f.id not in ${idsParam(excluded)}` : sql``}
    order by f.id`.execute(trx);
  const matched = regex ? rows.rows.filter((row) => regex(row as RegexSubject)) : rows.rows;
  return matched.map(({ id, application_id, status, assignee_id }) => ({
    id,
    application_id,
    status,
    assignee_id,
  }));
}

/** What the policies of one level decided: who matched what, as the change left the findings. */
export interface PolicyDecision {
  event: EventType;
  depth: number;
  /** Findings the policies were evaluated on. */
  evaluated: number;
  /** Per policy (id order), its matches; what their own changes set off runs at `next`. */
  matches: { policy: PolicyRow; matched: MatchedFinding[] }[];
  next: Cascade;
}

/**
 * The policies that react to `change` and their matches, or null when none runs (past the cascade's
 * depth, nothing changed, no policy reacts). Marks the matches as acted in the cascade.
 */
export async function decidePolicies(trx: Transaction<DB>, change: Change): Promise<PolicyDecision | null> {
  const cascade = change.cascade ?? { depth: 1, acted: new Set<string>() };
  if (cascade.depth > MAX_CASCADE_DEPTH || change.applicationIds.length === 0 || isEmpty(change.findings))
    return null;
  const policies = await policiesFor(trx, change.applicationIds, change.event);
  if (policies.length === 0) return null;
  const selection = selectionSql(change.findings);
  const evaluated = await sql<{
    count: number;
  }>`select count(*)::integer as count from findings f where ${selection}`
    .execute(trx)
    .then((result) => result.rows[0]?.count ?? 0);

  // Every policy of this level matches against the findings as the change left them; only then do
  // they act (in id order), so one policy's action never decides whether another of the same level
  // matches — that is the next level's business.
  const matches: PolicyDecision['matches'] = [];
  for (const policy of policies) {
    const excluded = [...cascade.acted]
      .filter((key) => key.startsWith(`${policy.id}:`))
      .map((key) => Number(key.slice(key.indexOf(':') + 1)));
    const matched = await matchingFindings(trx, policy, selection, excluded);
    for (const finding of matched) cascade.acted.add(`${policy.id}:${finding.id}`);
    matches.push({ policy, matched });
  }
  return {
    event: change.event,
    depth: cascade.depth,
    evaluated,
    matches,
    next: { depth: cascade.depth + 1, acted: cascade.acted },
  };
}
