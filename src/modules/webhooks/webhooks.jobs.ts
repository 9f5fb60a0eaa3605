import type { JobContext } from '../../app-context.ts';
import type { Config } from '../../config.ts';
import type { JobSpecs } from '../../jobs/job-map.ts';
import { deliverBatch } from './delivery.ts';

/** Webhook deliveries: sent in batches; a delivery whose receiver failed is retried by pg-boss. */
export const webhookJobs = (config: Config): JobSpecs<'deliver-webhook', JobContext> => ({
  'deliver-webhook': {
    policy: 'standard',
    retryLimit: config.webhooks.retryLimit,
    retryDelay: config.webhooks.retryDelaySeconds,
    batchSize: 100,
    batchHandler: deliverBatch,
  },
});
