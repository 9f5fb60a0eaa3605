import { cpuUsage } from 'node:process';
import { expect, it } from 'vitest';
import pg from 'pg';
import { cpuMs, localPostgresCpuMs } from '../../bench/server.ts';

// Scenario 12's idle row divides /proc's CPU count by the window: fields read from the wrong
// columns of /proc/<pid>/stat (its command name may hold spaces) or in the wrong unit would make
// it a number about something else.
it('counts the CPU time a process used, as the process itself sees it', () => {
  const fromProc = cpuMs(process.pid);
  const start = cpuUsage();
  // Burn 300 ms of CPU time, not of wall time: however loaded the machine, both sides see it.
  let spent = 0;
  while (spent < 300_000) {
    const now = cpuUsage(start);
    spent = now.user + now.system;
  }
  const used = cpuMs(process.pid) - fromProc;
  // /proc counts in 10 ms ticks, and other threads of this process add a little.
  expect(used).toBeGreaterThanOrEqual(280);
  expect(used).toBeLessThan(600);
});

// Scenario 1 reports the CPU a first upload cost PostgreSQL from every local `postgres` process:
// read from the wrong processes or fields, it would report the server's or nobody's work.
it.skipIf(!process.env.TEST_DATABASE_URL)(
  'counts the CPU a local PostgreSQL server spends on a statement',
  async () => {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      const before = localPostgresCpuMs();
      const started = performance.now();
      // One backend busy for a while: ~1 s of CPU on this machine, at least 0.25 s on any.
      await client.query('select count(*) from generate_series(1, 10000000)');
      const wallMs = performance.now() - started;
      const after = localPostgresCpuMs();
      expect(before).toBeTypeOf('number');
      expect(after).toBeTypeOf('number');
      const spent = (after ?? 0) - (before ?? 0);
      expect(spent).toBeGreaterThanOrEqual(250);
      // Two cores at most, plus what PostgreSQL's background processes did meanwhile.
      expect(spent).toBeLessThanOrEqual(2 * wallMs + 200);
    } finally {
      await client.end();
    }
  },
);
