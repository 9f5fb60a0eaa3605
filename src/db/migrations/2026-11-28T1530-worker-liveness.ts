import { sql, type Kysely } from 'kysely';

/**
 * Liveness of the processes that run job workers (src/jobs/liveness.ts). Each registers a row and
 * renews `heartbeat_at` every few seconds; each job it starts is held in `job_holds` under its id,
 * with the `started_on` pg-boss gave that run, so that a hold names exactly one run of a job. A
 * process whose heartbeat is older than `WORKER_DEAD_AFTER_SECONDS` is dead: any live one deletes
 * its row and releases the jobs it held for retry, in one statement.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table worker_processes (
    id uuid primary key,
    host text not null,
    pid integer not null,
    started_at timestamptz not null default now(),
    heartbeat_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index worker_processes_heartbeat on worker_processes (heartbeat_at)`.execute(db);
  await sql`create table job_holds (
    job_id uuid primary key,
    queue text not null,
    process_id uuid not null,
    job_started_on timestamptz not null,
    held_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index job_holds_process on job_holds (process_id)`.execute(db);
}
