import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { jobsSettled, startFinished, type BenchServer } from '../../bench/server.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Scenario 2 waits on this before its upload into a second application: a wait that returned while
// PGlite's vacuum still ran would put the vacuum's time back into that upload's. Read from a real
// app's /metrics, so a change to the `scanhub_jobs` gauge's names or labels fails here.
let t: TestApp;
let server: BenchServer;

beforeAll(async () => {
  t = await createTestApp({}, { deferWorkers: true });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  server = { url: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` } as BenchServer;
});
afterAll(() => t.close());

it("waits while a job of the queue is queued, not for other queues' jobs, and returns once it has run", async () => {
  // No worker runs yet: whatever is sent stays queued.
  await t.jobs.send(t.db, 'maintenance-daily', {});
  await jobsSettled(server, 'vacuum-after-ingest', 1000);
  await t.jobs.send(t.db, 'vacuum-after-ingest', {});
  await expect(jobsSettled(server, 'vacuum-after-ingest', 1000)).rejects.toThrow(/still pending/);
  await t.jobs.startWorkers();
  await jobsSettled(server, 'vacuum-after-ingest', 30_000);
  const metrics = await t.app.inject({ url: '/metrics' });
  expect(metrics.body).not.toMatch(
    /^scanhub_jobs\{name="vacuum-after-ingest",state="(created|retry|active)"\} [1-9]/m,
  );
});

// Every scenario measures a server that has finished starting (bench/README.md): the bench waits for
// /readyz, which answers 503 until the start's last step (the job workers) is done.
it('waits until the server has finished starting, and gives up after its timeout', async () => {
  t.startup.complete = false;
  try {
    await expect(startFinished(server, 300)).rejects.toThrow(/readyz/);
    let finished = false;
    const waiting = startFinished(server, 30_000).then(() => {
      finished = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(finished).toBe(false);
    t.startup.complete = true;
    await waiting;
    expect(finished).toBe(true);
  } finally {
    t.startup.complete = true;
  }
});
