import type { JobContext } from '../../app-context.ts';
import type { JobSpecs } from '../../jobs/job-map.ts';
import { processStoredScan } from '../../ingest/process-stored-scan.ts';
import { vacuumAfterIngest } from './vacuum-after-ingest.ts';

/** The jobs uploads send. */
export const ingestJobs: JobSpecs<'ingest-scan' | 'vacuum-after-ingest', JobContext> = {
  'ingest-scan': {
    policy: 'standard',
    retryLimit: 3,
    // Finishes one async upload. A second delivery of the same job finds the scan finished and stops.
    handler: (context, payload) => processStoredScan(context, payload.scanId),
  },
  'vacuum-after-ingest': {
    // One queued is enough however many uploads ask: it vacuums whatever they all churned.
    policy: 'stately',
    retryLimit: 1,
    handler: vacuumAfterIngest,
  },
};
