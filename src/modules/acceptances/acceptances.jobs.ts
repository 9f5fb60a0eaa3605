import type { JobContext } from '../../app-context.ts';
import type { JobSpecs } from '../../jobs/job-map.ts';
import { runAcceptanceExpiry } from './acceptance-expiry.ts';

/** Expiry, every minute, once across all processes (a singleton; the rows are locked besides). */
export const acceptanceJobs: JobSpecs<'acceptance-expiry', JobContext> = {
  'acceptance-expiry': {
    policy: 'singleton',
    cron: '* * * * *',
    retryLimit: 0,
    handler: async (context) => {
      const run = await runAcceptanceExpiry(context.db, context.jobs, new Date());
      if (run.expired.length > 0 || run.expiring.length > 0) {
        context.log.info({ run }, 'acceptances expired or expiring');
      }
    },
  },
};
