// The audit chain's cost (issue 49): appends serialise on the chain's head row, so this measures what
// that costs. On a fresh database of each engine: 500 single-row appends one after another (each its
// own transaction, what a sign-in or a triage change adds), the same 500 from 8 concurrent writers,
// one set-wise append of 10k rows (bulk triage), and a verify of everything. Not part of
// `npm run bench` (it measures no request); run with `npx tsx bench/audit-chain.ts`.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest, openDatabase, type Database } from '../src/db/database.ts';
import { recordAudit, systemAuditContext } from '../src/events/audit.ts';
import { verifyAuditChain } from '../src/events/audit-chain.ts';

const context = systemAuditContext('bench');
const entry = (index: number) => ({
  action: 'bench.appended',
  target: { type: 'finding', id: index },
  before: { status: 'open' },
  after: { status: 'confirmed' },
});

async function measure(name: string, database: Database): Promise<void> {
  const { db } = database;
  const single = async (count: number, from: number) => {
    for (let index = 0; index < count; index += 1) {
      await db.transaction().execute((trx) => recordAudit(trx, context, entry(from + index)));
    }
  };
  let started = performance.now();
  await single(500, 0);
  const sequential = performance.now() - started;
  started = performance.now();
  await Promise.all(Array.from({ length: 8 }, (_, writer) => single(500 / 8, 1000 + writer * 100)));
  const concurrent = performance.now() - started;
  started = performance.now();
  await db.transaction().execute((trx) =>
    recordAudit(
      trx,
      context,
      Array.from({ length: 10_000 }, (_, i) => entry(i)),
    ),
  );
  const bulk = performance.now() - started;
  // The same rows into a copy of the table without its triggers: what the chain adds, in the same run.
  await sql`create table audit_events_plain (like audit_events including defaults)`.execute(db);
  const rows = JSON.stringify(
    Array.from({ length: 10_000 }, (_, i) => ({ action: 'bench.appended', target_id: String(i) })),
  );
  started = performance.now();
  await sql`insert into audit_events_plain (id, actor_type, action, target_id, prev_hash, hash)
    select row_number() over (), 'system', action, target_id, '', ''
    from json_to_recordset(${rows}::json) as x(action text, target_id text)`.execute(db);
  const plainBulk = performance.now() - started;
  started = performance.now();
  for (let index = 0; index < 500; index += 1) {
    await db.transaction().execute((trx) =>
      sql`insert into audit_events_plain (id, actor_type, action, prev_hash, hash)
        values (${index}, 'system', 'bench.appended', '', '')`.execute(trx),
    );
  }
  const plainSequential = performance.now() - started;
  started = performance.now();
  const report = await verifyAuditChain(db);
  const verify = performance.now() - started;
  console.log(
    `${name}: 500 sequential appends ${sequential.toFixed(0)} ms (${((sequential / 500) * 1000).toFixed(0)} µs each); ` +
      `500 from 8 writers ${concurrent.toFixed(0)} ms; 10k set-wise ${bulk.toFixed(0)} ms; ` +
      `verify of ${report.checked} rows ${verify.toFixed(0)} ms (ok: ${report.ok}); without the chain's ` +
      `triggers: 500 sequential ${plainSequential.toFixed(0)} ms, 10k set-wise ${plainBulk.toFixed(0)} ms`,
  );
}

const pglite = await openDatabase({});
await migrateToLatest(pglite.db);
await measure('pglite', pglite);
await pglite.close();

const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const schema = `scanhub_audit_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`create schema ${schema}`);
try {
  const postgres = await openDatabase({ url, schema });
  await migrateToLatest(postgres.db, schema);
  await measure('postgres', postgres);
  await postgres.close();
} finally {
  await admin.query(`drop schema ${schema} cascade`);
  await admin.query(`drop schema if exists ${schema}_jobs cascade`);
  await admin.end();
}
