import { request, type Headers } from './http.ts';
import type { CapturedQuery, SqlExecutor } from './sql.ts';
import type http from 'node:http';

/** Latencies (ms) of `count` sequential calls of `once`, after `warmup` unmeasured calls. */
export async function sequentialLatencies(
  count: number,
  once: (index: number) => Promise<void>,
  warmup = 5,
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await once(i);
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await once(i);
    samples.push(performance.now() - started);
  }
  return samples;
}

export interface LoadResult {
  completed: number;
  errors: number;
  seconds: number;
  perSecond: number;
  latencies: number[];
}

/** `workers` concurrent loops calling `once` until `seconds` have passed; `once` answers success. */
export async function closedLoop(
  workers: number,
  seconds: number,
  once: (worker: number, iteration: number) => Promise<boolean>,
): Promise<LoadResult> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let completed = 0;
  let errors = 0;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let iteration = 0; performance.now() < deadline; iteration++) {
        const begin = performance.now();
        const ok = await once(worker, iteration).catch(() => false);
        latencies.push(performance.now() - begin);
        if (ok) completed++;
        else errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { completed, errors, seconds: elapsed, perSecond: completed / elapsed, latencies };
}

/** A GET that succeeds on 200 (body read and dropped). */
export async function getOk(url: string, headers: Headers, agent: http.Agent): Promise<boolean> {
  const response = await request(url, { headers, agent });
  return response.status === 200;
}

/**
 * Groups captured statements as the code sent them: a statement that started before every
 * statement of the current group had ended was sent concurrently with them (Promise.all).
 */
export function waves(queries: readonly CapturedQuery[]): CapturedQuery[][] {
  const groups: CapturedQuery[][] = [];
  let groupEnd = Number.NEGATIVE_INFINITY;
  for (const query of [...queries].sort((a, b) => a.startedAt - b.startedAt)) {
    const current = groups[groups.length - 1];
    if (current && query.startedAt < groupEnd) {
      current.push(query);
      groupEnd = Math.max(groupEnd, query.endedAt);
    } else {
      groups.push([query]);
      groupEnd = query.endedAt;
    }
  }
  return groups;
}

/** Replays captured statements with the concurrency they were sent with (see `waves`). */
export async function replay(sql: SqlExecutor, groups: readonly (readonly CapturedQuery[])[]): Promise<void> {
  for (const group of groups) {
    await Promise.all(group.map((query) => sql.query(query.sql, query.parameters)));
  }
}
