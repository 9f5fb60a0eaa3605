import { sql, type Kysely, type Selectable } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB, FindingStatus, TrackerIssuesTable } from '../../db/schema.ts';
import { CLOSED_STATUSES } from '../../domain/findings/lifecycle.ts';
import { trackerAdapter, type TrackerRow } from '../../integrations/issue-trackers/adapters.ts';
import {
  findingMarker,
  trackerErrorFrom,
  webUrlOrNull,
  type IssueTrackerAdapter,
} from '../../integrations/issue-trackers/types.ts';
import type { JobPayloads } from '../../jobs/job-map.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { issueDraft } from './issue-draft.presenter.ts';

/**
 * The `tracker-issue` job: every provider call about one finding's issue. It leases the link first
 * (one job per link talks to the provider at a time, without holding a transaction over HTTP), makes
 * sure the issue exists — searching for the finding's marker before creating, so a retry after a
 * timeout or a 5xx that did create the issue adopts it instead of filing a second — then does its
 * action. A failure is written to the link (`last_error`); timeouts, 5xx and 429 are thrown so
 * pg-boss retries with backoff, other refusals (401, 404, 422) are not retried.
 */

export interface TrackerSyncContext {
  db: Kysely<DB>;
  secrets: SecretBox;
  config: Pick<Config, 'outbound' | 'trackers' | 'publicUrl'>;
}

type Link = Selectable<TrackerIssuesTable>;
/** Longer than the slowest job: four provider calls at the configured deadline, with room to spare. */
const leaseSeconds = (timeoutMs: number): number => Math.max(120, Math.ceil((6 * timeoutMs) / 1000));
const CLOSED: readonly FindingStatus[] = CLOSED_STATUSES;

class LinkBusy extends Error {
  override name = 'LinkBusy';
}

async function lease(db: Kysely<DB>, linkId: number, seconds: number): Promise<Link | null> {
  const row = await db
    .updateTable('tracker_issues')
    .set({ lease_until: sql<Date>`now() + make_interval(secs => ${seconds})` })
    .where('id', '=', linkId)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', sql<Date>`now()`)]))
    .returningAll()
    .executeTakeFirst();
  if (row) return row;
  const exists = await db
    .selectFrom('tracker_issues')
    .select('id')
    .where('id', '=', linkId)
    .executeTakeFirst();
  // Gone with its tracker or finding: nothing to do. Held by another job: try again later.
  if (!exists) return null;
  throw new LinkBusy(`tracker link ${linkId} is busy`);
}

export async function runTrackerIssueJob(
  context: TrackerSyncContext,
  payload: JobPayloads['tracker-issue'],
): Promise<void> {
  const { db } = context;
  const link = await lease(db, payload.linkId, leaseSeconds(context.config.trackers.timeoutMs));
  if (!link) return;
  try {
    const tracker = await db
      .selectFrom('issue_trackers')
      .selectAll()
      .where('id', '=', link.tracker_id)
      .executeTakeFirstOrThrow();
    const adapter = await trackerAdapter(tracker, context.secrets, context.config);
    try {
      const key = await ensureIssue(db, adapter, tracker, link, context.config.publicUrl);
      // A create may adopt an old issue (found by its marker) or race a status change: align both.
      if (payload.action !== 'comment') await syncState(db, adapter, tracker, link, key);
      if (payload.action === 'comment' && payload.commentId !== undefined) {
        await postComment(db, adapter, key, payload.commentId);
      }
      await db
        .updateTable('tracker_issues')
        .set({ last_error: null, last_synced_at: new Date() })
        .where('id', '=', link.id)
        .execute();
    } catch (error) {
      const failure = trackerErrorFrom(tracker.provider, error);
      const current = await db
        .selectFrom('tracker_issues')
        .select('external_key')
        .where('id', '=', link.id)
        .executeTakeFirst();
      await db
        .updateTable('tracker_issues')
        .set({
          last_error: failure.message,
          updated_at: new Date(),
          // A refusal before any issue exists is final; retryable failures stay pending.
          ...(!current?.external_key && !failure.retryable ? { state: 'failed' as const } : {}),
        })
        .where('id', '=', link.id)
        .execute();
      if (failure.retryable) throw new Error(failure.message);
    }
  } finally {
    await db.updateTable('tracker_issues').set({ lease_until: null }).where('id', '=', link.id).execute();
  }
}

/** The link's issue key, after finding (by marker) or creating the issue when it has none yet. */
async function ensureIssue(
  db: Kysely<DB>,
  adapter: IssueTrackerAdapter,
  tracker: TrackerRow,
  link: Link,
  publicUrl: string | undefined,
): Promise<string> {
  if (link.external_key) return link.external_key;
  const finding = await db
    .selectFrom('findings')
    .selectAll()
    .where('id', '=', link.finding_id)
    .executeTakeFirstOrThrow();
  const found = await adapter.findByMarker(findingMarker(finding.id));
  const issue = found ?? (await adapter.createIssue(issueDraft(finding, tracker.labels, publicUrl)));
  await db
    .updateTable('tracker_issues')
    .set({
      external_id: issue.id,
      external_key: issue.key,
      url: webUrlOrNull(issue.url),
      state: issue.state,
      // The issue exists now: a reader who sees it linked must not see the failure that preceded it.
      last_error: null,
      last_synced_at: new Date(),
      updated_at: new Date(),
    })
    .where('id', '=', link.id)
    .execute();
  link.external_key = issue.key;
  link.state = issue.state;
  return issue.key;
}

/** Closes the issue of a fixed or false-positive finding (with `close_on_fix`), reopens it otherwise. */
async function syncState(
  db: Kysely<DB>,
  adapter: IssueTrackerAdapter,
  tracker: TrackerRow,
  link: Link,
  key: string,
): Promise<void> {
  const finding = await db
    .selectFrom('findings')
    .select(['id', 'status'])
    .where('id', '=', link.finding_id)
    .executeTakeFirstOrThrow();
  const closedHere = CLOSED.includes(finding.status);
  let state: 'open' | 'closed' | undefined;
  if (closedHere && link.state === 'open' && tracker.close_on_fix) {
    const why = finding.status === 'fixed' ? 'fixed' : 'a false positive';
    await adapter.close(key, `scanhub: finding ${finding.id} is ${why}; closing this issue.`);
    state = 'closed';
  } else if (!closedHere && link.state === 'closed') {
    await adapter.reopen(
      key,
      `scanhub: finding ${finding.id} is ${finding.status} again; reopening this issue.`,
    );
    state = 'open';
  }
  if (state) {
    await db
      .updateTable('tracker_issues')
      .set({ state, updated_at: new Date() })
      .where('id', '=', link.id)
      .execute();
  }
}

async function postComment(db: Kysely<DB>, adapter: IssueTrackerAdapter, key: string, commentId: number) {
  const comment = await db
    .selectFrom('finding_comments as comment')
    .leftJoin('users as author', 'author.id', 'comment.author_id')
    .select(['comment.content', 'author.name', 'author.email'])
    .where('comment.id', '=', commentId)
    .executeTakeFirst();
  if (!comment) return; // deleted before the job ran
  const who = comment.name || comment.email || 'someone';
  await adapter.comment(key, `${who} commented in scanhub:\n\n${comment.content}`);
}
