import type { JobContext } from '../../app-context.ts';
import type { JobSpecs } from '../../jobs/job-map.ts';
import { runPostureSnapshots } from './posture.service.ts';

/**
 * Posture snapshots, hourly so today's row is at most an hour old and a missed day (the server was
 * down at midnight) is back-filled at the next run; once per slot across all processes.
 */
export const metricsJobs: JobSpecs<'posture-snapshot', JobContext> = {
  'posture-snapshot': {
    policy: 'singleton',
    cron: '7 * * * *',
    retryLimit: 0,
    handler: async (context) => {
      const result = await runPostureSnapshots(context.db, {
        now: new Date(),
        retentionDays: context.config.postureRetentionDays,
      });
      context.log.info({ days: result.written.length, dropped: result.dropped }, 'posture snapshots written');
    },
  },
};
