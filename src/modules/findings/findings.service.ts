import type { Concern, ConcernFilter } from '../../domain/findings/concern.ts';
import type { Kysely } from 'kysely';
import { DISMISSAL_REASONS, type DismissalReason } from '../../domain/findings/dismissal.ts';
import { parseId, whereAccessible } from '../../access/access.ts';
import type { InApplication, ResolvedInApplication, VersionRow } from '../../access/resources.ts';
import type { Principal } from '../../access/principal.ts';
import type { DB, FindingStatus, SeverityName } from '../../db/schema.ts';
import { badRequest, notFound, type ValidationIssue } from '../../errors.ts';
import { presentFinding, presentFindingIssue, presentTimeline } from './findings.presenter.ts';
import {
  countFindings,
  findingById,
  findingPage,
  timelineRows,
  type FindingFilters,
  type FindingRow,
  type FindingSortColumn,
} from './findings.repository.ts';
import type {
  FindingDetailRecord,
  FindingList,
  FindingRecord,
  ListFindingsInput,
  TimelineEntryRecord,
  VersionFindingsInput,
} from './findings.schema.ts';
import { allowedNextStatuses, CLOSED_STATUSES, FINDING_STATUSES } from '../../domain/findings/lifecycle.ts';
import { SEVERITIES } from '../../domain/findings/severity.ts';

const DEFAULT_PER_PAGE = 50;
const MAX_PER_PAGE = 200;
const DEFAULT_VERSION_LIMIT = 1000;
const MAX_VERSION_LIMIT = 10_000;
const SORT_COLUMNS: Record<string, FindingSortColumn> = {
  severity: 'severity_rank',
  title: 'title',
  risk_score: 'risk_score',
  created_at: 'created_at',
  epss: 'epss',
};

