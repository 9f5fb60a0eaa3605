import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAudit, systemAuditContext, type AuditContext } from '../../src/events/audit.ts';
import { applyAuditRetention, verifyAuditChain } from '../../src/events/audit-chain.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Issue 49: the chain the database keeps over audit_events, checked by verify; the append-only
 * trigger; retention that leaves the chain verifiable from its anchor. Both databases.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 180_000);
afterAll(() => t.close());

const context: AuditContext = {
  actor: { type: 'user', id: '1', label: 'chain@example.test' },
  requestId: 'req-1',
  ip: '127.0.0.1',
  userAgent: 'vitest',
};

async function append(count: number, action = 'test.appended'): Promise<void> {
  await t.db.transaction().execute((trx) =>
    recordAudit(
      trx,
      context,
      Array.from({ length: count }, (_, index) => ({
        action,
        target: { type: 'thing', id: index, label: `thing ¹²³ ${index}` },
        before: { name: 'old', password: 'never stored' },
        after: { name: `new ${index}`, password: 'never stored either' },
        details: { index, nested: { token: 'sht_abcdefghijklmnopqrstuvwxyz' } },
      })),
    ),
  );
}

describe('the audit chain', () => {
  it('appends rows with consecutive ids, each chained to the one before, and verify agrees', async () => {
    await append(3);
    await append(1);
    const rows = await t.db
      .selectFrom('audit_events')
      .select(['id', 'prev_hash', 'hash'])
      .orderBy('id')
      .execute();
    expect(rows.map((row) => Number(row.id))).toEqual([1, 2, 3, 4]);
    for (let index = 1; index < rows.length; index += 1)
      expect(rows[index]!.prev_hash).toBe(rows[index - 1]!.hash);
    const report = await verifyAuditChain(t.db);
    expect(report).toMatchObject({ ok: true, checked: 4, first_broken: null });
    expect(report.head.id).toBe('4');
  });

  it('masks secrets in before/after and details', async () => {
    const row = await t.db
      .selectFrom('audit_events')
      .selectAll()
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const text = JSON.stringify(row);
    expect(text).not.toContain('never stored');
    expect(text).not.toContain('sht_abc');
    expect(row.changes).toEqual({
      name: { before: 'old', after: 'new 0' },
      password: { before: '[masked]', after: '[masked]' },
    });
  });

  it('refuses UPDATE, DELETE and TRUNCATE of audit rows, and a second or deleted head', async () => {
    await expect(sql`update audit_events set action = 'x' where id = 1`.execute(t.db)).rejects.toThrow(
      /append-only/,
    );
    await expect(sql`delete from audit_events where id = 1`.execute(t.db)).rejects.toThrow(/append-only/);
    await expect(sql`truncate audit_events`.execute(t.db)).rejects.toThrow(/append-only/);
    await expect(sql`delete from audit_chain`.execute(t.db)).rejects.toThrow(/forward/);
    await expect(sql`update audit_chain set last_id = 0`.execute(t.db)).rejects.toThrow(/forward/);
    expect((await verifyAuditChain(t.db)).ok).toBe(true);
  });

  it('a set-wise append of 10k rows is one statement and verifies', async () => {
    await append(10_000, 'test.bulk');
    const report = await verifyAuditChain(t.db);
    expect(report.ok).toBe(true);
    expect(report.checked).toBe(10_004);
  }, 120_000);

  it('concurrent writers queue on the head: no fork, no gap', async () => {
    await Promise.all(Array.from({ length: 8 }, () => append(5, 'test.concurrent')));
    const report = await verifyAuditChain(t.db);
    expect(report).toMatchObject({ ok: true, checked: 10_044 });
  });

  it('a row changed behind the trigger fails verify at that row', async () => {
    await sql`alter table audit_events disable trigger audit_events_append_only`.execute(t.db);
    try {
      await sql`update audit_events set actor_label = 'someone else' where id = 7`.execute(t.db);
      const report = await verifyAuditChain(t.db);
      expect(report.ok).toBe(false);
      expect(report.first_broken).toMatchObject({ id: '7', reason: 'hash_mismatch' });
      // Restored, the chain verifies again; a deleted row is reported where it is missing.
      await sql`update audit_events set actor_label = 'chain@example.test' where id = 7`.execute(t.db);
      expect((await verifyAuditChain(t.db)).ok).toBe(true);
      await sql`update audit_events set details = '{"index": 1}' where id = 9`.execute(t.db);
      expect((await verifyAuditChain(t.db)).first_broken).toMatchObject({ id: '9', reason: 'hash_mismatch' });
    } finally {
      await sql`alter table audit_events enable trigger audit_events_append_only`.execute(t.db);
    }
  });
});

