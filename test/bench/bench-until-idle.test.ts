import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, expect, it } from 'vitest';
import { untilIdle } from '../../bench/server.ts';

// Scenario 1 measures the ingest limit once the server is quiet (bench/README.md): a wait that
// returned while the server still worked would put that work back into the limit's time.

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** A child that burns CPU for `busyMs` of wall time (forever when null), then idles; resolves once it burns. */
async function childBusyFor(busyMs: number | null): Promise<ChildProcess> {
  const script = `process.stdout.write('burning\\n');
    const end = ${busyMs === null ? 'Infinity' : `Date.now() + ${busyMs}`};
    while (Date.now() < end) {}
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await once(child.stdout!, 'data');
  return child;
}

const nothingElse = () => Promise.resolve([]);

it('waits while the process burns CPU and returns once a window finds it idle', async () => {
  const child = await childBusyFor(1500);
  const started = performance.now();
  const idle = await untilIdle(child.pid!, nothingElse, 30_000);
  expect(idle.busy).toEqual(['server CPU']);
  expect(performance.now() - started).toBeGreaterThanOrEqual(1200);
});

it('returns after one window for an idle process, having waited for nothing', async () => {
  const child = await childBusyFor(0);
  await new Promise((resolve) => setTimeout(resolve, 200)); // past its start
  const idle = await untilIdle(child.pid!, nothingElse, 30_000);
  expect(idle.busy).toEqual([]);
});

it('waits while anything else is named busy, and says what', async () => {
  const child = await childBusyFor(0);
  let asked = 0;
  const autovacuumTwice = () => Promise.resolve(++asked <= 2 ? ['autovacuum'] : []);
  const idle = await untilIdle(child.pid!, autovacuumTwice, 30_000);
  expect(idle.busy).toEqual(['autovacuum']);
  expect(asked).toBe(3);
});

it('gives up after its timeout on a process that never idles', async () => {
  const child = await childBusyFor(null);
  const started = performance.now();
  const idle = await untilIdle(child.pid!, nothingElse, 1200);
  expect(idle.busy).toEqual(['server CPU']);
  // The window under way when the time is up still ends: at most one more.
  expect(performance.now() - started).toBeLessThan(1200 + 2 * idle.windowMs);
});
