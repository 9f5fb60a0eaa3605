import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Timestamps come back from the database through scanhub's own timestamptz parser (lib/timestamps.ts):
// the same instants as written, whatever zone the session prints them in.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const INSTANTS = [
  '2026-11-25T12:34:56.789Z',
  '2026-11-25T12:34:56.000Z',
  '1999-12-31T23:59:59.999Z',
  '1900-01-01T00:00:00.000Z',
  '1000-01-01T00:00:00.000Z',
  '0005-06-07T08:09:10.000Z',
];

// UTC; a quarter-hour offset; a negative half-hour one; a local mean time with seconds (before 1901).
const ZONES = ['UTC', 'Asia/Kathmandu', 'America/St_Johns', 'Europe/Amsterdam'];

describe('timestamps read from the database', () => {
  it.each(ZONES)('are the instants written, printed in %s', async (zone) => {
    const rows = await t.db.transaction().execute(async (trx) => {
      await sql`select set_config('TimeZone', ${zone}, true)`.execute(trx);
      const values = sql.join(INSTANTS.map((instant) => sql`(${instant}::timestamptz)`));
      return (
        await sql<{
          at: Date;
          printed: string;
        }>`select at, at::text as printed from (values ${values}) as v(at)`.execute(trx)
      ).rows;
    });
    expect(rows.map((row) => row.at.toISOString())).toEqual(INSTANTS);
    // The zone reached the text the parser read (not only UTC's `+00`).
    if (zone !== 'UTC') expect(rows.some((row) => !row.printed.endsWith('+00'))).toBe(true);
    // And microseconds are cut, never rounded: .789999 stays .789.
    const cut = await sql<{ at: Date }>`select '2026-01-01 00:00:00.789999+00'::timestamptz as at`.execute(
      t.db,
    );
    expect(cut.rows[0]?.at.toISOString()).toBe('2026-01-01T00:00:00.789Z');
  });
});
