import { sql, type Expression, type SqlBool, type Transaction } from 'kysely';
import type { DB, FindingStatus } from '../../db/schema.ts';
import { subscribesTo, type EventType } from '../../events/event-types.ts';
import { publishEvents } from '../../events/events.ts';
import { changeAssignee } from '../findings/assignment.ts';
import { changeStatus } from '../findings/status.ts';
import { recordTimeline, type Actor } from '../findings/timeline.ts';
import { conditionsSql, regexFilter, REGEX_SUBJECT_SQL, type RegexSubject } from './conditions.ts';
import type { Action, Condition } from './definition.ts';

/**
 * Runs the policies that react to a change, inside the transaction that made it: an upload's 201
 * answer and a triage change's response already show what the policies did. Set-wise: per policy,
 * one statement selects its matches among the changed findings, and each action is one or a few
 * statements for all of them. A policy's own changes (a status change, a reassignment) run the
 * policies again — up to depth 3, and a policy acts at most once per finding in one cascade.
 */

export const MAX_CASCADE_DEPTH = 3;

/** State shared by the runs of one cascade. */
export interface Cascade {
  depth: number;
  /** `policyId:findingId` pairs that already acted. */
  acted: Set<string>;
}

export type FindingSelection =
  | { ids: readonly number[] }
  /** An upload's findings: new in it (`newOnly`), or every finding it saw. */
  | { versionId: number; scanId: number; newOnly: boolean };

export interface PolicyTrigger {
  event: EventType;
  applicationIds: readonly number[];
  findings: FindingSelection;
  cascade?: Cascade | undefined;
}

interface PolicyRow {
  id: number;
  name: string;
  scope_type: string;
  application_id: number | null;
  group_id: number | null;
  event_types: string[];
  conditions: Condition[];
  actions: Action[];
}

interface MatchedFinding {
  id: number;
  application_id: number;
  status: FindingStatus;
  assignee_id: number | null;
}

const idsParam = (ids: readonly number[]) =>
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

export async function runPolicies(trx: Transaction<DB>, trigger: PolicyTrigger): Promise<void> {
  const cascade = trigger.cascade ?? { depth: 1, acted: new Set<string>() };
  if (cascade.depth > MAX_CASCADE_DEPTH || trigger.applicationIds.length === 0 || isEmpty(trigger.findings))
    return;
  const policies = await policiesFor(trx, trigger.applicationIds, trigger.event);
  if (policies.length === 0) return;
  const selection = selectionSql(trigger.findings);
  const evaluated = await sql<{
    count: number;
  }>`select count(*)::integer as count from findings f where ${selection}`
    .execute(trx)
    .then((result) => result.rows[0]?.count ?? 0);
  const next: Cascade = { depth: cascade.depth + 1, acted: cascade.acted };

  // Every policy of this level matches against the findings as the change left them; only then do
  // they act (in id order), so one policy's action never decides whether another of the same level
  // matches — that is the next level's business.
  const matches: { policy: PolicyRow; matched: MatchedFinding[] }[] = [];
  for (const policy of policies) {
    const excluded = [...cascade.acted]
      .filter((key) => key.startsWith(`${policy.id}:`))
      .map((key) => Number(key.slice(key.indexOf(':') + 1)));
    const matched = await matchingFindings(trx, policy, selection, excluded);
    for (const finding of matched) cascade.acted.add(`${policy.id}:${finding.id}`);
    matches.push({ policy, matched });
  }
  for (const { policy, matched } of matches) {
    const current = matched.length > 0 ? await refreshed(trx, matched) : [];
    const errors = current.length > 0 ? await applyActions(trx, policy, current, trigger.event, next) : [];
    await logRun(trx, policy, trigger.event, cascade.depth, current, evaluated, errors);
  }
}

/** The matched findings' status and assignee now (an earlier policy of the level may have moved them). */
async function refreshed(
  trx: Transaction<DB>,
  matched: readonly MatchedFinding[],
): Promise<MatchedFinding[]> {
  return trx
    .selectFrom('findings')
    .select(['id', 'application_id', 'status', 'assignee_id'])
    .where('id', 'in', idsParam(matched.map((finding) => finding.id)))
    .orderBy('id')
    .execute();
}

