import { reconcileTrackers } from '../../modules/issue-trackers/tracker-reconcile.ts';
import { runTrackerIssueJob } from '../../modules/issue-trackers/tracker-sync.ts';
import type { JobPayloads } from '../job-map.ts';
import type { JobContext } from '../jobs.ts';

/** One provider call set for one finding's issue; a retryable failure is thrown for pg-boss to retry. */
export async function runTrackerIssue(
  context: JobContext,
  payload: JobPayloads['tracker-issue'],
): Promise<void> {
  await runTrackerIssueJob(context, payload);
}

/** Re-reads open linked issues and applies closures seen in the trackers. */
export async function runTrackerReconcile(context: JobContext): Promise<void> {
  const { checked, closed } = await reconcileTrackers(context);
  if (checked > 0) context.log.info({ checked, closed }, 'tracker reconciliation');
}
