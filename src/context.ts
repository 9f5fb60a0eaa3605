import type { Config } from './config.ts';
import type { AppContext } from './app-context.ts';
import type { Database } from './db/database.ts';
import { startJobs, type JobLog } from './jobs/jobs.ts';
import { SecretBox } from './lib/secrets.ts';
import { createMetrics } from './observability/metrics.ts';

/**
 * Wires the application context: database, secrets and the job system. The server, `scanhub
 * worker` and the tests all build it here; `work` says whether this process runs job workers.
 */
export async function createAppContext(
  config: Config,
  database: Database,
  secretKey: string,
  log: JobLog,
  options: { work: boolean },
): Promise<AppContext> {
  const base = {
    config,
    database,
    db: database.db,
    secretKey,
    secrets: new SecretBox(secretKey),
    metrics: createMetrics(database),
  };
  const jobs = await startJobs(base, {
    work: options.work,
    expireInSeconds: config.jobs.timeoutSeconds,
    log,
  });
  return { ...base, jobs };
}
