import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { dropPostureBefore, missingPostureDays, writePostureDay } from './posture.repository.ts';
import { addDays, DAY_MS, dayStart, utcDay } from './utc-days.ts';

export interface PostureRunOptions {
  /** The clock: the day it falls on is written as "so far", every earlier missing day completely. */
  now: Date;
  /** Days of history kept (today included). */
  retentionDays: number;
  /** Most missing days written in one run (newest first); the next run goes on. */
  maxDays?: number;
}

export interface PostureRunResult {
  /** Days written, newest first (today first). */
  written: string[];
  /** Rows dropped by retention. */
  dropped: number;
}

/**
 * The posture job: writes today so far, back-fills up to `maxDays` days missing since the oldest
 * day kept (from the findings' timelines), and drops days older than the retention; each day written
 * or dropped moves the week and month roll-ups with it (posture.repository.ts). Running it
 * again writes today again and nothing else: a complete day is never rewritten.
 */
export async function runPostureSnapshots(
  db: Kysely<DB>,
  options: PostureRunOptions,
): Promise<PostureRunResult> {
  const today = utcDay(options.now);
  const oldestKept = addDays(today, -(options.retentionDays - 1));
  const missing = await missingPostureDays(db, oldestKept, addDays(today, -1), options.maxDays ?? 92);
  await writePostureDay(db, today, options.now);
  for (const day of missing) await writePostureDay(db, day, new Date(dayStart(day).getTime() + DAY_MS));
  const dropped = await dropPostureBefore(db, oldestKept);
  return { written: [today, ...missing], dropped };
}
