import type { Kysely, Selectable } from 'kysely';
import type { DB, FindingStatus, IssueTrackersTable } from '../../db/schema.ts';
import { CLOSED_STATUSES } from '../../domain/findings/lifecycle.ts';
import { changeStatus } from '../../domain/findings/status.ts';
import { recordTimeline } from '../../domain/findings/timeline.ts';
import { isOwnComment } from '../../integrations/issue-trackers/types.ts';

/**
 * What a tracker tells scanhub (by webhook, or seen by the reconciliation job): an issue closed or
 * reopened there moves its finding through `changeStatus` (the timeline names the tracker), and a
 * comment there joins the finding's thread. The link's state is written in the same transaction, so
 * the `finding.status_changed` this causes finds the issue already in that state and sends nothing
 * back to the tracker.
 */

type Tracker = Pick<Selectable<IssueTrackersTable>, 'id' | 'provider' | 'closed_status'>;
const CLOSED: readonly FindingStatus[] = CLOSED_STATUSES;
const PROVIDER_NAMES = { jira: 'Jira', github: 'GitHub', gitlab: 'GitLab' } as const;
const MAX_COMMENT = 10_000;

/** Applies an issue's state seen in the tracker; returns what it did. */
export async function applyRemoteState(
  db: Kysely<DB>,
  tracker: Tracker,
  key: string,
  state: 'open' | 'closed',
  via: 'webhook' | 'reconciliation',
): Promise<'unknown_issue' | 'unchanged' | 'finding_closed' | 'finding_reopened' | 'link_updated'> {
  return db.transaction().execute(async (trx) => {
    const link = await trx
      .selectFrom('tracker_issues')
      .select(['id', 'finding_id', 'state', 'url'])
      .where('tracker_id', '=', tracker.id)
      .where('external_key', '=', key)
      .forUpdate()
      .executeTakeFirst();
    if (!link) return 'unknown_issue';
    const now = new Date();
    if (link.state === state) {
      await trx
        .updateTable('tracker_issues')
        .set({ last_synced_at: now })
        .where('id', '=', link.id)
        .execute();
      return 'unchanged';
    }
    await trx
      .updateTable('tracker_issues')
      .set({ state, last_synced_at: now, updated_at: now })
      .where('id', '=', link.id)
      .execute();
    const finding = await trx
      .selectFrom('findings')
      .select(['id', 'application_id', 'status'])
      .where('id', '=', link.finding_id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const closedThere = state === 'closed';
    if (closedThere === CLOSED.includes(finding.status)) return 'link_updated';
    const to: FindingStatus = closedThere ? (tracker.closed_status as FindingStatus) : 'open';
    await changeStatus(
      trx,
      [
        {
          findingId: finding.id,
          applicationId: finding.application_id,
          from: finding.status,
          to,
          detail: { tracker: tracker.provider, issue: key, url: link.url, via },
        },
      ],
      {
        actor: { system: `tracker:${tracker.provider}` },
        reason: closedThere ? 'status_changed' : 'reopened',
        now,
      },
    );
    return closedThere ? 'finding_closed' : 'finding_reopened';
  });
}

/** Copies a comment made in the tracker into the finding's thread (never one scanhub wrote). */
export async function applyRemoteComment(
  db: Kysely<DB>,
  tracker: Tracker,
  key: string,
  author: string,
  text: string,
): Promise<'unknown_issue' | 'own_comment' | 'comment_added'> {
  if (isOwnComment(text)) return 'own_comment';
  return db.transaction().execute(async (trx) => {
    const link = await trx
      .selectFrom('tracker_issues')
      .select(['finding_id'])
      .where('tracker_id', '=', tracker.id)
      .where('external_key', '=', key)
      .executeTakeFirst();
    if (!link) return 'unknown_issue';
    const content = `${author} on ${PROVIDER_NAMES[tracker.provider]} ${key}: ${text}`.slice(0, MAX_COMMENT);
    const comment = await trx
      .insertInto('finding_comments')
      .values({ finding_id: link.finding_id, parent_id: null, author_id: null, content })
      .returning('id')
      .executeTakeFirstOrThrow();
    await recordTimeline(trx, [
      {
        findingId: link.finding_id,
        type: 'commented',
        actor: { system: `tracker:${tracker.provider}` },
        detail: { comment_id: comment.id, tracker: tracker.provider, issue: key },
      },
    ]);
    return 'comment_added';
  });
}
