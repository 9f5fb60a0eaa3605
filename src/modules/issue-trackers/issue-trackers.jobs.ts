import type { JobContext } from '../../app-context.ts';
import type { Config } from '../../config.ts';
import type { JobSpecs } from '../../jobs/job-map.ts';
import { reconcileTrackers } from './tracker-reconcile.ts';
import { runTrackerIssueJob } from './tracker-sync.ts';

/** Issue-tracker calls, one job per finding's link, and the scheduled reconciliation. */
export const trackerJobs = (config: Config): JobSpecs<'tracker-issue' | 'tracker-reconcile', JobContext> => ({
  'tracker-issue': {
    policy: 'standard',
    retryLimit: config.trackers.retryLimit,
    retryDelay: config.trackers.retryDelaySeconds,
    // One provider call set for one finding's issue; a retryable failure is thrown for pg-boss to retry.
    handler: runTrackerIssueJob,
  },
  'tracker-reconcile': {
    policy: 'singleton',
    cron: '*/10 * * * *',
    retryLimit: 0,
    // Re-reads open linked issues and applies closures seen in the trackers.
    handler: async (context) => {
      const { checked, closed } = await reconcileTrackers(context);
      if (checked > 0) context.log.info({ checked, closed }, 'tracker reconciliation');
    },
  },
});
