import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { recordAudit, systemAuditContext } from './audit.ts';

/**
 * Checking the audit chain, and retention that keeps it checkable (docs/architecture.md, "The audit
 * trail"). The database computes each row's hash when it is appended (migration
 * 2026-11-28T2000-audit-events); this file rebuilds the same canonical text in JavaScript, from the
 * columns as stored, so a verify does not trust the database's own function to say it is intact.
 */

export const GENESIS_HASH = '0'.repeat(64);

/** A row as verify reads it: jsonb columns as PostgreSQL prints them (the text that was hashed). */
export interface ChainRow {
  id: string;
  occurred_at: Date;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_label: string | null;
  application_id: number | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  changes_text: string | null;
  details_text: string | null;
  prev_hash: string;
  hash: string;
}

/**
 * The canonical text of a row: every column but the two hashes, in table order, each as
 * `S<UTF-8 length>:<text>;` or `N;` for null. Time in UTC to the millisecond (the trigger truncates
 * it so), jsonb as PostgreSQL's text. Lengths make the fields' boundaries unambiguous.
 */
export function canonicalText(row: ChainRow): string {
  const fields = [
    row.id,
    row.occurred_at.toISOString(),
    row.actor_type,
    row.actor_id,
    row.actor_label,
    row.action,
    row.target_type,
    row.target_id,
    row.target_label,
    row.application_id === null ? null : String(row.application_id),
    row.request_id,
    row.ip,
    row.user_agent,
    row.changes_text,
    row.details_text,
  ];
  return fields.map((field) => (field === null ? 'N;' : `S${Buffer.byteLength(field)}:${field};`)).join('');
}

export function chainHash(prevHash: string, row: ChainRow): string {
  return createHash('sha256')
    .update(prevHash + canonicalText(row), 'utf8')
    .digest('hex');
}

export interface BrokenLink {
  id: string;
  reason: 'missing_rows' | 'prev_hash_mismatch' | 'hash_mismatch' | 'head_mismatch';
  detail: string;
}

export interface ChainReport {
  ok: boolean;
  /** Rows checked. */
  checked: number;
  anchor: { id: string; prev_hash: string };
  head: { id: string; hash: string };
  first_broken: BrokenLink | null;
}

const PAGE = 2000;

function selectChainRows(db: Kysely<DB>, afterId: string) {
  return (
    db
      .selectFrom('audit_events')
      .select([
        sql<string>`id::text`.as('id'),
        'occurred_at',
        'actor_type',
        'actor_id',
        'actor_label',
        'action',
        'target_type',
        'target_id',
        'target_label',
        'application_id',
        'request_id',
        'ip',
        'user_agent',
        sql<string | null>`changes::text`.as('changes_text'),
        sql<string | null>`details::text`.as('details_text'),
        'prev_hash',
        'hash',
      ])
      // The table's id, not the text alias above: ordered as text, 10 would come before 9.
      .where('audit_events.id', '>', afterId as never)
      .orderBy('audit_events.id')
      .limit(PAGE)
      .execute()
  );
}

/**
 * Walks the chain from its anchor, page by page, and reports the first broken link: a row missing
 * (ids are consecutive), a row whose `prev_hash` is not the hash before it, a row whose content no
 * longer gives its hash, or a head that does not name the last row (rows removed from the end).
 */
export async function verifyAuditChain(db: Kysely<DB>): Promise<ChainReport> {
  const chain = await db.selectFrom('audit_chain').selectAll().executeTakeFirstOrThrow();
  const anchor = { id: String(chain.anchor_id), prev_hash: chain.anchor_prev_hash };
  const head = { id: String(chain.last_id), hash: chain.last_hash };
  let expectedId = BigInt(chain.anchor_id);
  let prevHash = chain.anchor_prev_hash;
  let checked = 0;
  let after = '0';
  const report = (first: BrokenLink | null): ChainReport => ({
    ok: first === null,
    checked,
    anchor,
    head,
    first_broken: first,
  });
  for (;;) {
    const rows = (await selectChainRows(db, after)) as ChainRow[];
    for (const row of rows) {
      if (BigInt(row.id) !== expectedId) {
        return report({
          id: row.id,
          reason: 'missing_rows',
          detail:
            BigInt(row.id) > expectedId
              ? `row ${row.id} follows where row ${expectedId} was expected: rows are missing`
              : `row ${row.id} lies before the anchor or repeats an id`,
        });
      }
      if (row.prev_hash !== prevHash) {
        return report({
          id: row.id,
          reason: 'prev_hash_mismatch',
          detail: `row ${row.id} does not chain to the hash before it`,
        });
      }
      if (chainHash(prevHash, row) !== row.hash) {
        return report({
          id: row.id,
          reason: 'hash_mismatch',
          detail: `row ${row.id}'s content does not give its hash: it was changed after it was written`,
        });
      }
      checked += 1;
      prevHash = row.hash;
      expectedId += 1n;
    }
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.id;
  }
  if (String(expectedId - 1n) !== head.id || prevHash !== head.hash) {
    return report({
      id: String(expectedId),
      reason: 'head_mismatch',
      detail: `the chain's head names row ${head.id}, the rows end at ${expectedId - 1n}: rows are missing at the end`,
    });
  }
  return report(null);
}

