import { sql, type Kysely, type Transaction } from 'kysely';
import PgBoss from 'pg-boss';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import { JOBS_CHANNEL } from '../db/change-notices.ts';
import { asBackgroundWork } from '../db/pglite-dialect.ts';
import { bossDatabase, viaKysely } from './boss-database.ts';
import type { JobLog, JobName, Jobs, JobSpec, JobSpecs } from './job-map.ts';
import { createLiveness, type LivenessMetrics } from './liveness.ts';
import { loggedJob } from './job-log.ts';

export type { JobLog };

/** What the runtime itself reads of the application context. */
export interface JobRuntimeContext {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  /** Worker liveness reports there (liveness.ts). */
  metrics: LivenessMetrics;
}

/** What a handler gets: the context the runtime was started with, the job sender and a log. */
export type HandlerContext<C> = C & { jobs: Jobs; log: JobLog };

/** Every job's spec: the application wires one map from what each module exports (src/wiring.ts). */
export type JobMap<C> = JobSpecs<JobName, HandlerContext<C>>;

/**
 * Tells every process's workers that `name` has work, at the commit that makes the job exist: a
 * worker in another process (a second server, `scanhub worker`) fetches it then, instead of at its
 * next poll. The payload names the queue after the schema (change-notices.ts).
 */
async function announceJobs(executor: Kysely<DB> | Transaction<DB>, name: JobName): Promise<void> {
  await sql`select pg_notify(${JOBS_CHANNEL}, current_schema() || ' ' || ${name})`.execute(executor);
}

export interface JobsOptions {
  /** Run workers in this process (the server does by default; `scanhub worker` always does). */
  work: boolean;
  /**
   * With `work`: leave the workers and schedules to `startWorkers()` (the server starts them after
   * it listens). Jobs sent before are kept in their queues, as when every worker is busy.
   */
  deferWorkers?: boolean;
  /**
   * With `work`: turn cron schedules into jobs (the default). Off only in tests whose fake APIs
   * count requests: a tracker reconciliation at a ten-minute mark would add its own.
   */
  clock?: boolean;
  /** How long a job may run before pg-boss considers its worker dead and lets another take it. */
  expireInSeconds: number;
  log: JobLog;
}

/**
 * Starts pg-boss on scanhub's database (its tables live in their own schema), declares every queue
 * and schedule, and — when `work` — runs the workers. Scheduled jobs are singletons: any number of
 * processes may run workers and a maintenance task still runs once per slot.
 */
