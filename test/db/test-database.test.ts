import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureTestDatabase } from '../support/test-database.ts';

/**
 * Issue 53: against a TEST_DATABASE_URL whose database did not exist, every file failed on its own
 * with a cascade of TypeErrors. The harness now creates the database, or says in one line why not.
 */

const url = process.env.TEST_DATABASE_URL;
const created: string[] = [];

function withDatabase(base: string, name: string): string {
  const next = new URL(base);
  next.pathname = `/${name}`;
  return next.href;
}

// DROP DATABASE waits for a checkpoint, which under another process's bulk writes took over the
// default 60 s hook timeout once (CI machine shared with a bench seeding a million rows).
afterAll(async () => {
  if (!url || created.length === 0) return;
  const admin = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await admin.connect();
  for (const name of created) await admin.query(`drop database if exists ${admin.escapeIdentifier(name)}`);
  await admin.end();
}, 240_000);

describe('the test database', () => {
  it.runIf(url)(
    'is created when TEST_DATABASE_URL names one that does not exist, and reused after',
    async () => {
      const name = `scanhub_missing_${randomBytes(4).toString('hex')}`;
      created.push(name);
      const missing = withDatabase(url as string, name);
      await ensureTestDatabase(missing);
      await ensureTestDatabase(missing);
      const client = new pg.Client({ connectionString: missing });
      await client.connect();
      const { rows } = await client.query<{ name: string }>('select current_database() as name');
      await client.end();
      expect(rows[0]?.name).toBe(name);
    },
  );

  it('a server that does not answer is one error naming TEST_DATABASE_URL, without the password', async () => {
    // A port that refuses: listened on, then closed.
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const failure = ensureTestDatabase(`postgres://someone:hunter2@127.0.0.1:${port}/test`);
    await expect(failure).rejects.toThrow(
      /^TEST_DATABASE_URL \(postgres:\/\/someone:\*\*\*@127\.0\.0\.1:\d+\/test\) does not connect/,
    );
    await expect(failure).rejects.not.toThrow(/hunter2/);
  });
});