export interface RetentionResult {
  deleted: number;
  anchor: { id: string; prev_hash: string };
}

/**
 * Deletes the audit rows older than `retentionDays`, oldest first, `batchSize` per transaction. Each
 * batch first moves the chain's anchor to its first kept row (and the hash that row chains to), then
 * deletes below it (the append-only trigger refuses any other delete), so the chain verifies from the
 * anchor after every batch. The anchor is also recorded in the chain itself: one
 * `audit.retention_applied` row when anything was deleted.
 */
export async function applyAuditRetention(
  db: Kysely<DB>,
  options: { now: Date; retentionDays: number; batchSize?: number },
): Promise<RetentionResult> {
  const cutoff = new Date(options.now.getTime() - options.retentionDays * 86_400_000);
  const batchSize = options.batchSize ?? 5000;
  let deleted = 0;
  for (;;) {
    const step = await db.transaction().execute(async (trx) => {
      const chain = await sql<{ last_id: string; last_hash: string; anchor_id: string }>`
        select last_id::text, last_hash, anchor_id::text from audit_chain for update`.execute(trx);
      const head = chain.rows[0]!;
      // The first row to keep: the lowest id among the earliest kept by time (ids follow the order
      // rows were appended, times the start of their transaction: close, not equal).
      const kept = await sql<{ id: string | null }>`
        select min(id)::text as id from (select id from audit_events where occurred_at >= ${cutoff}
          order by occurred_at, id limit 1000) k`.execute(trx);
      const target = BigInt(kept.rows[0]?.id ?? String(BigInt(head.last_id) + 1n));
      const anchorId = BigInt(head.anchor_id);
      if (target <= anchorId) return null;
      const newAnchor = target < anchorId + BigInt(batchSize) ? target : anchorId + BigInt(batchSize);
      const anchorRow = await sql<{ prev_hash: string }>`
        select prev_hash from audit_events where id = ${String(newAnchor)}`.execute(trx);
      const anchorPrevHash =
        newAnchor === BigInt(head.last_id) + 1n ? head.last_hash : anchorRow.rows[0]?.prev_hash;
      if (anchorPrevHash === undefined) return null;
      await trx
        .updateTable('audit_chain')
        .set({ anchor_id: String(newAnchor), anchor_prev_hash: anchorPrevHash })
        .execute();
      await sql`select set_config('scanhub.audit_retention', 'on', true)`.execute(trx);
      const result = await trx
        .deleteFrom('audit_events')
        .where('id', '<', String(newAnchor) as never)
        .executeTakeFirst();
      return {
        deleted: Number(result.numDeletedRows),
        anchor: { id: String(newAnchor), prev_hash: anchorPrevHash },
      };
    });
    if (!step) break;
    deleted += step.deleted;
  }
  const chain = await db.selectFrom('audit_chain').selectAll().executeTakeFirstOrThrow();
  const anchor = { id: String(chain.anchor_id), prev_hash: chain.anchor_prev_hash };
  if (deleted > 0) {
    await db.transaction().execute((trx) =>
      recordAudit(trx, systemAuditContext('audit retention'), {
        action: 'audit.retention_applied',
        target: { type: 'audit_chain', id: anchor.id },
        details: {
          deleted,
          retention_days: options.retentionDays,
          cutoff: cutoff.toISOString(),
          anchor_id: anchor.id,
          // Not named *_hash: the masking function would take a chain hash for a password's.
          anchor_links_to: anchor.prev_hash,
        },
      }),
    );
  }
  return { deleted, anchor };
}
