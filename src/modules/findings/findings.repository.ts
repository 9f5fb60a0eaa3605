import type { Concern } from '../../domain/findings/concern.ts';
import {
  expressionBuilder,
  sql,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type SqlBool,
} from 'kysely';
import type { DB, FindingStatus, SeverityName } from '../../db/schema.ts';
import type { DismissalReason } from '../../domain/findings/dismissal.ts';
import { effectiveEpssSql } from '../../domain/findings/effective-epss.ts';
import { FINDING_STATUSES } from '../../domain/findings/lifecycle.ts';
import { effectiveDueDateSql, slaFilterSql } from '../../domain/findings/sla.ts';
import { publishedOnly } from '../../domain/findings/unpublished-scans.ts';

/** What the findings list and the version list may filter on; every part is optional. */
export interface FindingFilters {
  /**
   * Which applications the caller may read (from `whereAccessible`), as a condition on the
   * given application id column: the findings' own, or that of the counts ledger.
   */
  visible: (applicationIdColumn: string) => Expression<SqlBool>;
  applicationId?: number | undefined;
  versionId?: number | undefined;
  severities?: readonly SeverityName[] | undefined;
  statuses?: readonly FindingStatus[] | undefined;
  /** Security or code-quality findings only; absent: both (domain/findings/concern.ts). */
  concern?: Concern | undefined;
  scannerTypeId?: number | undefined;
  /** First or last scan. */
  scanId?: number | undefined;
  /** Made new by this scan: first reported by it, or reopened by it (a `fixed` finding that came back). */
  newInScan?: number | undefined;
  /** Version by name (of the finding's own application). */
  versionName?: string | undefined;
  /** Tool (SARIF driver name) that reported the finding. */
  toolName?: string | undefined;
  /** A user id, or `none` for unassigned findings. */
  assignee?: number | 'none' | undefined;
  /** Case-insensitive substring of title, file path or rule id. */
  search?: string | undefined;
  /** Open findings past due, or due within a week, at `at` (domain/findings/sla.ts). */
  sla?: { filter: 'breached' | 'due_soon'; at: Date } | undefined;
  /** Dismissal reasons of false positives (`none`: dismissed without one). */
  dismissalReasons?: readonly (DismissalReason | 'none')[] | undefined;
  /** Covered by this acceptance. */
  acceptanceId?: number | undefined;
  /** Listed in CISA KEV (true) or not (false). */
  kev?: boolean | undefined;
  /** EPSS at least this (0–1). */
  epssMin?: number | undefined;
}

export type FindingSortColumn = 'severity_rank' | 'title' | 'risk_score' | 'created_at' | 'epss';

