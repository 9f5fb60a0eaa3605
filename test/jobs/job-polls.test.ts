import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { queuesWithWork } from '../../src/jobs/jobs.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { eventually } from '../support/webhook-receiver.ts';

/**
 * What no notice announced (a retry whose delay passed, a cron job, a job written while a listening
 * connection was down) is found by one look at every queue each JOB_POLL_SECONDS, which wakes the
 * workers concerned; each queue's own poll is a minute apart (jobs.ts).
 */

/** Writes a job as pg-boss does, without the notice `jobs.send` adds; `startIn` seconds from now. */
async function writeJob(t: TestApp, name: string, startIn = 0): Promise<string> {
  const { rows } = await sql<{ id: string }>`
    insert into ${sql.table(`${t.database.jobSchema}.job`)} (name, data, start_after)
    values (${name}, '{}'::jsonb, now() + make_interval(secs => ${startIn}))
    returning id`.execute(t.db);
  return rows[0]!.id;
}

async function stateOf(t: TestApp, id: string): Promise<string | undefined> {
  const { rows } = await sql<{ state: string }>`
    select state from ${sql.table(`${t.database.jobSchema}.job`)} where id = ${id}`.execute(t.db);
  return rows[0]?.state;
}

describe('the one look at every queue', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, { deferWorkers: true }); // nothing fetches: what is written stays
  });
  afterAll(() => t.close());

  it('names the queues with a job to fetch now: not one waiting for its start, not one running', async () => {
    await writeJob(t, 'maintenance-daily');
    await writeJob(t, 'tracker-reconcile', 3600);
    const running = await writeJob(t, 'vacuum-after-ingest');
    await sql`update ${sql.table(`${t.database.jobSchema}.job`)} set state = 'active'
      where id = ${running}`.execute(t.db);
    expect(await queuesWithWork(t.db, t.database.jobSchema)).toEqual(['maintenance-daily']);
  });
});

describe('with the look every second and each queue polling a minute apart', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ jobs: { ...loadConfig({}).jobs, pollSeconds: 1 } });
    // Each worker fetches once as it starts: past that, only a wake or its own poll fetches.
    await new Promise((resolve) => setTimeout(resolve, 2000));
  });
  afterAll(() => t.close());

  it('a job written without a notice runs within seconds', async () => {
    const id = await writeJob(t, 'maintenance-daily');
    expect(
      await eventually(async () => ((await stateOf(t, id)) === 'completed' ? true : undefined), 15_000),
    ).toBe(true);
  });

  it('a job waiting for its start (a retry after its delay) runs once that start has passed', async () => {
    const id = await writeJob(t, 'tracker-reconcile', 2);
    expect(await stateOf(t, id)).toBe('created');
    expect(
      await eventually(async () => ((await stateOf(t, id)) === 'completed' ? true : undefined), 15_000),
    ).toBe(true);
  });
});
