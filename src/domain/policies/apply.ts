import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { FINDING_EVENT_TYPES, type EventType } from '../../events/event-types.ts';
import { publishEvents } from '../../events/events.ts';
import { reactInTransaction, type Cascade, type Change, type Subscriber } from '../../events/subscribers.ts';
import { changeAssignee } from '../findings/assignment.ts';
import { changeStatus } from '../findings/status.ts';
import { recordTimeline, type Actor } from '../findings/timeline.ts';
import type { Condition } from './definition.ts';
import { decidePolicies, idsParam, type MatchedFinding, type PolicyRow } from './runner.ts';

/**
 * Runs the policies that react to a change, inside the transaction that made it: an upload's 201
 * answer and a triage change's response already show what the policies did. runner.ts decides which
 * policy acts on which findings; the loop here carries that out, each action one or a few statements
 * for all of a policy's matches. What an action changes is a change of its own (a status change, a
 * reassignment), reacted to one level deeper through the subscriber map, before the next action.
 */
export async function runPolicies(trx: Transaction<DB>, change: Change): Promise<void> {
  const decision = await decidePolicies(trx, change);
  if (!decision) return;
  for (const { policy, matched } of decision.matches) {
    const current = matched.length > 0 ? await refreshed(trx, matched) : [];
    const errors =
      current.length > 0 ? await applyActions(trx, policy, current, decision.event, decision.next) : [];
    await logRun(trx, policy, decision.event, decision.depth, current, decision.evaluated, errors);
  }
}

/** Policies react in the transaction of every change a policy may name. */
export const policySubscriber: Subscriber = {
  name: 'policies',
  events: FINDING_EVENT_TYPES,
  inTransaction: runPolicies,
};

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
      await reactInTransaction(trx, {
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