/** Applies a policy's actions to its matches in order; returns the errors of actions that could not run. */
async function applyActions(
  trx: Transaction<DB>,
  policy: PolicyRow,
  matched: MatchedFinding[],
  event: EventType,
  cascade: Cascade,
): Promise<string[]> {
  const actor: Actor = { system: `policy:${policy.id}` };
  const detail = { policy: { id: policy.id, name: policy.name } };
  const errors: string[] = [];
  for (const action of policy.actions) {
    if (action.type === 'change_status') {
      const moving = matched.filter((finding) => finding.status !== action.target);
      await changeStatus(
        trx,
        moving.map((finding) => ({
          findingId: finding.id,
          applicationId: finding.application_id,
          from: finding.status,
          to: action.target,
          detail,
        })),
        { actor, reason: 'status_changed', cascade },
      );
      for (const finding of moving) finding.status = action.target;
    } else if (action.type === 'assign_to') {
      const assignee = await trx
        .selectFrom('users')
        .select(['id', 'disabled'])
        .where('id', '=', action.target)
        .executeTakeFirst();
      if (!assignee || assignee.disabled) {
        errors.push(`assign_to: user ${action.target} ${assignee ? 'is disabled' : 'no longer exists'}`);
        continue;
      }
      const moved = await changeAssignee(
        trx,
        matched.map((finding) => ({
          findingId: finding.id,
          applicationId: finding.application_id,
          from: finding.assignee_id,
        })),
        action.target,
        actor,
        detail,
      );
      for (const finding of matched) finding.assignee_id = action.target;
      await runPolicies(trx, {
        event: 'finding.reassigned',
        applicationIds: [...new Set(moved.map((move) => move.applicationId))],
        findings: { ids: moved.map((move) => move.findingId) },
        cascade,
      });
    } else if (action.type === 'comment') {
      await comment(trx, policy, matched, event, action.target, actor);
    } else {
      // The `webhook` action: the dispatcher sends these to every active webhook of the application.
      await publishEvents(
        trx,
        matched.map((finding) => ({
          type: event,
          applicationId: finding.application_id,
          findingId: finding.id,
          policyId: policy.id,
          data: detail,
        })),
      );
    }
  }
  return errors;
}

function describeConditions(conditions: readonly Condition[]): string {
  if (conditions.length === 0) return 'no conditions (every finding)';
  return conditions
    .map((condition) => `${condition.field} ${condition.op} ${JSON.stringify(condition.value)}`)
    .join(' and ');
}

async function comment(
  trx: Transaction<DB>,
  policy: PolicyRow,
  matched: readonly MatchedFinding[],
  event: EventType,
  text: string | null,
  actor: Actor,
): Promise<void> {
  const content =
    `${text ? `${text}\n\n` : ''}Policy "${policy.name}" (#${policy.id}) matched on ${event}: ` +
    describeConditions(policy.conditions);
  await sql`
    insert into finding_comments (finding_id, author_id, content)
    select x.id_text::integer, null, ${content}
    from json_array_elements_text(${JSON.stringify(matched.map((finding) => finding.id))}::json) as x(id_text)`.execute(
    trx,
  );
  await recordTimeline(
    trx,
    matched.map((finding) => ({
      findingId: finding.id,
      type: 'commented' as const,
      actor,
      detail: { policy: { id: policy.id, name: policy.name } },
    })),
  );
}

/** One row per evaluation, the matched findings as one array. */
async function logRun(
  trx: Transaction<DB>,
  policy: PolicyRow,
  event: string,
  depth: number,
  matched: readonly MatchedFinding[],
  evaluated: number,
  errors: readonly string[],
): Promise<void> {
  await sql`
    insert into policy_runs (policy_id, event, depth, evaluated, finding_ids, actions, error)
    values (${policy.id}, ${event}, ${depth}, ${evaluated},
      array(select json_array_elements_text(${JSON.stringify(matched.map((finding) => finding.id))}::json)::integer),
      ${matched.length > 0 ? JSON.stringify(policy.actions) : null}::jsonb, ${errors.length > 0 ? errors.join('; ') : null})`.execute(
    trx,
  );
}
