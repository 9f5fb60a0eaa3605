import type { Kysely } from 'kysely';
import type { Principal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { OPEN_STATUSES } from '../../domain/findings/lifecycle.ts';
import { csvHeader, csvRow } from './findings-csv.presenter.ts';
import {
  mergeRule,
  resultOf,
  ruleIdOf,
  ruleOf,
  sarifRunEnd,
  sarifStart,
  type SarifRule,
} from './findings-sarif.presenter.ts';
import { presentFinding } from './findings.presenter.ts';
import { findingBatchAfter, toolsOf, type FindingFilters } from './findings.repository.ts';
import type { FindingRecord, ListFindingsInput } from './findings.schema.ts';
import { findingFilters } from './findings.service.ts';

/** Export formats of GET /api/findings, chosen by `Accept` or `format`. */
export const EXPORT_FORMATS = {
  csv: 'text/csv; charset=utf-8',
  sarif: 'application/sarif+json',
  ndjson: 'application/x-ndjson',
} as const;
export type ExportFormat = keyof typeof EXPORT_FORMATS;

const BATCH = 500;

/** Every finding the filters select, in id order, a batch at a time (memory stays flat). */
async function* walk(db: Kysely<DB>, filters: FindingFilters): AsyncGenerator<FindingRecord> {
  let after = 0;
  // One clock for the whole export, the one `sla=` filtered by.
  const now = filters.sla?.at ?? new Date();
  for (;;) {
    const rows = await findingBatchAfter(db, filters, after, BATCH);
    for (const row of rows) yield presentFinding(row, now);
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1]?.id ?? after;
  }
}

async function* csv(db: Kysely<DB>, filters: FindingFilters): AsyncGenerator<string> {
  yield csvHeader();
  for await (const finding of walk(db, filters)) yield csvRow(finding);
}

async function* ndjson(db: Kysely<DB>, filters: FindingFilters): AsyncGenerator<string> {
  for await (const finding of walk(db, filters)) yield `${JSON.stringify(finding)}\n`;
}

/** One run per tool; each run's rules are gathered while its results are written. */
async function* sarif(db: Kysely<DB>, filters: FindingFilters): AsyncGenerator<string> {
  yield sarifStart();
  const tools = await toolsOf(db, filters);
  for (const [index, tool] of tools.entries()) {
    yield `${index > 0 ? ',' : ''}{"columnKind":"utf16CodeUnits","results":[`;
    const rules = new Map<string, SarifRule>();
    let first = true;
    for await (const finding of walk(db, { ...filters, toolName: tool })) {
      const id = ruleIdOf(finding);
      const known = rules.get(id);
      if (known) mergeRule(known, finding);
      else rules.set(id, ruleOf(finding));
      yield `${first ? '' : ','}${JSON.stringify(resultOf(finding))}`;
      first = false;
    }
    yield sarifRunEnd(tool, rules.values());
  }
  yield ']}';
}

/**
 * The findings GET /api/findings selects, whole (no page, no 200 cap), as a stream of text chunks.
 * Filters are checked before the first chunk, so a bad filter is still a 400. SARIF lists open
 * and confirmed findings unless a status filter says otherwise: what code scanning should show.
 */
export function exportFindings(
  db: Kysely<DB>,
  user: Principal,
  query: ListFindingsInput,
  format: ExportFormat,
): AsyncGenerator<string> {
  const filters = findingFilters(user, query);
  if (format === 'csv') return csv(db, filters);
  if (format === 'ndjson') return ndjson(db, filters);
  return sarif(db, { ...filters, statuses: filters.statuses ?? [...OPEN_STATUSES] });
}

/** The export an `Accept` header or `format` parameter asks for; undefined → the paged JSON list. */
export function exportFormatOf(
  accept: string | undefined,
  format: string | undefined,
): ExportFormat | undefined {
  if (format === 'csv' || format === 'sarif' || format === 'ndjson') return format;
  if (format === 'json') return undefined; // asked for by name: the page, whatever Accept says
  const wanted = (accept ?? '').toLowerCase();
  if (wanted.includes('text/csv')) return 'csv';
  if (wanted.includes('application/sarif+json')) return 'sarif';
  if (wanted.includes('application/x-ndjson')) return 'ndjson';
  return undefined;
}

/**
 * An export is an audit row of its own (who took which findings out, in what format), written once
 * its filters are accepted and before the first byte, so an export cut short is still on record.
 */
export async function recordFindingsExport(
  db: Kysely<DB>,
  audit: AuditContext,
  query: ListFindingsInput,
  format: ExportFormat,
): Promise<void> {
  const scope = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined));
  const applicationId = Number((query as { application_id?: unknown }).application_id);
  await db.transaction().execute((trx) =>
    recordAudit(trx, audit, {
      action: 'findings.exported',
      target: { type: 'findings', label: format },
      applicationId: Number.isInteger(applicationId) && applicationId > 0 ? applicationId : null,
      details: { format, scope },
    }),
  );
}
