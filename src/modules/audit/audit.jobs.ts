import type { JobContext } from '../../app-context.ts';
import { applyAuditRetention } from '../../events/audit-chain.ts';
import type { JobSpecs } from '../../jobs/job-map.ts';

/**
 * Audit retention, once a day across all processes: events older than AUDIT_RETENTION_DAYS go, in
 * batches, the anchor moving first so the chain verifies from the first kept row.
 */
export const auditJobs: JobSpecs<'audit-retention', JobContext> = {
  'audit-retention': {
    policy: 'singleton',
    cron: '23 4 * * *',
    retryLimit: 0,
    handler: async (context) => {
      const result = await applyAuditRetention(context.db, {
        now: new Date(),
        retentionDays: context.config.auditRetentionDays,
      });
      context.log.info({ audit_retention: result }, 'audit retention done');
    },
  },
};
