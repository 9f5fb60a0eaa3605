import type { JobContext } from '../../app-context.ts';
import { announceSlaBreaches } from '../../domain/findings/sla-breach.ts';
import type { JobSpecs } from '../../jobs/job-map.ts';

/**
 * Announces SLA breaches every minute, once per slot across all processes (singleton); each finding
 * once ever (its `sla_breached_at`, domain/findings/sla-breach.ts). A payload's `now` runs it with
 * another clock (tests travel in time with it); the schedule sends none.
 */
export const slaJobs: JobSpecs<'sla-breaches', JobContext> = {
  'sla-breaches': {
    policy: 'singleton',
    cron: '* * * * *',
    retryLimit: 0,
    handler: async (context, payload) => {
      const now = payload.now !== undefined ? new Date(payload.now) : new Date();
      const announced = await announceSlaBreaches(context.db, now);
      if (announced > 0) context.log.info({ announced }, 'SLA breaches announced');
    },
  },
};
