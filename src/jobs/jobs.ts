import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import PgBoss from 'pg-boss';
import type { AppContext } from '../app-context.ts';
import type { DB } from '../db/schema.ts';
import { bossDatabase, viaKysely } from './boss-database.ts';
import { processIngestScan } from './handlers/ingest-scan.ts';
import { runDailyMaintenance } from './handlers/maintenance-daily.ts';
import { runHourlyMaintenance } from './handlers/maintenance-hourly.ts';
import type { JobName, JobPayloads } from './job-map.ts';

/** What a handler gets: the application context without the job runtime itself. */
export type JobContext = Omit<AppContext, 'jobs'> & { log: JobLog };
export type JobLog = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

interface JobSpec<N extends JobName> {
  /** `singleton`: at most one queued and one running at a time, whichever process runs workers. */
  policy: PgBoss.QueuePolicy;
  /** Runs on this schedule (cron, UTC) in addition to whatever sends it. */
  cron?: string;
  retryLimit: number;
  handler: (context: JobContext, payload: JobPayloads[N]) => Promise<void>;
}

/** The typed job map: one entry per job name, one handler file each. */
const JOBS: { [N in JobName]: JobSpec<N> } = {
  'ingest-scan': {
    policy: 'standard',
    retryLimit: 3,
    handler: (context, payload) => processIngestScan(context, payload.scanId),
  },
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
    handler: runDailyMaintenance,
  },
};

const JOB_NAMES = Object.keys(JOBS) as JobName[];

export interface JobsOptions {
  /** Run workers in this process (the server does by default; `scanhub worker` always does). */
  work: boolean;
  /** How long a job may run before pg-boss considers its worker dead and lets another take it. */
  expireInSeconds: number;
  log: JobLog;
}

export interface Jobs {
  /** Sends a job; with a transaction it exists exactly when the transaction commits. */
  send<N extends JobName>(
    executor: Kysely<DB> | Transaction<DB>,
    name: N,
    payload: JobPayloads[N],
  ): Promise<void>;
  /** Asks this process's worker for `name` to look for work now instead of at its next poll. */
  wake(name: JobName): void;
  /** Resolves when no job of `name` is queued or running (tests, `scanhub worker --drain`). */
  drained(name: JobName): Promise<void>;
  /** Stops fetching, lets running jobs finish (up to the timeout), then closes. */
  stop(): Promise<void>;
}

/**
 * Starts pg-boss on scanhub's database (its tables live in their own schema), declares every queue
 * and schedule, and — when `work` — runs the workers. Scheduled jobs are singletons: any number of
 * processes may run workers and a maintenance task still runs once per slot.
 */
export async function startJobs(context: Omit<AppContext, 'jobs'>, options: JobsOptions): Promise<Jobs> {
  const boss = new PgBoss({
    db: bossDatabase(context.database),
    schema: context.database.jobSchema,
    schedule: options.work,
    supervise: options.work,
    // Expired jobs (a worker that died) are retried by the supervisor: check often enough to matter.
    maintenanceIntervalSeconds: Math.max(1, Math.min(120, Math.floor(options.expireInSeconds / 4))),
    monitorStateIntervalSeconds: 300,
  });
  boss.on('error', (error) => options.log.error({ err: error }, 'job system error'));
  await boss.start();
  for (const name of JOB_NAMES) {
    const spec = JOBS[name];
    const queue = {
      name,
      policy: spec.policy,
      retryLimit: spec.retryLimit,
      retryBackoff: true,
      expireInSeconds: options.expireInSeconds,
    };
    await boss.createQueue(name, queue);
    await boss.updateQueue(name, queue);
    if (spec.cron && options.work) await boss.schedule(name, spec.cron, {}, { tz: 'UTC' });
  }

  const workerIds = new Map<JobName, string>();
  const jobContext: JobContext = { ...context, log: options.log };
  if (options.work) {
    for (const name of JOB_NAMES) {
      const handler = JOBS[name].handler as (context: JobContext, payload: unknown) => Promise<void>;
      const id = await boss.work(name, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
        if (job) await handler(jobContext, job.data);
      });
      workerIds.set(name, id);
    }
  }

  return {
    send: async (executor, name, payload) => {
      await boss.send(name, payload, { db: viaKysely(executor) });
    },
    wake: (name) => {
      const id = workerIds.get(name);
      if (id) boss.notifyWorker(id);
    },
    drained: async (name) => {
      while ((await boss.getQueueSize(name, { before: 'completed' })) > 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stop: () => boss.stop({ graceful: true, wait: true, timeout: 30_000 }),
  };
}
