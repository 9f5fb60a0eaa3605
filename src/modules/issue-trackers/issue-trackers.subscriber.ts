import type { Transaction } from 'kysely';
import type { DB, SeverityName, TrackerProvider } from '../../db/schema.ts';
import { OPEN_STATUSES } from '../../domain/findings/lifecycle.ts';
import { severityRank } from '../../domain/findings/severity.ts';
import type { AfterCommitContext, OutboxEvent, Subscriber } from '../../events/subscribers.ts';

/**
 * The issue trackers' after-commit reaction, run by the outbox dispatcher in its transaction:
 * `finding.created` claims a link for each new finding at or above the threshold (auto-create) and
 * sends its `create` job; `finding.status_changed` sends a `sync` job for the finding's links. An
 * event the dispatcher reads twice (an upload's event is sent in slices) claims nothing twice: the
 * claim is the link's unique key. Events a policy re-sent to webhooks (`policy_id`) are skipped.
 */
async function queueTrackerWork(
  trx: Transaction<DB>,
  jobs: AfterCommitContext['jobs'],
  events: readonly OutboxEvent[],
): Promise<number> {
  const relevant = events.filter(
    (event) =>
      event.policy_id === null &&
      event.application_id !== null &&
      (event.type === 'finding.created' || event.type === 'finding.status_changed'),
  );
  if (relevant.length === 0) return 0;
  const applicationIds = [...new Set(relevant.map((event) => event.application_id as number))];
  const trackers = await trx
    .selectFrom('issue_trackers')
    .select(['id', 'application_id', 'provider', 'auto_create', 'severity_threshold'])
    .where('application_id', 'in', applicationIds)
    .execute();
  if (trackers.length === 0) return 0;
  const created: number[] = [];
  const synced = new Set<number>();
  for (const event of relevant) {
    const tracker = trackers.find((candidate) => candidate.application_id === event.application_id);
    if (!tracker) continue;
    if (event.type === 'finding.created') {
      if (tracker.auto_create) created.push(...(await claimNewFindings(trx, tracker, event)));
    } else if (event.finding_id !== null) {
      const links = await trx
        .selectFrom('tracker_issues')
        .select('id')
        .where('tracker_id', '=', tracker.id)
        .where('finding_id', '=', event.finding_id)
        .execute();
      for (const link of links) synced.add(link.id);
    }
  }
  await jobs.sendMany(trx, 'tracker-issue', [
    ...created.map((linkId) => ({ linkId, action: 'create' as const })),
    ...[...synced].map((linkId) => ({ linkId, action: 'sync' as const })),
  ]);
  return created.length + synced.size;
}

/** Auto-filing and status sync: done with every event it is given (a second reading claims nothing twice). */
export const trackerSubscriber: Subscriber = {
  name: 'issue-trackers',
  events: ['finding.created', 'finding.status_changed'],
  afterCommit: async (trx, events, { jobs }) => {
    await queueTrackerWork(trx, jobs, events);
    return { done: events.map((event) => event.id) };
  },
};

/** Claims links for the open findings an event announces (one, or an upload's) at the threshold. */
async function claimNewFindings(
  trx: Transaction<DB>,
  tracker: { id: number; provider: TrackerProvider; severity_threshold: SeverityName },
  event: OutboxEvent,
): Promise<number[]> {
  const firstScanId = Number(event.data?.['first_scan_id']);
  const versionId = Number(event.data?.['version_id']);
  const single = event.finding_id;
  if (single === null && (!Number.isInteger(firstScanId) || !Number.isInteger(versionId))) return [];
  const rank = severityRank(tracker.severity_threshold);
  const rows = await trx
    .insertInto('tracker_issues')
    .columns(['tracker_id', 'finding_id', 'provider'])
    .expression((eb) =>
      eb
        .selectFrom('findings')
        .select([eb.val(tracker.id).as('tracker_id'), 'findings.id', eb.val(tracker.provider).as('provider')])
        .$if(single !== null, (query) => query.where('findings.id', '=', single ?? 0))
        .$if(single === null, (query) =>
          query
            .where('findings.version_id', '=', versionId)
            .where('findings.first_scan_id', '=', firstScanId),
        )
        .where('findings.severity_rank', '>=', rank)
        .where('findings.status', 'in', OPEN_STATUSES),
    )
    .onConflict((conflict) => conflict.columns(['finding_id', 'tracker_id']).doNothing())
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Claims link rows for findings, in the caller's transaction: one per finding and tracker, ever
 * (the unique key), so whoever inserts first owns the ticket and everyone else sees the claim.
 * Returns the ids of the links this call created (the ones that need a `create` job).
 */
export async function claimLinks(
  trx: Transaction<DB>,
  tracker: { id: number; provider: TrackerProvider },
  findingIds: readonly number[],
): Promise<number[]> {
  if (findingIds.length === 0) return [];
  const rows = await trx
    .insertInto('tracker_issues')
    .values(
      findingIds.map((findingId) => ({
        tracker_id: tracker.id,
        finding_id: findingId,
        provider: tracker.provider,
      })),
    )
    .onConflict((conflict) => conflict.columns(['finding_id', 'tracker_id']).doNothing())
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}