describe('retention', () => {
  it('deletes old rows in batches, moves the anchor, records it, and the chain verifies from it', async () => {
    let t2: TestApp | undefined;
    try {
      t2 = await createTestApp();
      const db = t2.db;
      await db.transaction().execute((trx) =>
        recordAudit(
          trx,
          systemAuditContext('test'),
          Array.from({ length: 25 }, () => ({ action: 'old.thing' })),
        ),
      );
      // Backdated, then re-hashed in order, as if the rows had been written 500 days ago (to the
      // millisecond, as the trigger stores times).
      await sql`alter table audit_events disable trigger audit_events_append_only`.execute(db);
      await sql`update audit_events set occurred_at = date_trunc('milliseconds', now() - interval '500 days')`.execute(
        db,
      );
      await rechain(db);
      await db.transaction().execute((trx) =>
        recordAudit(
          trx,
          systemAuditContext('test'),
          Array.from({ length: 5 }, () => ({ action: 'new.thing' })),
        ),
      );
      expect((await verifyAuditChain(db)).ok).toBe(true);
      const result = await applyAuditRetention(db, { now: new Date(), retentionDays: 400, batchSize: 10 });
      expect(result.deleted).toBe(25);
      expect(result.anchor.id).toBe('26');
      const remaining = await db
        .selectFrom('audit_events')
        .select(['action', 'details'])
        .orderBy('id')
        .execute();
      expect(remaining.map((row) => row.action)).toEqual([
        ...Array(5).fill('new.thing'),
        'audit.retention_applied',
      ]);
      expect(remaining.at(-1)!.details).toMatchObject({ deleted: 25, anchor_id: '26' });
      const report = await verifyAuditChain(db);
      expect(report).toMatchObject({ ok: true, checked: 6, anchor: { id: '26' } });
      // Nothing older: a second run deletes nothing and records nothing.
      expect((await applyAuditRetention(db, { now: new Date(), retentionDays: 400 })).deleted).toBe(0);
      // A delete outside retention is still refused.
      await expect(sql`delete from audit_events where id = 27`.execute(db)).rejects.toThrow(/append-only/);
    } finally {
      await t2?.close();
    }
  }, 180_000);
});

/** Recomputes every hash in id order (test setup only: backdated rows, triggers off). */
async function rechain(db: TestApp['db']): Promise<void> {
  await sql`alter table audit_events disable trigger audit_events_append_only`.execute(db);
  const rows = await sql<{ id: string }>`select id::text from audit_events order by audit_events.id`.execute(
    db,
  );
  let previous = '0'.repeat(64);
  for (const { id } of rows.rows) {
    const updated = await sql<{ hash: string }>`update audit_events e set prev_hash = ${previous},
      hash = encode(sha256(convert_to(${previous} || audit_event_canonical(e), 'UTF8')), 'hex')
      where id = ${id} returning hash`.execute(db);
    previous = updated.rows[0]!.hash;
  }
  await sql`alter table audit_chain disable trigger audit_chain_guard`.execute(db);
  await sql`update audit_chain set last_hash = ${previous}`.execute(db);
  await sql`alter table audit_chain enable trigger audit_chain_guard`.execute(db);
  await sql`alter table audit_events enable trigger audit_events_append_only`.execute(db);
}
