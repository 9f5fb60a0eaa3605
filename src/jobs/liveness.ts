import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import { asBackgroundWork } from '../db/pglite-dialect.ts';
import type { DB } from '../db/schema.ts';
import {
  forgetEndedHolds,
  holdingFetch,
  registerProcess,
  releaseDeadHolds,
  renewHeartbeat,
  type ReleasedJob,
} from './liveness.repository.ts';
import type { JobLog } from './job-map.ts';

/**
 * The counter liveness reports released jobs on (observability/metrics.ts has it), by shape: the
 * metrics room reads the workers' rows from this room, so this room names none of its types.
 */
export interface LivenessMetrics {
  jobsReleased: { inc(labels: { reason: string }, value: number): void };
}

/**
 * Liveness of the processes that run job workers. A process registers itself and renews its
 * heartbeat every quarter of `deadAfterSeconds`; every job pg-boss fetches for it is held under its
 * id by the fetch statement itself (`holdingFetch`). At each heartbeat it also releases, for retry,
 * the jobs of any process whose heartbeat is older than `deadAfterSeconds` — a process killed with
 * SIGKILL, lost with its machine, or frozen. `JOB_TIMEOUT_SECONDS` (pg-boss's expiry) remains the
 * bound for a job whose process is alive but stuck in it.
 */
export interface Liveness {
  readonly processId: string;
  /** pg-boss's SQL as this process's boss runs it: its fetch also records the hold. */
  rewrite(text: string): string;
  /** Registers this process, releases what dead ones held, and starts the heartbeat. */
  start(): Promise<void>;
  /** Stops the heartbeat, releases what this process still holds, and deregisters it. */
  stop(): Promise<void>;
}

export interface LivenessOptions {
  db: Kysely<DB>;
  jobSchema: string;
  deadAfterSeconds: number;
  /** PGlite: the data dir lock makes this the only process, so every other registered one is dead. */
  onlyProcess: boolean;
  metrics: LivenessMetrics;
  log: JobLog;
  /** Wakes this process's workers for the queues whose jobs were released. */
  onReleased(queues: string[]): void;
}

export function createLiveness(options: LivenessOptions): Liveness {
  const processId = randomUUID();
  const { db, jobSchema, log } = options;
  const self = { id: processId, host: hostname(), pid: process.pid };
  const heartbeatMs = Math.max(500, (options.deadAfterSeconds * 1000) / 4);
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let beating: Promise<void> = Promise.resolve();
  let warnedUnknownFetch = false;

  const reportReleased = (released: ReleasedJob[], reason: 'dead_process' | 'shutdown') => {
    if (released.length === 0) return;
    options.metrics.jobsReleased.inc({ reason }, released.length);
    log.warn(
      {
        jobs: released.map(({ id, name, state, process_id, scan_id }) => ({
          id,
          name,
          state,
          process: process_id,
          ...(scan_id !== null ? { scan: scan_id } : {}),
        })),
      },
      reason === 'dead_process'
        ? 'released the jobs of a process that stopped heartbeating'
        : 'released the jobs this process could not finish',
    );
    options.onReleased([...new Set(released.filter((job) => job.state === 'retry').map((job) => job.name))]);
  };

  const release = async (releaseSelf: boolean) =>
    releaseDeadHolds(db, {
      jobSchema,
      self,
      deadAfterSeconds: options.deadAfterSeconds,
      otherProcessesDead: options.onlyProcess,
      releaseSelf,
    });

  const beat = async () => {
    try {
      if (!(await renewHeartbeat(db, processId))) {
        // Taken for dead (frozen longer than the threshold): what it ran was released and may run
        // elsewhere now. It registers again so that what it fetches from now on is held.
        log.error({ process: processId }, 'this process was taken for dead; registering again');
        await registerProcess(db, self);
      }
      reportReleased(await release(false), 'dead_process');
      await forgetEndedHolds(db, jobSchema, processId);
    } catch (error) {
      if (running) log.warn({ err: error }, 'worker heartbeat failed');
    }
  };

  const schedule = () => {
    if (!running) return;
    timer = setTimeout(() => {
      beating = asBackgroundWork(beat).finally(schedule);
    }, heartbeatMs).unref();
  };

  return {
    processId,
    rewrite: (text) => {
      const held = holdingFetch(text, processId);
      if (held) return held;
      if (!warnedUnknownFetch && /\bSET\s+state = 'active'/.test(text)) {
        warnedUnknownFetch = true;
        log.error('pg-boss fetched jobs with a statement liveness does not know: they are not held');
      }
      return text;
    },
    start: async () => {
      await registerProcess(db, self);
      running = true;
      reportReleased(await release(false), 'dead_process');
      schedule();
    },
    stop: async () => {
      if (!running) return;
      running = false;
      clearTimeout(timer);
      await beating;
      reportReleased(await release(true), 'shutdown');
    },
  };
}