export async function startJobs<C extends JobRuntimeContext>(
  context: C,
  jobs: JobMap<C>,
  options: JobsOptions,
): Promise<Jobs> {
  // Liveness: a process that runs workers holds what it fetches, and releases what dead ones held.
  const liveness = options.work
    ? createLiveness({
        db: context.db,
        jobSchema: context.database.jobSchema,
        deadAfterSeconds: context.config.jobs.deadAfterSeconds,
        onlyProcess: context.database.pglite !== undefined,
        metrics: context.metrics,
        log: options.log,
        onReleased: (queues) => {
          for (const name of queues) if (names.includes(name as JobName)) api.wake(name as JobName);
        },
      })
    : undefined;
  const bossDb = bossDatabase(context.database, liveness?.rewrite);
  const onError = (error: Error) => options.log.error({ err: error }, 'job system error');
  const connection = { db: bossDb, schema: context.database.jobSchema };
  const boss = new PgBoss({
    ...connection,
    // Cron schedules are kept by a second pg-boss, the clock, started with the workers (below).
    schedule: false,
    supervise: options.work,
    // Expired jobs (a worker that died) are retried by the supervisor: check often enough to matter.
    maintenanceIntervalSeconds: Math.max(1, Math.min(120, Math.floor(options.expireInSeconds / 4))),
    monitorStateIntervalSeconds: 300,
  });
  boss.on('error', onError);
  await boss.start();
  const names = Object.keys(jobs) as JobName[];
  // One read of the stored queues, then a statement only for a queue that is missing or whose
  // settings changed: creating and updating all of them at every start was ~16 statements, about
  // a quarter of a second of each start on PGlite, for queues the template already holds.
  const stored = new Map((await boss.getQueues()).map((queue) => [queue.name, queue]));
  for (const name of names) {
    const spec = jobs[name];
    const queue = {
      name,
      policy: spec.policy,
      retryLimit: spec.retryLimit,
      retryBackoff: true,
      ...(spec.retryDelay !== undefined ? { retryDelay: spec.retryDelay } : {}),
      expireInSeconds: options.expireInSeconds,
    };
    const current = stored.get(name);
    if (!current) await boss.createQueue(name, queue);
    else if (!queueHasSettings(current, queue)) await boss.updateQueue(name, queue);
  }

  const workerIds = new Map<JobName, string>();
  const listening: (() => void)[] = [];
  let watching = false;
  let stopped = false;
  let watcher: NodeJS.Timeout | undefined;
  let workersStarted: Promise<void> | undefined;
  // The clock: a pg-boss that only turns cron schedules into jobs. Its start (clock skew, a queue
  // of its own, the first use of PL/pgSQL, a first look at the schedules) took ~0.35 s of each PGlite
  // start; on a pg-boss of its own it starts with the workers, which the server starts after it listens.
  let clock: PgBoss | undefined;
  const api: Jobs = {
    send: async (executor, name, payload) => {
      await boss.send(name, payload, { db: viaKysely(executor) });
      await announceJobs(executor, name);
    },
    sendMany: async (executor, name, payloads) => {
      for (let start = 0; start < payloads.length; start += 5000) {
        const chunk = payloads.slice(start, start + 5000).map((data) => ({ name, data }));
        await boss.insert(chunk, { db: viaKysely(executor) });
      }
      if (payloads.length > 0) await announceJobs(executor, name);
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
    startWorkers: () => {
      if (!options.work || stopped) return Promise.resolve();
      workersStarted ??= runWorkers();
      return workersStarted;
    },
    stop: async () => {
      stopped = true;
      watching = false;
      clearTimeout(watcher);
      for (const stopListening of listening) stopListening();
      await workersStarted?.catch(() => {}); // a worker starting now would outlive the stop
      await clock?.stop({ graceful: true, wait: true, timeout: 30_000 });
      await boss.stop({ graceful: true, wait: true, timeout: 30_000 });
      // What pg-boss could not fail at its stop goes back for retry; the process deregisters.
      await liveness
        ?.stop()
        .catch((error: unknown) => options.log.warn({ err: error }, 'deregistering failed'));
      // The completions pg-boss started without awaiting them finish before the database closes;
      // anything it starts later is not run.
      await bossDb.close();
    },
  };

  const runWorkers = async () => {
    if (options.clock ?? true) {
      for (const name of names) {
        const spec = jobs[name];
        if (spec.cron) await boss.schedule(name, spec.cron, {}, { tz: 'UTC' });
      }
      clock = new PgBoss({ ...connection, migrate: false, schedule: true, supervise: false });
      clock.on('error', onError);
      await clock.start();
    }
    const jobContext: HandlerContext<C> = { ...context, jobs: api, log: options.log };
    await liveness?.start();
    for (const name of names) {
      const id = await startWorker(boss, name, jobs[name] as AnyJobSpec<C>, jobContext);
      workerIds.set(name, id);
    }
    // A watched table (the outbox) is written by whoever changed something; a worker process
    // notices the rows here and sends the (stately) job that drains it, so no writer has to
    // remember to. The table's notice (events-notices migration) starts a look at once; the timer
    // only finds what no notice announced.
    const watched = names.flatMap((name) => {
      const watch = jobs[name].watch;
      return watch ? [{ name, ...watch }] : [];
    });
    const watchIntervalMs = context.config.jobs.pollSeconds * 1000;
    let looking = false;
    let lookAgain = false;
    const watchTables = async () => {
      if (looking) {
        lookAgain = true;
        return;
      }
      looking = true;
      clearTimeout(watcher);
      try {
        do {
          lookAgain = false;
          for (const { name, pending } of watched) {
            if (await pending(context.db)) {
              await boss.send(name, {});
              api.wake(name);
            }
          }
        } while (lookAgain && watching);
      } catch (error) {
        if (watching) options.log.warn({ err: error }, 'watching for work failed');
      } finally {
        looking = false;
      }
      if (watching) watcher = setTimeout(() => void asBackgroundWork(lookForWork), watchIntervalMs).unref();
    };
    // Every interval: the queues with work no notice announced, then the watched tables (which re-arms).
    const lookForWork = async () => {
      try {
        for (const name of await queuesWithWork(context.db, connection.schema)) {
          if (names.includes(name as JobName)) api.wake(name as JobName);
        }
      } catch (error) {
        if (watching) options.log.warn({ err: error }, 'looking for queued jobs failed');
      }
      await watchTables();
    };
    watching = !stopped;
    if (!watching) return;
    const notices = context.database.changeNotices;
    listening.push(
      ...[...new Set(watched.map((watch) => watch.channel))].map((channel) =>
        notices.onChange(channel, () => {
          if (watching) void asBackgroundWork(watchTables);
        }),
      ),
      // A job sent by any process: its queue's worker here fetches now. A notice that may have been
      // missed wakes them all.
      notices.onChange(JOBS_CHANNEL, (queue) => {
        for (const name of names) if (queue === undefined || queue === name) api.wake(name);
      }),
    );
    // Rows written while no worker ran are looked for now.
    void asBackgroundWork(watchTables);
  };

  if (options.work && !options.deferWorkers) await api.startWorkers();
  return api;
}

/**
 * Whether a stored queue already has every setting `wanted` gives (pg-boss's update leaves the
 * settings it is not given as they are, so only those are compared).
 */
export function queueHasSettings(current: PgBoss.Queue, wanted: PgBoss.Queue): boolean {
  return (Object.keys(wanted) as (keyof PgBoss.Queue)[]).every(
    (key) => wanted[key] === undefined || current[key] === wanted[key],
  );
}

/** A spec whose payload type is erased: the runner hands each handler what its queue holds. */
type AnyJobSpec<C> = JobSpec<unknown, HandlerContext<C>>;

/**
 * Seconds between a queue worker's own polls. What no notice announced (a retry whose delay has
 * passed, a cron job, a job of a worker that died) is found every `config.jobs.pollSeconds` by one
 * look at every queue (`queuesWithWork`), which wakes the workers concerned; a worker's own poll is
 * only the fallback should that look fail. Eight queues polled every 2 s each were two thirds of an
 * idle PGlite server's CPU (15–23 of 24–32 ms/s).
 */
const fallbackPollSeconds = (pollSeconds: number) => Math.max(60, pollSeconds);

/**
 * The queues that have a job to fetch now, by pg-boss's own condition for fetching (queued or
 * waiting for a retry, its start time passed), in one statement. A queue that holds many finished
 * jobs is read through pg-boss's fetch index, which holds only the pending ones (100k completed
 * webhook deliveries and one pending: 0.04 ms on PostgreSQL).
 */
export async function queuesWithWork(db: Kysely<DB>, schema: string): Promise<string[]> {
  const ready = await sql<{ name: string }>`select distinct name from ${sql.id(schema, 'job')}
    where state < 'active' and start_after < now()`.execute(db);
  return ready.rows.map((row) => row.name);
}

/** Runs one queue's worker in this process; returns its id (to wake it). */
function startWorker<C extends JobRuntimeContext>(
  boss: PgBoss,
  name: JobName,
  spec: AnyJobSpec<C>,
  context: HandlerContext<C>,
): Promise<string> {
  const pollingIntervalSeconds = fallbackPollSeconds(context.config.jobs.pollSeconds);
  let workerId = '';
  if (!('batchHandler' in spec)) {
    const started = boss.work(name, { batchSize: 1, pollingIntervalSeconds }, async ([job]) => {
      if (!job) return;
      try {
        await loggedJob(context.log, { queue: name, job: job.id }, () =>
          asBackgroundWork(() => spec.handler(context, job.data)),
        );
      } finally {
        // Another may be waiting: the wakes that came while this one ran are one flag in pg-boss,
        // which fetches once for them all; each job after the first would wait for a poll.
        boss.notifyWorker(workerId);
      }
    });
    return started.then((id) => (workerId = id));
  }
  const started = boss.work(
    name,
    { batchSize: spec.batchSize, pollingIntervalSeconds, includeMetadata: true },
    async (batch) => {
      const failures = await loggedJob(context.log, { queue: name, jobs: batch.length }, () =>
        asBackgroundWork(() =>
          spec.batchHandler(
            context,
            batch.map((job) => ({
              id: job.id,
              data: job.data,
              retryCount: job.retryCount,
              retryLimit: job.retryLimit,
            })),
          ),
        ),
      );
      // Failed jobs leave the active state here, so the batch's completion passes them over.
      for (const failure of failures) await boss.fail(name, failure.id, { message: failure.error });
      // A full batch means more are waiting: fetch again at once instead of after the polling
      // interval (which would cap a queue at one batch per half second).
      if (batch.length === spec.batchSize) boss.notifyWorker(workerId);
    },
  );
  return started.then((id) => (workerId = id));
}
