import { recomputeAllRisk } from '../../modules/findings/risk.repository.ts';
import type { JobContext } from '../jobs.ts';

/** The age part of the risk formula grows every day: re-score, once a day across all processes. */
export async function runDailyMaintenance(context: JobContext): Promise<void> {
  const result = await recomputeAllRisk(context.db);
  context.log.info({ result }, 'daily risk re-score done');
}
