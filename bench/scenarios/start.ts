import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { distIsFresh } from '../../bin/dist-freshness.js';
import { REPO_ROOT, serverEnv } from '../server.ts';
import { createTarget, type BenchTarget } from '../targets.ts';
import type { Scenario } from './types.ts';

const ROUNDS = 3;
const FIRST_START_MS = 2_000;
const LATER_START_MS = 1_500;
const FIRST_START_RSS_MB = 400;

interface StartSample {
  ms: number;
  peakMb: number;
}

/**
 * One start of the compiled server (what `npm start` runs) on `target`: from spawning the process to
 * the first 200 of /healthz, and the process's peak RSS by then.
 */
async function timeStart(target: BenchTarget): Promise<StartSample> {
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/main.js', 'serve'], {
    cwd: REPO_ROOT,
    env: serverEnv(target, { logLevel: 'warn' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`no start in 60 s: ${output}`)), 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const match = /scanhub listening on (http:\/\/\S+)/.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.once('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
    });
    for (;;) {
      const response = await fetch(`${url}/healthz`).catch(() => undefined);
      if (response?.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const ms = performance.now() - started;
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const peakKb = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
    return { ms, peakMb: peakKb / 1024 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/**
 * Scenario 12 (issue 15's targets, on both engines): the first start of the compiled server on a new database (PGlite from the build's
 * data-dir template) and a later start on the same one, to the first answer, with peak RSS.
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
    const first: StartSample[] = [];
    const later: StartSample[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const target = await createTarget(engine, `start-${round}`);
      try {
        first.push(await timeStart(target));
        later.push(await timeStart(target));
        log(
          `  round ${round}: first ${first.at(-1)?.ms.toFixed(0)} ms (${first.at(-1)?.peakMb.toFixed(0)} MB), ` +
            `later ${later.at(-1)?.ms.toFixed(0)} ms (${later.at(-1)?.peakMb.toFixed(0)} MB)`,
        );
      } finally {
        await target.dispose();
      }
    }
    record({
      scenario: '12',
      name: 'first start on a new database, to the first answer',
      engine,
      unit: 'ms',
      statistic: 'median',
      samples: first.map((sample) => sample.ms),
      target: { text: `≤ ${FIRST_START_MS} ms`, max: FIRST_START_MS, on: 'value' },
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
      target: { text: `≤ ${LATER_START_MS} ms`, max: LATER_START_MS, on: 'value' },
    });
  },
};
