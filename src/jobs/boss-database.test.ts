import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { bossDatabase } from './boss-database.ts';

describe('bossDatabase on PGlite', () => {
  it('runs a statement that waited for the session before the database closes (no rejection from a closed database)', async () => {
    const database = await openDatabase({});
    const boss = bossDatabase(database);
    expect((await boss.executeSql('select 1 as one', [])).rows).toEqual([{ one: 1 }]);
    // pg-boss completing a job while the server shuts down: its statement was waiting when the close came.
    const held = await database.pglite!.lock.acquire();
    const late = boss.executeSql('select 1 as one', []);
    held();
    await database.close();
    await expect(late).resolves.toMatchObject({ rows: [{ one: 1 }] });
  });
});

describe('bossDatabase.close', () => {
  it('waits for every statement pg-boss started, as it records completions without awaiting them', async () => {
    const database = await openDatabase({});
    const boss = bossDatabase(database);
    const held = await database.pglite!.lock.acquire();
    let finished = false;
    void boss.executeSql('select 1 as one', []).then(() => (finished = true));
    let closed = false;
    const closing = boss.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    held();
    await closing;
    expect(finished).toBe(true);
    await database.close();
  });

  it('never runs a statement pg-boss starts after its stop, and never answers it', async () => {
    const database = await openDatabase({});
    const boss = bossDatabase(database);
    await boss.close();
    await database.close();
    // Run on the closed database this rejects with "PGlite is closed", unhandled inside pg-boss;
    // answered with no rows, pg-boss's own code fails reading them (unhandled as well).
    const outcome = await Promise.race([
      boss.executeSql('select 1 as one', []).then(
        () => 'answered',
        () => 'rejected',
      ),
      new Promise((resolve) => setTimeout(() => resolve('pending'), 100)),
    ]);
    expect(outcome).toBe('pending');
  });
});
