import type { JobContext } from '../../app-context.ts';
import type { Config } from '../../config.ts';
import { EVENTS_CHANNEL } from '../../db/change-notices.ts';
import type { JobSpecs } from '../../jobs/job-map.ts';
import { forwardAuditEvents, hasUnforwardedAudit } from './audit-forwarding.ts';
import { deliverBatch } from './delivery.ts';

/**
 * Webhook deliveries: sent in batches; a delivery whose receiver failed is retried by pg-boss. The
 * audit trail's forwarder runs one at a time, when a streaming webhook is behind (looked at on every
 * outbox notice and poll) and every minute.
 */
export const webhookJobs = (config: Config): JobSpecs<'deliver-webhook' | 'forward-audit', JobContext> => ({
  'deliver-webhook': {
    policy: 'standard',
    retryLimit: config.webhooks.retryLimit,
    retryDelay: config.webhooks.retryDelaySeconds,
    batchSize: 100,
    batchHandler: deliverBatch,
  },
  'forward-audit': {
    policy: 'stately',
    cron: '* * * * *',
    watch: { channel: EVENTS_CHANNEL, pending: hasUnforwardedAudit },
    retryLimit: 2,
    handler: async (context) => {
      await forwardAuditEvents(context);
    },
  },
});
