import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// scanhub's PostgreSQL sessions run without JIT (src/db/database.ts): at 10M findings the planner's
// estimates passed jit_above_cost for dashboard statements reading a few hundred rows, which then spent
// 265 of their 280 ms compiling. Every connection of the pool must have it, not only the first.
describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('PostgreSQL sessions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('have JIT off on every pooled connection', async () => {
    // Held open together, so the pool has to open several connections.
    const settings = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ jit: string; pid: number }>`
            select current_setting('jit') as jit, pg_backend_pid() as pid, pg_sleep(0.2)`.execute(trx);
          return rows[0];
        }),
      ),
    );
    expect(new Set(settings.map((row) => row?.pid)).size).toBeGreaterThan(1);
    expect(settings.map((row) => row?.jit)).toEqual(Array(5).fill('off'));
  });
});
