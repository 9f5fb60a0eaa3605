import type { JobContext } from '../../app-context.ts';
import { applyEnrichment, applyEnrichmentChanges } from '../../domain/findings/enrichment.ts';
import { batchLanes } from '../../db/lanes.ts';
import type { JobSpecs } from '../../jobs/job-map.ts';
import { fetchEnrichment } from './enrichment-fetch.ts';

/**
 * Enrichment's jobs: the set-wise re-score after an import (one queued at a time: a second import
 * while one waits is covered by it) and after an upload (per version), and the daily fetch of
 * EPSS_URL / KEV_URL (nothing when unset).
 */
export const enrichmentJobs: JobSpecs<
  'enrichment-apply' | 'enrichment-apply-version' | 'enrichment-fetch',
  JobContext
> = {
  'enrichment-apply': {
    policy: 'stately',
    retryLimit: 3,
    retryDelay: 30,
    handler: async (context) => {
      const result = await applyEnrichmentChanges(context.db, {
        lanes: batchLanes(context.database.kind),
      });
      context.log.info({ result }, 'enrichment applied');
    },
  },
  'enrichment-apply-version': {
    policy: 'standard',
    retryLimit: 3,
    retryDelay: 10,
    handler: async (context, { versionId }) => {
      await applyEnrichment(context.db, { versionId }, { lanes: batchLanes(context.database.kind) });
    },
  },
  'enrichment-fetch': {
    policy: 'singleton',
    cron: '23 5 * * *',
    retryLimit: 2,
    retryDelay: 600,
    handler: async (context) => {
      await fetchEnrichment(context);
    },
  },
};