export interface FindingPage {
  sort: FindingSortColumn;
  direction: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** LIKE pattern matching `text` literally anywhere (backslash is PostgreSQL's default LIKE escape). */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * The filters on the columns `findings` and the `finding_counts` ledger share (visibility,
 * application, version, severity, status), on either table: the list and the ledger's total select
 * by the same rules.
 */
function keyConditions(filters: FindingFilters, table: 'findings' | 'finding_counts'): Expression<SqlBool>[] {
  const column = (name: string) => sql.ref(`${table}.${name}`);
  const conditions: Expression<SqlBool>[] = [filters.visible(`${table}.application_id`)];
  if (filters.applicationId !== undefined)
    conditions.push(sql<SqlBool>`${column('application_id')} = ${filters.applicationId}`);
  if (filters.versionId !== undefined)
    conditions.push(sql<SqlBool>`${column('version_id')} = ${filters.versionId}`);
  if (filters.severities?.length)
    conditions.push(sql<SqlBool>`${column('severity')} in (${sql.join([...filters.severities])})`);
  if (filters.statuses?.length)
    conditions.push(sql<SqlBool>`${column('status')} in (${sql.join([...filters.statuses])})`);
  if (filters.concern !== undefined) conditions.push(sql<SqlBool>`${column('concern')} = ${filters.concern}`);
  return conditions;
}

function filterCondition(db: Kysely<DB>, filters: FindingFilters): Expression<SqlBool> {
  const eb = expressionBuilder<DB, 'findings'>();
  // The ledger leaves out the same findings by itself (it counts a finding once its scan completes).
  const conditions = [...keyConditions(filters, 'findings'), ...publishedOnly(db, 'findings.first_scan_id')];
  if (filters.scannerTypeId !== undefined)
    conditions.push(eb('findings.scanner_type_id', '=', filters.scannerTypeId));
  if (filters.scanId !== undefined) {
    // Found or last seen by that scan: new in it, recorded on the row, or present in a scope whose
    // latest scan it is. The version bound keeps the scan to its own version's rows.
    const scanId = filters.scanId;
    conditions.push(
      sql<SqlBool>`findings.version_id = (select version_id from scans where id = ${scanId}) and (
        findings.first_scan_id = ${scanId} or findings.last_scan_id = ${scanId}
        or (findings.present and exists (select 1 from finding_scopes fs where fs.last_scan_id = ${scanId}
          and fs.version_id = findings.version_id and fs.scanner_type_id = findings.scanner_type_id
          and fs.tool_name = findings.tool_name and fs.category = findings.category)))`,
    );
  }
  if (filters.newInScan !== undefined) {
    const scanId = filters.newInScan;
    conditions.push(
      sql<SqlBool>`findings.version_id = (select version_id from scans where id = ${scanId}) and (
        findings.first_scan_id = ${scanId} or exists (select 1 from finding_events fe
          where fe.finding_id = findings.id and fe.type = 'reopened' and fe.scan_id = ${scanId}))`,
    );
  }
  if (filters.versionName !== undefined) {
    const name = filters.versionName;
    conditions.push(
      sql<SqlBool>`findings.version_id in (select v.id from application_versions v
        where v.application_id = findings.application_id and v.name = ${name})`,
    );
  }
  if (filters.toolName !== undefined) conditions.push(eb('findings.tool_name', '=', filters.toolName));
  if (filters.sla !== undefined) conditions.push(slaFilterSql(filters.sla.filter, filters.sla.at));
  if (filters.assignee === 'none') conditions.push(eb('findings.assignee_id', 'is', null));
  else if (filters.assignee !== undefined) conditions.push(eb('findings.assignee_id', '=', filters.assignee));
  if (filters.dismissalReasons?.length) {
    const reasons = filters.dismissalReasons.filter((reason) => reason !== 'none');
    conditions.push(
      eb.and([
        eb('findings.status', '=', 'false_positive'),
        eb.or([
          ...(reasons.length > 0 ? [eb('findings.dismissal_reason', 'in', reasons)] : []),
          ...(filters.dismissalReasons.includes('none') ? [eb('findings.dismissal_reason', 'is', null)] : []),
        ]),
      ]),
    );
  }
  if (filters.kev !== undefined) conditions.push(eb('findings.in_kev', '=', filters.kev));
  if (filters.epssMin !== undefined) {
    const epssMin = filters.epssMin;
    // The value the API shows (effective-epss.ts): the finding's EPSS row, else the report's own.
    conditions.push(
      sql<SqlBool>`(exists (select 1 from finding_epss e where e.finding_id = findings.id and e.epss >= ${epssMin})
        or (findings.report_epss >= ${epssMin}
          and not exists (select 1 from finding_epss e where e.finding_id = findings.id)))`,
    );
  }
  if (filters.acceptanceId !== undefined) {
    conditions.push(eb('findings.acceptance_id', '=', filters.acceptanceId));
  }
  if (filters.search) {
    const pattern = containsPattern(filters.search);
    conditions.push(
      eb.or([
        eb('findings.title', 'ilike', pattern),
        eb('findings.file_path', 'ilike', pattern),
        eb('findings.rule_id', 'ilike', pattern),
      ]),
    );
  }
  return eb.and(conditions);
}

/**
 * Findings with their scanner type name, assignee and last sighting, in one statement. A present
 * finding was last seen by its scope's latest scan (see the finding_scopes migration); an absent
 * one keeps the sighting stored on its row.
 */
function findingsQuery(db: Kysely<DB>) {
  return db
    .selectFrom('findings')
    .innerJoin('scanner_types', 'scanner_types.id', 'findings.scanner_type_id')
    .leftJoin('users as assignee', 'assignee.id', 'findings.assignee_id')
    .leftJoin('finding_scopes as scope', (join) =>
      join
        .onRef('scope.version_id', '=', 'findings.version_id')
        .onRef('scope.scanner_type_id', '=', 'findings.scanner_type_id')
        .onRef('scope.tool_name', '=', 'findings.tool_name')
        .onRef('scope.category', '=', 'findings.category'),
    )
    .leftJoin('finding_epss', 'finding_epss.finding_id', 'findings.id')
    .leftJoin('finding_sla_due', 'finding_sla_due.finding_id', 'findings.id')
    .selectAll('findings')
    .select([
      // The due date in force (a recompute's overlay, domain/findings/sla.ts), under the column's own
      // name: selected after `findings.*`, the later column of the name is the one a row keeps
      // (node-postgres and PGlite both).
      effectiveDueDateSql('findings', 'finding_sla_due').as('due_date'),
      // EPSS is read from its narrow table (migration 2026-11-29T1600), under the names it is presented by.
      'finding_epss.epss as epss',
      'finding_epss.percentile as epss_percentile',
      'finding_epss.snapshot_id as epss_snapshot_id',
      'scanner_types.name as scanner_type_name',
      'assignee.email as assignee_email',
      'assignee.name as assignee_name',
      sql<Date>`case when findings.present and scope.last_seen_at > findings.last_seen_at
        then scope.last_seen_at else findings.last_seen_at end`.as('seen_at'),
      sql<number | null>`case when findings.present and scope.last_seen_at > findings.last_seen_at
        then scope.last_scan_id else findings.last_scan_id end`.as('seen_scan_id'),
    ]);
}

export type FindingRow = Awaited<ReturnType<ReturnType<typeof findingsQuery>['executeTakeFirstOrThrow']>>;

/**
 * One page of findings; ties are broken by id in the same direction, so pages never overlap.
 *
 * By risk (the default), no index holds several statuses in page order, so PostgreSQL would sort
 * every matching finding for one page (0.8 s for 200k). Each status is in risk order in its own
 * indexes ((application_id, status, risk_score), (status, risk_score), (assignee_id, status,
 * risk_score)), so the page is cut from the first `offset + limit` (id, risk) of each status,
 * merged: the page's rows are among them whichever status they have, so the page is the same,
 * read from far fewer rows, and only its own rows are joined. A caller who reads a few of the
 * applications walks each of them apart (`readsPerApplication`, `perApplicationStream`).
 */
export async function findingPage(
  db: Kysely<DB>,
  filters: FindingFilters,
  page: FindingPage,
): Promise<FindingRow[]> {
  if (page.sort === 'risk_score') {
    const perApplication = await readsPerApplication(db, filters);
    const streams = (filters.statuses ?? FINDING_STATUSES).map((status) =>
      perApplication
        ? perApplicationStream(db, filters, status, page)
        : riskStream(db, filters, status, page),
    );
    const candidates = sql.join(
      streams.map((stream, index) => sql`(select * from (${stream}) as ${sql.id(`status_${index}`)})`),
      sql` union all `,
    );
    // The page is cut from the narrow (id, risk) candidates; only its own rows are joined and read.
    // `direction` is 'asc' or 'desc' by its type, so it may be spliced in as a keyword.
    const direction = sql.raw(page.direction);
    const pageIds = sql<{ id: number }>`(select id from (${candidates}) as candidates
      order by risk_score ${direction}, id ${direction} limit ${page.limit} offset ${page.offset})`;
    return findingsQuery(db)
      .innerJoin(pageIds.as('page'), 'page.id', 'findings.id')
      .orderBy('findings.risk_score', page.direction)
      .orderBy('findings.id', page.direction)
      .execute();
  }
  if (page.sort === 'epss') return epssPage(db, filters, page);
  return findingsQuery(db)
    .where(filterCondition(db, filters))
    .orderBy(`findings.${page.sort}`, page.direction)
    .orderBy('findings.id', page.direction)
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/**
 * The first `offset + limit` (id, risk) of one status in risk order, ties by id: one walk of
 * `findings_status_risk_idx` (or of the application's or assignee's risk index when filtered so).
 */
function riskStream(db: Kysely<DB>, filters: FindingFilters, status: FindingStatus, page: FindingPage) {
  return db
    .selectFrom('findings')
    .select(['findings.id', 'findings.risk_score'])
    .where(filterCondition(db, { ...filters, statuses: [status] }))
    .orderBy('findings.risk_score', page.direction)
    .orderBy('findings.id', page.direction)
    .limit(page.offset + page.limit);
}

/**
 * The same candidates, read per readable application: for each, the first `offset + limit` of the
 * status in `findings_app_status_risk_idx` (application_id, status, risk_score desc, id desc), merged
 * and cut again. The global walk of `findings_status_risk_idx` reads every application's findings
 * in risk order and drops those of applications the caller may not read, from the table: a member
 * reading 10 of 50 applications read 10,540 rows for 27 at 10M findings (issue 44). Per application,
 * it reads at most `offset + limit` index entries of each.
 */
function perApplicationStream(
  db: Kysely<DB>,
  filters: FindingFilters,
  status: FindingStatus,
  page: FindingPage,
) {
  const first = page.offset + page.limit;
  // The readable applications are chosen outside; inside, each walk is bound to one of them.
  const inner = db
    .selectFrom('findings')
    .select(['findings.id', 'findings.risk_score'])
    .where(filterCondition(db, { ...filters, visible: () => sql<SqlBool>`true`, statuses: [status] }))
    .where(sql<SqlBool>`findings.application_id = readable.id`)
    .orderBy('findings.risk_score', page.direction)
    .orderBy('findings.id', page.direction)
    .limit(first);
  const direction = sql.raw(page.direction);
  return sql<{ id: number; risk_score: number }>`select walk.id, walk.risk_score
    from applications readable cross join lateral (${inner}) as walk
    where ${filters.visible('readable.id')}
    order by walk.risk_score ${direction}, walk.id ${direction} limit ${first}`;
}

/** Above this many readable applications, one walk per application costs more than it saves. */
export const PER_APPLICATION_MAX = 100;

/**
 * Whether a page by risk is read per readable application: when the caller reads some applications
 * but not all (a member's grants), at most `PER_APPLICATION_MAX`, and no filter already bounds the
 * walk to one application or to an assignee's own index. Admins (and members who read everything)
 * keep the one walk, in which every finding read is one they may see.
 */
async function readsPerApplication(db: Kysely<DB>, filters: FindingFilters): Promise<boolean> {
  if (filters.applicationId !== undefined || filters.versionId !== undefined) return false;
  if (typeof filters.assignee === 'number') return false;
  const counts = await db
    .selectFrom('applications as readable')
    .select([
      sql<number>`count(*) filter (where ${filters.visible('readable.id')})`.as('readable'),
      sql<number>`count(*)`.as('all'),
    ])
    .executeTakeFirstOrThrow();
  const readable = Number(counts.readable);
  return readable < Number(counts.all) && readable <= PER_APPLICATION_MAX;
}

/**
 * One page by EPSS, the value the API shows (effective-epss.ts): findings with one in EPSS order,
 * ties by id, then those without one by id, whichever the direction (nulls last). The value is in
 * one of two places, each ordered per application by an index: the finding's `finding_epss` row
 * ((application_id, epss, finding_id), migration 2026-11-29T1600), else the report's own
 * (`findings_report_epss`, partial: only findings with a report EPSS, migration 2026-11-30T1210).
 * So the three parts — the rows, the report's values of findings without a row, and those with
 * neither — are read apart, each cut to the first `offset + limit`, and the page is cut from their
 * union, as by risk above.
 */
async function epssPage(db: Kysely<DB>, filters: FindingFilters, page: FindingPage): Promise<FindingRow[]> {
  const first = page.offset + page.limit;
  const noRow = ({ not, exists, selectFrom }: ExpressionBuilder<DB, 'findings'>) =>
    not(
      exists(
        selectFrom('finding_epss as fe')
          .select('fe.finding_id')
          .whereRef('fe.finding_id', '=', 'findings.id'),
      ),
    );
  const scored = db
    .selectFrom('findings')
    // The application named twice, so a filter by application reaches the narrow table's index.
    .innerJoin('finding_epss as fe', (join) =>
      join
        .onRef('fe.finding_id', '=', 'findings.id')
        .onRef('fe.application_id', '=', 'findings.application_id'),
    )
    .select(['findings.id', 'fe.epss'])
    .where(filterCondition(db, filters))
    .orderBy('fe.epss', page.direction)
    .orderBy('findings.id', page.direction)
    .limit(first);
  const reported = db
    .selectFrom('findings')
    .select(['findings.id', 'findings.report_epss as epss'])
    .where(filterCondition(db, filters))
    .where('findings.report_epss', 'is not', null)
    .where(noRow)
    .orderBy('findings.report_epss', page.direction)
    .orderBy('findings.id', page.direction)
    .limit(first);
  const tail = db
    .selectFrom('findings')
    .select(['findings.id', sql<number | null>`null::float8`.as('epss')])
    .where(filterCondition(db, filters))
    .where('findings.report_epss', 'is', null)
    .where(noRow)
    .orderBy('findings.id', page.direction)
    .limit(first);
  // `direction` is 'asc' or 'desc' by its type, so it may be spliced in as a keyword.
  const direction = sql.raw(page.direction);
  const pageIds = sql<{ id: number }>`(select id from
      ((select * from (${scored}) as scored) union all (select * from (${reported}) as reported)
        union all (select * from (${tail}) as tail)) as candidates
    order by epss ${direction} nulls last, id ${direction} limit ${page.limit} offset ${page.offset})`;
  return findingsQuery(db)
    .innerJoin(pageIds.as('page'), 'page.id', 'findings.id')
    .orderBy(sql`${effectiveEpssSql('findings', 'finding_epss')} ${direction} nulls last`)
    .orderBy('findings.id', page.direction)
    .execute();
}

/**
 * Keyset batch for exports: up to `limit` findings with an id above `afterId`, in id order. An
 * export walks the whole result this way, so memory stays flat and no row is skipped or repeated
 * when findings are added while it runs.
 */
export async function findingBatchAfter(
  db: Kysely<DB>,
  filters: FindingFilters,
  afterId: number,
  limit: number,
): Promise<FindingRow[]> {
  return findingsQuery(db)
    .where(filterCondition(db, filters))
    .where('findings.id', '>', afterId)
    .orderBy('findings.id')
    .limit(limit)
    .execute();
}

/** The tools (SARIF driver names) among the findings a filter selects, for one SARIF run each. */
export async function toolsOf(db: Kysely<DB>, filters: FindingFilters): Promise<string[]> {
  const rows = await db
    .selectFrom('findings')
    .select('findings.tool_name')
    .distinct()
    .where(filterCondition(db, filters))
    .orderBy('findings.tool_name')
    .execute();
  return rows.map((row) => row.tool_name);
}

/** The filters `finding_counts` answers: its keys, and visibility (per application, as a version is). */
const LEDGER_FILTERS: ReadonlySet<string> = new Set([
  'visible',
  'applicationId',
  'versionId',
  'severities',
  'statuses',
  'concern',
]);

/**
 * Whether the ledger can count what `filters` select. Listed by what it answers, not by what it
 * does not: a filter added later is counted exactly (`count(*)`) until someone decides otherwise.
 */
function countableFromLedger(filters: FindingFilters): boolean {
  return Object.entries(filters).every(([name, value]) => LEDGER_FILTERS.has(name) || value === undefined);
}

/**
 * How many findings a filter selects, exactly. Filters on application, version, severity and status
 * only (the large totals: everything an admin sees, one status across every application) are summed
 * from the `finding_counts` ledger, a few hundred rows whatever the number of findings; the ledger
 * is written in the same transaction as the findings, so the sum is the count this snapshot would
 * give. Any other filter counts the findings it selects, which its index keeps narrow.
 */
export async function countFindings(db: Kysely<DB>, filters: FindingFilters): Promise<number> {
  if (countableFromLedger(filters)) {
    const row = await db
      .selectFrom('finding_counts')
      .select(sql<number>`coalesce(sum(finding_counts.findings), 0)::bigint`.as('total'))
      .where((eb) => eb.and(keyConditions(filters, 'finding_counts')))
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }
  const row = await db
    .selectFrom('findings')
    .select((eb) => eb.fn.countAll().as('total'))
    .where(filterCondition(db, filters))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

export async function findingById(db: Kysely<DB>, id: number): Promise<FindingRow | undefined> {
  return findingsQuery(db)
    .where('findings.id', '=', id)
    .where((eb) => eb.and(publishedOnly(db, 'findings.first_scan_id')))
    .executeTakeFirst();
}

/** Findings by id, in id order (event payloads). */
export async function findingsByIds(db: Kysely<DB>, ids: readonly number[]): Promise<FindingRow[]> {
  if (ids.length === 0) return [];
  return findingsQuery(db)
    .where('findings.id', 'in', [...ids])
    .orderBy('findings.id')
    .execute();
}

/** Timeline rows of a finding, oldest first, with the acting user. */
export async function timelineRows(db: Kysely<DB>, findingId: number) {
  return db
    .selectFrom('finding_events as event')
    .leftJoin('users as actor', 'actor.id', 'event.actor_user_id')
    .selectAll('event')
    .select(['actor.email as actor_email', 'actor.name as actor_name'])
    .where('event.finding_id', '=', findingId)
    .orderBy('event.id')
    .execute();
}

export type TimelineRow = Awaited<ReturnType<typeof timelineRows>>[number];
