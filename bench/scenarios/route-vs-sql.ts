import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import type { Environment } from '../environment.ts';
import { keepAliveAgent, request, type Headers } from '../http.ts';
import { replay, sequentialLatencies, waves } from '../load.ts';
import { summarize } from '../stats.ts';
import { captureQueries, type CapturedQuery, type SqlExecutor } from '../sql.ts';

/** One route call and the service call that produces its SQL. */
export interface Probe {
  path: string;
  headers: Headers;
  /** Calls the route's service on `db` (a logging Kysely), so its statements are captured. */
  service(db: Kysely<DB>): Promise<unknown>;
}

export interface ProbeResult {
  http: number[];
  sql: number[];
  statements: CapturedQuery[];
  /** The statements as the service sent them: groups sent at once, one group after another. */
  waves: CapturedQuery[][];
  /** Body of the first HTTP answer. */
  firstBody: string;
}

const WARMUP = 5;

/** "3 statements: 2 at once, then 1" — how the service sent its SQL, for the notes. */
export function describeWaves(groups: readonly (readonly CapturedQuery[])[]): string {
  const count = groups.reduce((total, group) => total + group.length, 0);
  const shape = groups.map((group) => (group.length > 1 ? `${group.length} at once` : '1')).join(', then ');
  return `${count} statement${count === 1 ? '' : 's'} (${shape})`;
}

const progress = (result: ProbeResult): string =>
  `HTTP p95 ${summarize(result.http).p95.toFixed(1)} ms, SQL p95 ${summarize(result.sql).p95.toFixed(1)} ms`;

/**
 * Latencies of `count` sequential HTTP requests of each probe and of `count` direct replays of the
 * SQL its service sends, captured by running the service itself. On PostgreSQL the two alternate
 * request by request (same cache state); on PGlite the server must be stopped while the bench
 * process opens the data dir, so all replays run first, then all requests.
 */
export async function routeVersusSql(
  env: Environment,
  probes: Probe[],
  count: number,
  log: (message: string) => void,
): Promise<ProbeResult[]> {
  const agent = keepAliveAgent(1);
  const results: ProbeResult[] = probes.map(() => ({
    http: [],
    sql: [],
    statements: [],
    waves: [],
    firstBody: '',
  }));
  const call = async (probe: Probe, result: ProbeResult) => {
    const url = env.server.url + probe.path;
    const response = await request(url, { headers: probe.headers, agent });
    if (response.status !== 200) throw new Error(`GET ${probe.path} → ${response.status}: ${response.text}`);
    if (!result.firstBody) result.firstBody = response.text;
  };
  const capture = async (sql: SqlExecutor) => {
    for (const [index, probe] of probes.entries()) {
      const result = results[index] as ProbeResult;
      result.statements = await captureQueries(sql, probe.service);
      result.waves = waves(result.statements);
    }
  };
  try {
    if (env.engine === 'postgres') {
      await env.withSql(async (sql) => {
        await capture(sql);
        for (const [index, probe] of probes.entries()) {
          const result = results[index] as ProbeResult;
          for (let i = 0; i < WARMUP; i++) {
            await replay(sql, result.waves);
            await call(probe, result);
          }
          for (let i = 0; i < count; i++) {
            let started = performance.now();
            await replay(sql, result.waves);
            result.sql.push(performance.now() - started);
            started = performance.now();
            await call(probe, result);
            result.http.push(performance.now() - started);
          }
          log(`  ${probe.path}: ${progress(result)}`);
        }
      });
      return results;
    }
    await env.withSql(async (sql) => {
      await capture(sql);
      for (const [index, probe] of probes.entries()) {
        const result = results[index] as ProbeResult;
        result.sql = await sequentialLatencies(count, () => replay(sql, result.waves), WARMUP);
        log(`  ${probe.path}: SQL p95 ${summarize(result.sql).p95.toFixed(1)} ms`);
      }
    });
    for (const [index, probe] of probes.entries()) {
      const result = results[index] as ProbeResult;
      result.http = await sequentialLatencies(count, () => call(probe, result), WARMUP);
      log(`  ${probe.path}: ${progress(result)}`);
    }
    return results;
  } finally {
    agent.destroy();
  }
}
