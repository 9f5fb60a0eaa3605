import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { distIsFresh } from '../../bin/dist-freshness.js';
import { TEMPLATE_DIR } from '../../src/db/pglite-template.ts';
import { cpuMs, REPO_ROOT, serverEnv } from '../server.ts';
import { serverSharedBuffers } from '../sql.ts';
import { createTarget, type BenchTarget } from '../targets.ts';
import type { Scenario } from './types.ts';

const ROUNDS = 3;
const FIRST_START_MS = 2_000;
const LATER_START_MS = 1_500;
const FIRST_START_RSS_MB = 400;
/** An idle server's CPU: its timers and polls, with no request and no job to run. */
const IDLE_SETTLE_MS = 5_000;
const IDLE_WINDOW_MS = 10_000;
const IDLE_CPU_MS_PER_S = 50;

interface StartSample {
  ms: number;
  peakMb: number;
}

/** What is started: the compiled server (what `npm start` runs), or the floor beside it. */
type Starter = 'scanhub' | 'floor';

function command(starter: Starter, target: BenchTarget): { args: string[]; env: NodeJS.ProcessEnv } {
  const env = serverEnv(target, { logLevel: 'warn' });
  if (starter === 'scanhub') return { args: ['dist/main.js', 'serve'], env };
  return {
    args: ['bench/start-floor.js'],
    env: { ...env, TEMPLATE_DIR, PGLITE_SHARED_BUFFERS: serverSharedBuffers(env) },
  };
}

/** CPU ms per second `pid` uses over `IDLE_WINDOW_MS`, after `IDLE_SETTLE_MS` of rest. */
async function idleCpu(pid: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
  const before = cpuMs(pid);
  await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
  return ((cpuMs(pid) - before) * 1000) / IDLE_WINDOW_MS;
}

/**
 * One start on `target`, from spawning the process to the first 200 of /healthz, and the process's
 * peak RSS by then; `whileUp`, given the pid, runs after that, before the process is stopped.
 */
async function timeStart(
  starter: Starter,
  target: BenchTarget,
  whileUp?: (pid: number) => Promise<void>,
): Promise<StartSample> {
  const { args, env } = command(starter, target);
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`no start in 60 s: ${output}`)), 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.once('exit', (code) => reject(new Error(`${starter} exited ${code}: ${output}`)));
    });
    for (;;) {
      const response = await fetch(`${url}/healthz`).catch(() => undefined);
      if (response?.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const ms = performance.now() - started;
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const peakKb = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
    if (whileUp && child.pid !== undefined) await whileUp(child.pid);
    return { ms, peakMb: peakKb / 1024 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/**
 * Scenario 12 (issue 15's targets, on both engines): the first start of the compiled server on a new database (PGlite from the build's
 * data-dir template) and a later start on the same one, to the first answer, with peak RSS.
 *
 * Each round also starts the floor (bench/start-floor.js: Node, the database opened, a bare HTTP
 * server) on a database of its own, first and later, before or after scanhub's by turns. The
 * targets stay absolute (2 s, 1.5 s); the ratio to the floor, measured in the same minutes, is what
 * compares across hours: the same code's first start measured 1.25 s one evening and 2.8 s the next.
 */
export const startScenario: Scenario = {
  ids: ['12'],
  title: 'server start: first start on a new database, later start, peak RSS (compiled runtime)',
  async run(engine, { record, log }) {
    if (!distIsFresh()) {
      record({
        scenario: '12',
        name: 'first start',
        engine,
        unit: 'ms',
        statistic: 'median',
        samples: [],
        unavailable: 'dist/ is missing or older than src/: run npm run build',
      });
      return;
    }
    const samples: Record<Starter, { first: StartSample[]; later: StartSample[] }> = {
      scanhub: { first: [], later: [] },
      floor: { first: [], later: [] },
    };
    const { first, later } = samples.scanhub;
    const floor = samples.floor;
    const idle: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternating which goes first: the start after another one's data dir was removed can be slower.
      const order = round % 2 === 1 ? (['scanhub', 'floor'] as const) : (['floor', 'scanhub'] as const);
      for (const starter of order) {
        const target = await createTarget(engine, `start-${starter}-${round}`);
        try {
          samples[starter].first.push(await timeStart(starter, target));
          // Each later start of scanhub also stays up, idle, to measure what it costs.
          const measureIdle =
            starter === 'scanhub' ? async (pid: number) => void idle.push(await idleCpu(pid)) : undefined;
          samples[starter].later.push(await timeStart(starter, target, measureIdle));
        } finally {
          await target.dispose();
        }
      }
      log(
        `  round ${round}: first ${first.at(-1)?.ms.toFixed(0)} ms (${first.at(-1)?.peakMb.toFixed(0)} MB), ` +
          `later ${later.at(-1)?.ms.toFixed(0)} ms (${later.at(-1)?.peakMb.toFixed(0)} MB); ` +
          `floor ${floor.first.at(-1)?.ms.toFixed(0)} and ${floor.later.at(-1)?.ms.toFixed(0)} ms`,
      );
    }
    const floorName = (start: 'first' | 'later') =>
      engine === 'postgres'
        ? 'node, one pg connection, one statement, node:http'
        : `node, ${start === 'first' ? 'template copied, ' : ''}PGlite opened, one statement, node:http`;
    record({
      scenario: '12',
      name: 'first start on a new database, to the first answer',
      engine,
      unit: 'ms',
      statistic: 'median',
      samples: first.map((sample) => sample.ms),
      limit: { name: floorName('first'), samples: floor.first.map((sample) => sample.ms) },
      target: { text: `≤ ${FIRST_START_MS} ms`, max: FIRST_START_MS, on: 'value' },
      notes: [
        'the limit is the floor (bench/start-floor.js): what any server on this database does before answering; the target is absolute, the ratio says how much of the start is scanhub',
      ],
    });
    record({
      scenario: '12',
      name: 'peak RSS of the first start',
      engine,
      unit: 'MB',
      statistic: 'max',
      samples: first.map((sample) => sample.peakMb),
      target: { text: `≤ ${FIRST_START_RSS_MB} MB`, max: FIRST_START_RSS_MB, on: 'value' },
    });
    record({
      scenario: '12',
      name: 'later start on the same database, to the first answer',
      engine,
      unit: 'ms',
      statistic: 'median',
      samples: later.map((sample) => sample.ms),
      limit: { name: floorName('later'), samples: floor.later.map((sample) => sample.ms) },
      target: { text: `≤ ${LATER_START_MS} ms`, max: LATER_START_MS, on: 'value' },
    });
    record({
      scenario: '12',
      name: 'idle server: CPU per second of wall time',
      engine,
      unit: 'CPU ms/s',
      statistic: 'median',
      samples: idle,
      target: { text: `≤ ${IDLE_CPU_MS_PER_S} (5 % of a core)`, max: IDLE_CPU_MS_PER_S, on: 'value' },
      notes: [
        `after each later start and ${IDLE_SETTLE_MS / 1000} s of rest, ${IDLE_WINDOW_MS / 1000} s with no request: the server's own CPU (every thread, /proc/<pid>/stat), its job polls and timers; the database's share on PostgreSQL is not counted`,
      ],
    });
  },
};