/** Splits repeated and comma-separated values, checking each against `allowed`. */
function listParam<T extends string>(
  values: readonly string[] | undefined,
  allowed: readonly string[],
  path: string,
  issues: ValidationIssue[],
): T[] | undefined {
  if (values === undefined) return undefined;
  // Empty items (`severity=` or `high,`) are ignored: a form that sends an empty filter means "any".
  const items = values
    .flatMap((value) => value.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const wrong = items.filter((item) => !allowed.includes(item));
  if (wrong.length > 0) {
    issues.push({ path, message: `must be one of ${allowed.join(', ')} (got ${wrong.join(', ')})` });
    return undefined;
  }
  return items.length > 0 ? ([...new Set(items)] as T[]) : undefined;
}

/** Severity and status filters shared by the findings list and the version list; `closed` = fixed or false_positive. */
function severityAndStatus(
  query: { severity?: string[] | undefined; status?: string[] | undefined },
  issues: ValidationIssue[],
) {
  const severities = listParam<SeverityName>(query.severity, SEVERITIES, 'querystring.severity', issues);
  const statuses = listParam<FindingStatus | 'closed'>(
    query.status,
    [...FINDING_STATUSES, 'closed'],
    'querystring.status',
    issues,
  );
  const expanded = statuses?.flatMap((status): FindingStatus[] =>
    status === 'closed' ? [...CLOSED_STATUSES] : [status],
  );
  return { severities, statuses: expanded && [...new Set(expanded)] };
}

function throwIfInvalid(issues: ValidationIssue[]): void {
  if (issues.length > 0) throw badRequest('validation_failed', 'The request is invalid', issues);
}

function assigneeFilter(value: string | undefined, user: Principal, issues: ValidationIssue[]) {
  if (value === undefined) return undefined;
  if (value === 'me') {
    if (user.kind === 'user') return user.id;
    issues.push({ path: 'querystring.assignedTo', message: 'me names no one for an application token' });
    return undefined;
  }
  if (value === 'none') return 'none' as const;
  const id = parseId(value);
  if (id === null) issues.push({ path: 'querystring.assignedTo', message: 'must be me, none or a user id' });
  return id ?? undefined;
}

/**
 * The filters of GET /api/findings (list and exports alike), validated; 400 listing every bad one.
 * `now` is the clock `sla=breached|due_soon` reads.
 */
export function findingFilters(
  user: Principal,
  query: ListFindingsInput,
  now: Date = new Date(),
): FindingFilters {
  const issues: ValidationIssue[] = [];
  const { severities, statuses } = severityAndStatus(query, issues);
  const assignee = assigneeFilter(query.assigned_to, user, issues);
  const dismissalReasons = listParam<DismissalReason | 'none'>(
    query.dismissal_reason,
    [...DISMISSAL_REASONS, 'none'],
    'querystring.dismissal_reason',
    issues,
  );
  throwIfInvalid(issues);
  return {
    dismissalReasons,
    acceptanceId: query.acceptance_id,
    visible: (column) => whereAccessible(user, 'application', 'read', column),
    applicationId: query.application_id,
    versionId: query.application_version_id,
    versionName: query.version,
    severities,
    statuses,
    scannerTypeId: query.scanner_type_id,
    scanId: query.scan_id,
    newInScan: query.new_in_scan,
    assignee,
    search: query.search?.trim() || undefined,
    sla: query.sla !== undefined ? { filter: query.sla, at: now } : undefined,
    kev: query.kev,
    epssMin: query.epss_min,
    concern: concernOnly(query.concern),
  };
}

/** A list's concern filter: `all` (or none) selects both. */
const concernOnly = (filter: ConcernFilter | undefined): Concern | undefined =>
  filter === undefined || filter === 'all' ? undefined : filter;

/**
 * Findings of every application the caller may read (admins: all), filtered, sorted (ties by id)
 * and paged: one page query and one count query.
 */
export async function listFindings(
  db: Kysely<DB>,
  user: Principal,
  query: ListFindingsInput,
  now: Date = new Date(),
): Promise<FindingList> {
  const filters = findingFilters(user, query, now);
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  // The page and the count are independent: on PostgreSQL they run at once on two connections.
  const [rows, total] = await Promise.all([
    findingPage(db, filters, {
      sort: SORT_COLUMNS[query.sort_by ?? 'risk_score'] ?? 'risk_score',
      direction: query.order ?? 'desc',
      limit: perPage,
      offset: (page - 1) * perPage,
    }),
    countFindings(db, filters),
  ]);
  return {
    findings: rows.map((row) => presentFinding(row, now)),
    pagination: { page, perPage, total, totalPages: Math.ceil(total / perPage) },
  };
}

async function loadFinding(db: Kysely<DB>, id: number): Promise<FindingRow> {
  const row = await findingById(db, id);
  if (!row) throw notFound('Finding');
  return row;
}

/** A finding with every field and its timeline (oldest first, from a synthesized `created` entry). */
export async function findingDetail(
  db: Kysely<DB>,
  id: number,
  now: Date = new Date(),
): Promise<FindingDetailRecord> {
  const row = await loadFinding(db, id);
  const issue = await db
    .selectFrom('tracker_issues')
    .selectAll()
    .where('finding_id', '=', id)
    .orderBy('id')
    .executeTakeFirst();
  const finding = presentFinding(row, now);
  return {
    ...finding,
    timeline: presentTimeline(row, await timelineRows(db, id)),
    tracker_issue: presentFindingIssue(issue),
    allowed_next_statuses: [...allowedNextStatuses(finding.status)],
  };
}

export async function getFinding(
  db: Kysely<DB>,
  { id }: ResolvedInApplication,
): Promise<FindingDetailRecord> {
  return findingDetail(db, id);
}

export async function getTimeline(
  db: Kysely<DB>,
  { id }: ResolvedInApplication,
): Promise<TimelineEntryRecord[]> {
  const row = await loadFinding(db, id);
  return presentTimeline(row, await timelineRows(db, id));
}

/** Findings of one version (id or name), highest risk first, at most `limit` (default 1,000, max 10,000). */
export async function listVersionFindings(
  db: Kysely<DB>,
  user: Principal,
  { application: app, record: version }: InApplication<VersionRow>,
  query: VersionFindingsInput,
): Promise<FindingRecord[]> {
  const issues: ValidationIssue[] = [];
  const { severities, statuses } = severityAndStatus(query, issues);
  throwIfInvalid(issues);
  const rows = await findingPage(
    db,
    {
      visible: (column) => whereAccessible(user, 'application', 'read', column),
      applicationId: app.id,
      versionId: version.id,
      severities,
      statuses,
      concern: concernOnly(query.concern),
    },
    {
      sort: 'risk_score',
      direction: 'desc',
      limit: Math.min(query.limit ?? DEFAULT_VERSION_LIMIT, MAX_VERSION_LIMIT),
      offset: 0,
    },
  );
  const now = new Date();
  return rows.map((row) => presentFinding(row, now));
}
