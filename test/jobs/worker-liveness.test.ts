import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobs } from '../../src/jobs/jobs.ts';
import { jobMap } from '../../src/wiring.ts';
import { holdingFetch, releaseDeadHolds } from '../../src/jobs/liveness.repository.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif, manyResults } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * Liveness: the statement that makes a job active also records the process holding it, and the
 * jobs of a process whose heartbeat is too old go back for retry — once, however many processes
 * look — with their scan back to `pending`. The PostgreSQL pass runs the two releases truly at once
 * (two pool connections); crash-recovery-live.test.ts kills a real process.
 */

// pg-boss's own fetch statement, as its workers run it: the rewrite must recognise exactly that.
const plans = createRequire(import.meta.url)('pg-boss/src/plans.js') as {
  fetchNextJob(schema: string): (options: { includeMetadata?: boolean }) => string;
};

let t: TestApp;
let admin: TestUser;
const DEAD_AFTER = 5;

beforeAll(async () => {
  const base = await import('../../src/config.ts').then(({ loadConfig }) =>
    loadConfig({ LOG_LEVEL: 'silent' }),
  );
  t = await createTestApp({ jobs: { ...base.jobs, deadAfterSeconds: DEAD_AFTER } }, { deferWorkers: true });
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const silent = { info: () => {}, warn: () => {}, error: () => {} };
const jobTable = () => sql.table(`${t.database.jobSchema}.job`);

async function asyncUpload(results: number): Promise<number> {
  const application = await makeApplication(t, admin);
  const response = await upload(
    t,
    '/api/ingest?async=true',
    { 'x-api-token': application.api_token },
    { file: buildSarif({ results: manyResults(results) }) },
  );
  expect(response.statusCode).toBe(202);
  return (response.json() as { scan: { id: number } }).scan.id;
}

/** Fetches the queued ingest job as a process `processId` would, through the rewritten fetch. */
async function fetchAs(processId: string): Promise<string> {
  const rewritten = holdingFetch(
    plans.fetchNextJob(t.database.jobSchema)({ includeMetadata: true }),
    processId,
  );
  expect(rewritten, "pg-boss's fetch statement is no longer recognised").toBeDefined();
  const { rows } = await sql<{ id: string }>`${sql.raw(
    rewritten!.replaceAll('$1', "'ingest-scan'").replaceAll('$2', '1'),
  )}`.execute(t.db);
  expect(rows).toHaveLength(1);
  return rows[0]!.id;
}

const releaseOptions = () => ({
  jobSchema: t.database.jobSchema,
  deadAfterSeconds: DEAD_AFTER,
  otherProcessesDead: false,
  releaseSelf: false,
});

async function registerFake(heartbeatAgoMs: number): Promise<string> {
  const id = randomUUID();
  await t.db
    .insertInto('worker_processes')
    .values({ id, host: 'elsewhere', pid: 1, heartbeat_at: new Date(Date.now() - heartbeatAgoMs) })
    .execute();
  return id;
}

const scanOf = (scanId: number) =>
  t.db
    .selectFrom('scans')
    .select(['status', 'findings_count'])
    .where('id', '=', scanId)
    .executeTakeFirstOrThrow();

describe('worker liveness', () => {
  it("releases a dead process's job once, leaves a live one's, and the upload completes once", async () => {
    // The workers of this app wait (deferWorkers): the fake processes fetch the jobs.
    const deadScan = await asyncUpload(300);
    const dead = await registerFake(60_000);
    const deadJob = await fetchAs(dead);
    await t.db.updateTable('scans').set({ status: 'processing' }).where('id', '=', deadScan).execute();
    const liveScan = await asyncUpload(5);
    const live = await registerFake(0);
    const liveJob = await fetchAs(live);

    const held = await t.db.selectFrom('job_holds').select(['job_id', 'process_id', 'queue']).execute();
    expect(held).toEqual(
      expect.arrayContaining([
        { job_id: deadJob, process_id: dead, queue: 'ingest-scan' },
        { job_id: liveJob, process_id: live, queue: 'ingest-scan' },
      ]),
    );
    const listed = await t.app.inject({ url: '/api/admin/workers', headers: admin.headers });
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual([
      expect.objectContaining({
        id: dead,
        alive: false,
        jobs: [expect.objectContaining({ id: deadJob, queue: 'ingest-scan', scan_id: deadScan })],
      }),
      expect.objectContaining({ id: live, alive: true, jobs: [expect.objectContaining({ id: liveJob })] }),
    ]);
    const metrics = await t.app.inject({ url: '/metrics' });
    expect(metrics.body).toContain(`scanhub_worker_jobs_held{process="${dead}",queue="ingest-scan"} 1`);

    // Several live processes notice together: one release, of the dead process's job only.
    const releases = await Promise.all(
      [randomUUID(), randomUUID(), randomUUID()].map((selfId) =>
        releaseDeadHolds(t.db, { ...releaseOptions(), self: { id: selfId, host: 'observer', pid: 3 } }),
      ),
    );
    expect(releases.flat()).toEqual([
      { id: deadJob, name: 'ingest-scan', state: 'retry', process_id: dead, scan_id: deadScan },
    ]);
    const { rows } = await sql<{ id: string; state: string; due: boolean }>`
      select id::text as id, state::text as state, start_after <= now() as due from ${jobTable()}
      where id in (${deadJob}, ${liveJob}) order by state`.execute(t.db);
    expect(rows).toEqual([
      { id: liveJob, state: 'active', due: true },
      { id: deadJob, state: 'retry', due: true },
    ]);
    expect((await scanOf(deadScan)).status).toBe('pending');
    const registered = await t.db.selectFrom('worker_processes').select('id').execute();
    expect(registered).toEqual([{ id: live }]);

    await t.jobs.startWorkers();
    // The live process "dies" too: its job is released at the next look.
    await t.db
      .updateTable('worker_processes')
      .set({ heartbeat_at: new Date(0) })
      .where('id', '=', live)
      .execute();
    await t.jobs.drained('ingest-scan');
    expect(await scanOf(deadScan)).toEqual({ status: 'completed', findings_count: 300 });
    expect(await scanOf(liveScan)).toEqual({ status: 'completed', findings_count: 5 });
    const completed = await t.db
      .selectFrom('events')
      .select('scan_id')
      .where('type', '=', 'scan.completed')
      .orderBy('scan_id')
      .execute();
    expect(completed).toEqual([{ scan_id: deadScan }, { scan_id: liveScan }]);
  }, 60_000);

  it('registers a process that runs workers, shows it, and deregisters it at its stop', async () => {
    const processes = async () =>
      (await t.app.inject({ url: '/api/admin/workers', headers: admin.headers })).json() as {
        id: string;
        pid: number;
        alive: boolean;
      }[];
    const before = await processes();
    expect(before).toEqual([expect.objectContaining({ pid: process.pid, alive: true })]);
    const other = await startJobs(t, jobMap(t.config), {
      work: true,
      clock: false,
      expireInSeconds: 60,
      log: silent,
    });
    const during = await processes();
    expect(during).toHaveLength(2);
    expect(during.every((worker) => worker.alive && worker.pid === process.pid)).toBe(true);
    await other.stop();
    expect(await processes()).toEqual([expect.objectContaining({ id: before[0]!.id })]);

    const member = await makeUser(t);
    const refused = await t.app.inject({ url: '/api/admin/workers', headers: member.headers });
    expect(refused.statusCode).toBe(403);
  });
});
