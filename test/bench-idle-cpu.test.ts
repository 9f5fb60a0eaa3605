import { cpuUsage } from 'node:process';
import { expect, it } from 'vitest';
import { cpuMs } from '../bench/server.ts';

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
