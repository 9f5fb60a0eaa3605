import type { AppContext } from './app-context.ts';
import type { Config } from './config.ts';
import { policySubscriber } from './domain/policies/apply.ts';
import { outboxJobs } from './events/outbox-dispatcher.ts';
import { subscriberMap } from './events/subscribers.ts';
import type { JobMap } from './jobs/jobs.ts';
import { acceptanceJobs } from './modules/acceptances/acceptances.jobs.ts';
import { enrichmentJobs } from './modules/enrichment/enrichment.jobs.ts';
import { ingestJobs } from './modules/ingest/ingest.jobs.ts';
import { trackerJobs } from './modules/issue-trackers/issue-trackers.jobs.ts';
import { trackerSubscriber } from './modules/issue-trackers/issue-trackers.subscriber.ts';
import { maintenanceJobs } from './modules/maintenance/maintenance.jobs.ts';
import { metricsJobs } from './modules/metrics/metrics.jobs.ts';
import { auditJobs } from './modules/audit/audit.jobs.ts';
import { slaJobs } from './modules/sla/sla.jobs.ts';
import { webhookJobs } from './modules/webhooks/webhooks.jobs.ts';
import { webhookSubscriber } from './modules/webhooks/webhooks.subscriber.ts';
import { licensePolicyJobs } from './modules/license-policies/license-policies.jobs.ts';
import { licensePolicySubscriber } from './modules/license-policies/license-policies.subscriber.ts';

/**
 * The one place that names who reacts to events and which jobs exist: each module exports its
 * subscriber and its job specs, and they are listed here. To react to an event, export a `Subscriber`
 * from the module and add it below; to add a job, name its payload in jobs/job-map.ts, export its
 * spec from the module and spread it into `jobMap` (the compiler asks for every name).
 */

/**
 * Who reacts to what: policies in the transaction of the change; after commit, issue trackers
 * (auto-filing, status sync), webhooks, and the licence policies (an upload's version is evaluated),
 * in this order within one dispatcher transaction.
 */
export const subscribers = subscriberMap([
  policySubscriber,
  trackerSubscriber,
  webhookSubscriber,
  licensePolicySubscriber,
]);

/** Every job's spec, one entry per name of jobs/job-map.ts. */
export const jobMap = (config: Config): JobMap<Omit<AppContext, 'jobs'>> => ({
  ...ingestJobs,
  ...maintenanceJobs,
  ...metricsJobs,
  ...auditJobs,
  ...slaJobs,
  ...outboxJobs(subscribers),
  ...webhookJobs(config),
  ...trackerJobs(config),
  ...acceptanceJobs,
  ...licensePolicyJobs,
  ...enrichmentJobs,
});
