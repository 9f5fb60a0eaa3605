import type { JobContext } from '../../app-context.ts';
import { batchLanes } from '../../db/lanes.ts';
import type { JobSpecs } from '../../jobs/job-map.ts';
import { recomputeAllRisk } from '../findings/risk.repository.ts';
import { runHourlyMaintenance } from './maintenance-hourly.ts';

/** The scheduled upkeep: once per slot across all processes (singletons), never retried. */
export const maintenanceJobs: JobSpecs<'maintenance-hourly' | 'maintenance-daily', JobContext> = {
  'maintenance-hourly': {
    policy: 'singleton',
    cron: '17 * * * *',
    retryLimit: 0,
    handler: runHourlyMaintenance,
  },
  'maintenance-daily': {
    policy: 'singleton',
    cron: '41 3 * * *',
    retryLimit: 0,
    // The age part of the risk formula grows every day: re-score, once a day across all processes.
    handler: async (context) => {
      const result = await recomputeAllRisk(context.db, { lanes: batchLanes(context.database.kind) });
      context.log.info({ result }, 'daily risk re-score done');
    },
  },
};
