import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { trackerAdapter } from '../../integrations/issue-trackers/adapters.ts';
import { trackerErrorFrom } from '../../integrations/issue-trackers/types.ts';
import { applyRemoteState } from './remote-changes.ts';
import type { TrackerSyncContext } from './tracker-sync.ts';

/**
 * The `tracker-reconcile` job (scheduled, singleton): for trackers that cannot send webhooks, or
 * webhooks that were lost, re-read the open linked issues — least recently synced first, a bounded
 * number per tracker and run — and apply the closures seen there as a webhook would. A failing
 * tracker is recorded on the link and the run goes on to the next.
 */

const LINKS_PER_TRACKER = 200;

export async function reconcileTrackers(
  context: TrackerSyncContext,
): Promise<{ checked: number; closed: number }> {
  const { db } = context;
  const trackers = await db.selectFrom('issue_trackers').selectAll().orderBy('id').execute();
  let checked = 0;
  let closed = 0;
  for (const tracker of trackers) {
    const links = await openLinks(db, tracker.id);
    if (links.length === 0) continue;
    const adapter = await trackerAdapter(tracker, context.secrets, context.config);
    for (const link of links) {
      checked += 1;
      try {
        const issue = await adapter.getIssue(link.external_key);
        const outcome = await applyRemoteState(db, tracker, link.external_key, issue.state, 'reconciliation');
        if (outcome === 'finding_closed' || (issue.state === 'closed' && outcome === 'link_updated'))
          closed += 1;
        await db.updateTable('tracker_issues').set({ last_error: null }).where('id', '=', link.id).execute();
      } catch (error) {
        const failure = trackerErrorFrom(tracker.provider, error);
        await db
          .updateTable('tracker_issues')
          .set({ last_error: failure.message, last_synced_at: new Date() })
          .where('id', '=', link.id)
          .execute();
      }
    }
  }
  return { checked, closed };
}

async function openLinks(db: Kysely<DB>, trackerId: number): Promise<{ id: number; external_key: string }[]> {
  const rows = await db
    .selectFrom('tracker_issues')
    .select(['id', 'external_key'])
    .where('tracker_id', '=', trackerId)
    .where('state', '=', 'open')
    .where('external_key', 'is not', null)
    .orderBy(sql`last_synced_at asc nulls first`)
    .orderBy('id')
    .limit(LINKS_PER_TRACKER)
    .execute();
  return rows.flatMap((row) => (row.external_key ? [{ id: row.id, external_key: row.external_key }] : []));
}
