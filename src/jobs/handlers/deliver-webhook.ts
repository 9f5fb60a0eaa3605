import { deliverBatch } from '../../modules/webhooks/delivery.ts';
import type { BatchFailures, BatchJob, JobContext } from '../jobs.ts';
import type { JobPayloads } from '../job-map.ts';

/** Sends a batch of webhook deliveries at once; the ones whose receiver failed are retried by pg-boss. */
export async function deliverWebhookBatch(
  context: JobContext,
  jobs: BatchJob<JobPayloads['deliver-webhook']>[],
): Promise<BatchFailures> {
  return deliverBatch(context, jobs);
}
