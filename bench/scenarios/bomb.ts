import { existsSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { Environment } from '../environment.ts';
import { CACHE_DIR } from '../generate-sarif.ts';
import { gzipBomb } from '../gzip-bomb.ts';
import { uploadMultipart } from '../http.ts';
import { createApplication, createGroup, type BenchServer } from '../server.ts';
import type { Scenario } from './types.ts';

/** The server's default upload limit: the bomb must be stopped here, not at the bench's 8 GiB. */
const UPLOAD_LIMIT = 100 * 1024 * 1024;
const INFLATED = 1024 ** 3;
const TIME_LIMIT_MS = 2_000;
const GROWTH_LIMIT_MB = 100;
const MIB_TO_MB = 1.048576;

async function bombFile(): Promise<string> {
  await mkdir(CACHE_DIR, { recursive: true });
  const path = join(CACHE_DIR, `gzip-bomb-${INFLATED}.sarif.gz`);
  if (!existsSync(path)) writeFileSync(path, await gzipBomb(INFLATED));
  return path;
}

/** The floor: inflating the bomb up to the upload limit, bytes counted and dropped, in this process. */
async function inflateToLimit(path: string): Promise<number> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const source = createReadStream(path);
    const gunzip = createGunzip({ chunkSize: 1024 * 1024 });
    let inflated = 0;
    gunzip.on('data', (chunk: Buffer) => {
      inflated += chunk.length;
      if (inflated > UPLOAD_LIMIT) {
        source.destroy();
        gunzip.destroy();
        resolve();
      }
    });
    gunzip.on('error', reject);
    gunzip.on('end', resolve);
    source.pipe(gunzip);
  });
  return performance.now() - started;
}

/** Resets VmHWM (Linux `clear_refs` 5) so the next peak is this request's own. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function sendBomb(server: BenchServer, token: string, path: string) {
  const started = performance.now();
  const response = await uploadMultipart(`${server.url}/api/ingest`, { 'x-api-token': token }, {}, path);
  return { ms: performance.now() - started, status: response.status };
}

/**
 * Scenario 8: a 1 MB `.sarif.gz` that inflates to 1 GiB of whitespace, against a server with the
 * default 100 MiB upload limit: time to the 413, and the server's peak RSS growth meanwhile; then
 * three such bombs at once. Limit: inflating the same file to 100 MiB in the bench process.
 */
export const bombScenario: Scenario = {
  ids: ['8'],
  title: 'gzip bomb (1 MB inflating to 1 GiB) against the 100 MiB upload limit',
  async run(engine, { options, record, log }) {
    const path = await bombFile();
    const env = await Environment.open(engine, 'bomb', {
      logLevel: options.logLevel,
      uploadLimitBytes: UPLOAD_LIMIT,
    });
    try {
      const app = await createApplication(env.api(), await createGroup(env.api(), 'bench-bomb'), 'bomb');
      const times: number[] = [];
      const growth: number[] = [];
      const limits: number[] = [];
      const statuses: number[] = [];
      let peakMeasured = true;
      // Untimed: the first request of a fresh server also compiles the upload path.
      await sendBomb(env.server, app.token, path);
      for (let repeat = 0; repeat < Math.max(3, options.repeats); repeat++) {
        limits.push(await inflateToLimit(path));
        const before = env.server.memory();
        peakMeasured &&= resetPeak(env.server.pid);
        const result = await sendBomb(env.server, app.token, path);
        const after = env.server.memory();
        times.push(result.ms);
        statuses.push(result.status);
        growth.push(Math.max(0, (after.peakMb - before.rssMb) * MIB_TO_MB));
        log(
          `  bomb ${repeat + 1}: ${result.status} in ${result.ms.toFixed(0)} ms, ` +
            `peak RSS +${((after.peakMb - before.rssMb) * MIB_TO_MB).toFixed(0)} MB`,
        );
      }
      const check = {
        name: 'every bomb refused with 413',
        ok: statuses.every((s) => s === 413),
        detail: `statuses ${statuses.join(', ')}`,
      };
      record({
        scenario: '8',
        name: 'gzip bomb → 413',
        engine,
        unit: 'ms',
        statistic: 'median',
        samples: times,
        limit: { name: 'gunzip to 100 MiB in-process', samples: limits },
        target: { text: `< ${TIME_LIMIT_MS / 1000} s`, max: TIME_LIMIT_MS, on: 'value' },
        checks: [check],
        notes: ['after one untimed bomb (a fresh server compiles the upload path on its first request)'],
      });
      record({
        scenario: '8',
        name: 'gzip bomb: peak RSS growth',
        engine,
        unit: 'MB',
        statistic: 'max',
        samples: growth,
        target: { text: `< ${GROWTH_LIMIT_MB} MB`, max: GROWTH_LIMIT_MB, on: 'value' },
        notes: peakMeasured
          ? ['growth = VmHWM during the request (reset before it) − VmRSS before it']
          : ['VmHWM could not be reset: growth is measured against the peak since start'],
      });
      const beforeAll = env.server.memory();
      resetPeak(env.server.pid);
      const started = performance.now();
      const three = await Promise.all([1, 2, 3].map(() => sendBomb(env.server, app.token, path)));
      const allMs = performance.now() - started;
      const afterAll = env.server.memory();
      log(
        `  three at once: ${three.map((r) => r.status).join(', ')} in ${allMs.toFixed(0)} ms, ` +
          `peak RSS +${((afterAll.peakMb - beforeAll.rssMb) * MIB_TO_MB).toFixed(0)} MB`,
      );
      record({
        scenario: '8',
        name: 'three gzip bombs at once → 413',
        engine,
        unit: 'ms',
        statistic: 'max',
        samples: [allMs],
        limit: { name: 'gunzip to 100 MiB in-process, ×3', samples: [3 * Math.min(...limits)] },
        target: { text: `< ${TIME_LIMIT_MS / 1000} s`, max: TIME_LIMIT_MS, on: 'value' },
        checks: [
          {
            name: 'all three refused with 413',
            ok: three.every((r) => r.status === 413),
            detail: `statuses ${three.map((r) => r.status).join(', ')}`,
          },
        ],
        extra: { peakGrowthMB: Math.round((afterAll.peakMb - beforeAll.rssMb) * MIB_TO_MB) },
      });
    } finally {
      await env.dispose();
    }
  },
};
