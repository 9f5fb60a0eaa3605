import { sql, type Kysely } from 'kysely';
import { JOBS_CHANNEL } from '../db/change-notices.ts';
import type { DB } from '../db/schema.ts';

/**
 * The SQL of worker liveness (liveness.ts): processes that run workers, the job runs each holds, and
 * the release of what a dead one held. Job rows are pg-boss's (`<jobSchema>.job`, partitioned by
 * queue name); a run of a job is told from a later run of the same job by its `started_on`, which
 * pg-boss sets at every fetch.
 */

export interface ProcessIdentity {
  id: string;
  host: string;
  pid: number;
}

export async function registerProcess(db: Kysely<DB>, process: ProcessIdentity): Promise<void> {
  await db
    .insertInto('worker_processes')
    .values({ id: process.id, host: process.host, pid: process.pid, heartbeat_at: sql<Date>`now()` })
    .onConflict((conflict) => conflict.column('id').doUpdateSet({ heartbeat_at: sql<Date>`now()` }))
    .execute();
}

/** Renews the heartbeat; false when the row is gone (another process took this one for dead). */
export async function renewHeartbeat(db: Kysely<DB>, processId: string): Promise<boolean> {
  const result = await db
    .updateTable('worker_processes')
    .set({ heartbeat_at: sql<Date>`now()` })
    .where('id', '=', processId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Forgets this process's holds on runs that ended (completed, failed, or fetched again elsewhere). */
export async function forgetEndedHolds(db: Kysely<DB>, jobSchema: string, processId: string): Promise<void> {
  await sql`delete from job_holds h where h.process_id = ${processId}
    and not exists (select 1 from ${sql.table(`${jobSchema}.job`)} j
      where j.name = h.queue and j.id = h.job_id and j.state = 'active' and j.started_on = h.job_started_on)`.execute(
    db,
  );
}

/**
 * pg-boss's fetch (`fetchNextJob`), rewritten so that the statement that makes jobs active also
 * records this process as their holder: there is no moment at which a job runs unheld, so a process
 * killed at any point leaves nothing a live one cannot find. pg-boss sets `started_on = now()`, the
 * statement's transaction time, which the hold copies. Undefined when `text` is not that statement
 * (its shape is pg-boss 10's; liveness.test.ts fails should another version change it).
 */
export function holdingFetch(text: string, processId: string): string | undefined {
  if (!FETCH_SHAPE.test(text)) return undefined;
  if (!UUID.test(processId)) throw new Error('a process id is a uuid');
  // job_holds is found on the search path, as every scanhub table is (pg-boss names its own schema).
  return `WITH fetched AS (${text}),
    held AS (
      INSERT INTO job_holds (job_id, queue, process_id, job_started_on)
      SELECT id, name, '${processId}'::uuid, now() FROM fetched
      ON CONFLICT (job_id) DO UPDATE SET queue = excluded.queue, process_id = excluded.process_id,
        job_started_on = excluded.job_started_on, held_at = now()
    )
    SELECT * FROM fetched`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** pg-boss 10's fetch: a CTE that picks jobs, then the update that makes them active. */
const FETCH_SHAPE =
  /^\s*WITH next as \([\s\S]*\bUPDATE \S+\.job j SET\s+state = 'active',[\s\S]*\bRETURNING j\./;

export interface ReleasedJob {
  id: string;
  name: string;
  /** `retry`: fetched again at once; `failed`: its retries were used up. */
  state: 'retry' | 'failed';
  process_id: string;
  scan_id: number | null;
}

/**
 * Releases, in one statement, every run held by a process that is dead: whose heartbeat is older
 * than `deadAfterSeconds`, or — `otherProcessesDead`, on PGlite, where the data dir lock makes this
 * the only process — any other process (not another job runtime of this one, as in the tests: same
 * host and pid); and, with `releaseSelf`, this one (a clean shutdown).
 * The dead processes' rows are deleted by the same statement: when several processes notice one
 * death together, the first deletes the row and the others' deletes find nothing, so each run is
 * released exactly once. A run goes back to pg-boss's `retry` state, to be fetched at once, unless
 * its retries are used up (as pg-boss's own expiry does); the scan of a released upload goes back to
 * `pending`, or to `failed`. Every worker hears of the retried queues (JOBS_CHANNEL).
 */
export async function releaseDeadHolds(
  db: Kysely<DB>,
  options: {
    jobSchema: string;
    self: ProcessIdentity;
    deadAfterSeconds: number;
    otherProcessesDead: boolean;
    releaseSelf: boolean;
  },
): Promise<ReleasedJob[]> {
  const { self } = options;
  const job = sql.table(`${options.jobSchema}.job`);
  const jobState = sql.raw(`${sql.id(options.jobSchema).compile(db).sql}.job_state`);
  const { rows } = await sql<ReleasedJob>`
    with dead as (
      delete from worker_processes p
      where (p.id = ${self.id} and ${options.releaseSelf})
        or (p.id <> ${self.id} and (
          (${options.otherProcessesDead} and (p.host <> ${self.host} or p.pid <> ${self.pid}))
          or p.heartbeat_at < now() - make_interval(secs => ${options.deadAfterSeconds})))
      returning p.id
    ), holds as (
      delete from job_holds h using dead where h.process_id = dead.id
      returning h.job_id, h.queue, h.job_started_on, h.process_id
    ), released as (
      update ${job} j set
        state = (case when j.retry_count < j.retry_limit and not exists (
            -- a stately queue holds one job in retry at most: a second goes to failed, as in pg-boss
            select 1 from ${job} queued where j.policy = 'stately' and queued.name = j.name
              and queued.state = 'retry' and queued.policy = 'stately'
              and coalesce(queued.singleton_key, '') = coalesce(j.singleton_key, ''))
          then 'retry' else 'failed' end)::${jobState},
        start_after = case when j.retry_count < j.retry_limit then now() else j.start_after end,
        completed_on = case when j.retry_count < j.retry_limit then null else now() end,
        output = jsonb_build_object('message', 'released: process ' || holds.process_id || ' stopped')
      from holds
      where j.name = holds.queue and j.id = holds.job_id and j.state = 'active'
        and j.started_on = holds.job_started_on
      returning j.id::text as id, j.name, j.state::text as state, holds.process_id::text as process_id,
        case when j.name = 'ingest-scan' then (j.data->>'scanId')::bigint end as scan_id
    ), scans_released as (
      update scans s set
        status = case when released.state = 'retry' then 'pending' else 'failed' end,
        error = case when released.state = 'retry' then s.error
          else 'The process ingesting this upload stopped, and its retries are used up' end,
        updated_at = now()
      from released where s.id = released.scan_id and s.status = 'processing'
    ), announced as (
      select pg_notify(${JOBS_CHANNEL}, current_schema() || ' ' || name)
      from (select distinct name from released where state = 'retry') queues
    )
    select released.*, (select count(*) from announced) as announced from released`.execute(db);
  return rows.map(({ id, name, state, process_id, scan_id }) => ({
    id,
    name,
    state,
    process_id,
    scan_id: scan_id === null ? null : Number(scan_id),
  }));
}

export interface WorkerProcessView {
  id: string;
  host: string;
  pid: number;
  started_at: Date;
  heartbeat_at: Date;
  alive: boolean;
  jobs: { id: string; queue: string; started_at: Date; scan_id: number | null }[];
}

/** Every registered process and the runs it holds now (runs that ended are left out). */
export async function listWorkerProcesses(
  db: Kysely<DB>,
  jobSchema: string,
  deadAfterSeconds: number,
): Promise<WorkerProcessView[]> {
  const { rows } = await sql<{
    id: string;
    host: string;
    pid: number;
    started_at: Date;
    heartbeat_at: Date;
    alive: boolean;
    jobs: { id: string; queue: string; started_at: string; scan_id: number | null }[];
  }>`select p.id::text as id, p.host, p.pid, p.started_at, p.heartbeat_at,
      p.heartbeat_at >= now() - make_interval(secs => ${deadAfterSeconds}) as alive,
      coalesce((select jsonb_agg(jsonb_build_object('id', j.id, 'queue', j.name, 'started_at', j.started_on,
          'scan_id', case when j.name = 'ingest-scan' then (j.data->>'scanId')::bigint end) order by j.started_on)
        from job_holds h join ${sql.table(`${jobSchema}.job`)} j
          on j.name = h.queue and j.id = h.job_id and j.state = 'active' and j.started_on = h.job_started_on
        where h.process_id = p.id), '[]'::jsonb) as jobs
    from worker_processes p order by p.started_at, p.id`.execute(db);
  return rows.map((row) => ({
    ...row,
    jobs: row.jobs.map((held) => ({ ...held, started_at: new Date(held.started_at) })),
  }));
}
