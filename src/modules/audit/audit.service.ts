import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { ChainRow } from '../../events/audit-chain.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { iso } from '../../http/schemas.ts';
import { csvCell } from '../findings/findings-csv.presenter.ts';
import type { AuditEventRecord, ListAuditEventsInput } from './audit.schema.ts';

/** Reading the audit trail: filtered pages (newest first, keyset) and uncapped exports (oldest first). */

type AuditQuery = SelectQueryBuilder<DB, 'audit_events', object>;

function filtered(db: Kysely<DB>, query: ListAuditEventsInput): AuditQuery {
  let select = db.selectFrom('audit_events') as AuditQuery;
  if (query.actor_type !== undefined) select = select.where('actor_type', '=', query.actor_type);
  if (query.actor_id !== undefined) select = select.where('actor_id', '=', query.actor_id);
  if (query.action !== undefined) {
    select = query.action.endsWith('.*')
      ? select.where('action', 'like', `${query.action.slice(0, -1)}%`)
      : select.where('action', '=', query.action);
  }
  if (query.target_type !== undefined) select = select.where('target_type', '=', query.target_type);
  if (query.target_id !== undefined) select = select.where('target_id', '=', query.target_id);
  if (query.application_id !== undefined) select = select.where('application_id', '=', query.application_id);
  if (query.since !== undefined) select = select.where('occurred_at', '>=', new Date(query.since));
  if (query.until !== undefined) select = select.where('occurred_at', '<', new Date(query.until));
  return select;
}

const COLUMNS = [
  sql<string>`audit_events.id::text`.as('id'),
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
  'changes',
  'details',
  'prev_hash',
  'hash',
] as const;

/** A row as the API reads it: the chain's row with its jsonb columns parsed, not as hashed text. */
type AuditRow = Omit<ChainRow, 'changes_text' | 'details_text'> & { changes: unknown; details: unknown };

function present(row: AuditRow): AuditEventRecord {
  return {
    id: row.id,
    occurred_at: iso(row.occurred_at),
    actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
    action: row.action,
    target: { type: row.target_type, id: row.target_id, label: row.target_label },
    application_id: row.application_id,
    request_id: row.request_id,
    ip: row.ip,
    user_agent: row.user_agent,
    changes: (row.changes as Record<string, unknown> | null) ?? null,
    details: (row.details as Record<string, unknown> | null) ?? null,
    prev_hash: row.prev_hash,
    hash: row.hash,
  };
}

const DEFAULT_LIMIT = 50;

/** A page, newest first; `next_cursor` continues below its last id (stable while rows are appended). */
export async function listAuditEvents(
  db: Kysely<DB>,
  query: ListAuditEventsInput,
): Promise<{ items: AuditEventRecord[]; next_cursor: string | null }> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  let select = filtered(db, query);
  if (query.cursor !== undefined) select = select.where('audit_events.id', '<', query.cursor as never);
  const rows = (await select
    .select(COLUMNS)
    .orderBy('audit_events.id', 'desc')
    .limit(limit + 1)
    .execute()) as AuditRow[];
  const items = rows.slice(0, limit).map(present);
  return { items, next_cursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
}

/** Up to `limit` events after the id `afterId`, oldest first (the forwarder to SIEM webhooks reads these). */
export async function auditEventsAfter(
  executor: Kysely<DB>,
  afterId: string,
  limit: number,
): Promise<AuditEventRecord[]> {
  const rows = (await executor
    .selectFrom('audit_events')
    .select(COLUMNS)
    .where('audit_events.id', '>', afterId as never)
    .orderBy('audit_events.id')
    .limit(limit)
    .execute()) as AuditRow[];
  return rows.map(present);
}

const BATCH = 1000;

/** Every matching event, oldest first, a batch at a time (memory stays flat, no cap). */
async function* walk(db: Kysely<DB>, query: ListAuditEventsInput): AsyncGenerator<AuditEventRecord> {
  let after = '0';
  for (;;) {
    const rows = (await filtered(db, query)
      .where('audit_events.id', '>', after as never)
      .select(COLUMNS)
      .orderBy('audit_events.id')
      .limit(BATCH)
      .execute()) as AuditRow[];
    for (const row of rows) yield present(row);
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1]!.id;
  }
}

export const AUDIT_EXPORT_FORMATS = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson',
} as const;
export type AuditExportFormat = keyof typeof AUDIT_EXPORT_FORMATS;

const CSV_COLUMNS: readonly (readonly [string, (event: AuditEventRecord) => string | number | null])[] = [
  ['id', (e) => e.id],
  ['occurred_at', (e) => e.occurred_at],
  ['actor_type', (e) => e.actor.type],
  ['actor_id', (e) => e.actor.id],
  ['actor_label', (e) => e.actor.label],
  ['action', (e) => e.action],
  ['target_type', (e) => e.target.type],
  ['target_id', (e) => e.target.id],
  ['target_label', (e) => e.target.label],
  ['application_id', (e) => e.application_id],
  ['request_id', (e) => e.request_id],
  ['ip', (e) => e.ip],
  ['user_agent', (e) => e.user_agent],
  ['changes', (e) => (e.changes ? JSON.stringify(e.changes) : null)],
  ['details', (e) => (e.details ? JSON.stringify(e.details) : null)],
  ['prev_hash', (e) => e.prev_hash],
  ['hash', (e) => e.hash],
];

/** The export: NDJSON (one event a line) or CSV (RFC 4180, the findings export's formula neutralisation). */
export async function* exportAuditEvents(
  db: Kysely<DB>,
  query: ListAuditEventsInput,
  format: AuditExportFormat,
): AsyncGenerator<string> {
  if (format === 'csv') yield `${CSV_COLUMNS.map(([name]) => name).join(',')}\r\n`;
  for await (const event of walk(db, query)) {
    yield format === 'csv'
      ? `${CSV_COLUMNS.map(([, read]) => csvCell(read(event))).join(',')}\r\n`
      : `${JSON.stringify(event)}\n`;
  }
}

/** Exporting the trail is itself on the trail: who took which part of it out, in what format. */
export async function recordAuditExport(
  db: Kysely<DB>,
  audit: AuditContext,
  query: ListAuditEventsInput,
  format: AuditExportFormat,
): Promise<void> {
  const { format: _format, limit: _limit, cursor: _cursor, ...filters } = query;
  const scope = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined));
  await db.transaction().execute((trx) =>
    recordAudit(trx, audit, {
      action: 'audit_events.exported',
      target: { type: 'audit_events', label: format },
      details: { format, scope },
    }),
  );
}
