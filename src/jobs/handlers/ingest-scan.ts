import { processStoredScan } from '../../ingest/process-stored-scan.ts';
import type { JobContext } from '../jobs.ts';

/** Finishes one async upload. A second delivery of the same job finds the scan finished and stops. */
export async function processIngestScan(context: JobContext, scanId: number): Promise<void> {
  await processStoredScan(context, scanId);
}
