import type { Config } from './config.ts';
import type { AppContext } from './app-context.ts';
import type { Database } from './db/database.ts';
import { installSubscribers } from './events/subscribers.ts';
import type { JobLog } from './jobs/job-map.ts';
import { startJobs } from './jobs/jobs.ts';
import { SecretBox } from './lib/secrets.ts';
import { createMetrics } from './observability/metrics.ts';
import { jobMap, subscribers } from './wiring.ts';

/**
 * Wires the application context: database, secrets, the event subscribers and the job system. The server, `scanhub
 * worker` and the tests all build it here; `work` says whether this process runs job workers, and
 * `deferWorkers` that they start later, with the rest of the start (`startup.complete` says when),
 * and `clock: false` that cron schedules send nothing (tests that count an outside API's requests).
 */
export async function createAppContext(
  config: Config,
  database: Database,
  secretKey: string,
  log: JobLog,
  options: { work: boolean; deferWorkers?: boolean; clock?: boolean },
): Promise<AppContext> {
  installSubscribers(subscribers);
  const base = {
    config,
    database,
    db: database.db,
    secretKey,
    secrets: new SecretBox(secretKey),
    metrics: createMetrics(database, { workerDeadAfterSeconds: config.jobs.deadAfterSeconds }),
    // Complete unless the caller still has start steps to run (the server's, after it listens).
    startup: { complete: !options.deferWorkers },
  };
  const jobs = await startJobs(base, jobMap(config), {
    work: options.work,
    deferWorkers: options.deferWorkers ?? false,
    clock: options.clock ?? true,
    expireInSeconds: config.jobs.timeoutSeconds,
    log,
  });
  return { ...base, jobs };
}
