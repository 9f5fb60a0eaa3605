import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueHasSettings, startJobs } from '../../src/jobs/jobs.ts';
import { jobMap } from '../../src/wiring.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * A start declares every queue, but writes only what changed: rewriting all of them was a quarter
 * of a second of each PGlite start.
 */
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const silent = { info: () => {}, warn: () => {}, error: () => {} };

async function storedQueues(): Promise<Map<string, { expireSeconds: number; updatedOn: string }>> {
  const { rows } = await sql<{ name: string; expire_seconds: number; updated_on: Date }>`
    select name, expire_seconds, updated_on from ${sql.table(`${t.database.jobSchema}.queue`)}`.execute(t.db);
  return new Map(
    rows.map((row) => [
      row.name,
      { expireSeconds: row.expire_seconds, updatedOn: new Date(row.updated_on).toISOString() },
    ]),
  );
}

async function startAndStop(expireInSeconds: number): Promise<void> {
  const jobs = await startJobs(t, jobMap(t.config), { work: false, expireInSeconds, log: silent });
  await jobs.stop();
}

describe('queues at start', () => {
  it('leaves queues whose settings are unchanged untouched, and stores a changed setting', async () => {
    const before = await storedQueues();
    expect(before.get('ingest-scan')?.expireSeconds).toBe(t.config.jobs.timeoutSeconds);

    await startAndStop(t.config.jobs.timeoutSeconds);
    expect(await storedQueues()).toEqual(before);

    await startAndStop(t.config.jobs.timeoutSeconds + 60);
    const after = await storedQueues();
    expect(after.get('ingest-scan')?.expireSeconds).toBe(t.config.jobs.timeoutSeconds + 60);
    expect(after.get('ingest-scan')?.updatedOn).not.toBe(before.get('ingest-scan')?.updatedOn);
  });

  it('compares only the settings it is given', () => {
    const stored = { name: 'q', policy: 'standard' as const, retryLimit: 3, retryDelay: 10 };
    expect(queueHasSettings(stored, { name: 'q', policy: 'standard', retryLimit: 3 })).toBe(true);
    expect(queueHasSettings(stored, { name: 'q', retryLimit: 4 })).toBe(false);
    expect(queueHasSettings(stored, { name: 'q', policy: 'stately' })).toBe(false);
  });
});

describe('the clock', () => {
  it('turns a due cron schedule into a job once the workers start', async () => {
    const cronJobs = async () => {
      const { rows } = await sql<{ jobs: number }>`
        select count(*)::integer as jobs from ${sql.table(`${t.database.jobSchema}.job`)}
        where name = 'dispatch-outbox'`.execute(t.db);
      return rows[0]?.jobs ?? 0;
    };
    expect(await cronJobs()).toBe(0);
    // dispatch-outbox is scheduled every minute, so a schedule is due whenever the clock starts; no
    // event is waiting, so only the clock sends one.
    const jobs = await startJobs(t, jobMap(t.config), { work: true, expireInSeconds: 60, log: silent });
    try {
      await expect.poll(cronJobs, { timeout: 20_000, interval: 250 }).toBeGreaterThan(0);
    } finally {
      await jobs.stop();
    }
  }, 30_000);

  it('keeps every cron schedule, and none with `clock: false` (the test apps)', async () => {
    const schedules = async (app: TestApp) => {
      const { rows } = await sql<{ name: string }>`
        select name from ${sql.table(`${app.database.jobSchema}.schedule`)} order by name`.execute(app.db);
      return rows.map((row) => row.name);
    };
    const clocked = await createTestApp({}, { clock: true });
    const clockless = await createTestApp();
    try {
      expect(await schedules(clocked)).toEqual([
        'acceptance-expiry',
        'audit-retention',
        'dispatch-outbox',
        'enrichment-fetch',
        'forward-audit',
        'maintenance-daily',
        'maintenance-hourly',
        'posture-snapshot',
        'sla-breaches',
        'tracker-reconcile',
      ]);
      expect(await schedules(clockless)).toEqual([]);
    } finally {
      await clocked.close();
      await clockless.close();
    }
  });
});
