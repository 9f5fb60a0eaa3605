import type { JobContext } from '../../app-context.ts';
import { announceSlaBreaches } from '../../domain/findings/sla-breach.ts';
import { recomputeDueDatesInBatches } from '../../domain/findings/sla.ts';
import type { JobSpecs } from '../../jobs/job-map.ts';

/**
 * Announces SLA breaches every minute, once per slot across all processes (singleton); each finding
 * once ever (its `sla_breached_at`, domain/findings/sla-breach.ts). A payload's `now` runs it with
 * another clock (tests travel in time with it); the schedule sends none.
 */
export const slaJobs: JobSpecs<'sla-breaches' | 'sla-recompute', JobContext> = {
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
  /**
   * Recomputes the SLA due dates a configuration or assignment change affects, after the change's
   * transaction committed (the API answers at once): set-wise, a batch of applications per
   * transaction, idempotent (a rerun, or a retry after a failure half-way, writes only what is still
   * wrong). Sent by modules/sla/sla.service.ts.
   */
  'sla-recompute': {
    policy: 'standard',
    retryLimit: 3,
    retryDelay: 5,
    handler: async (context, payload) => {
      const now = payload.now !== undefined ? new Date(payload.now) : new Date();
      const started = performance.now();
      const changed = await recomputeDueDatesInBatches(context.db, payload.scope, now);
      context.log.info(
        { scope: payload.scope, changed, ms: Math.round(performance.now() - started) },
        'SLA due dates recomputed',
      );
    },
  },
};
