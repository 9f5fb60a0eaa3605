import { TrackerIssueSchema } from '../issue-trackers/issue-trackers.schema.ts';
import { Type, type Static } from 'typebox';
import { DISMISSAL_REASONS } from '../../domain/findings/dismissal.ts';
import { EXPLOITATION_SOURCES } from '../../domain/findings/risk.ts';
import { FINDING_STATUSES } from '../../domain/findings/lifecycle.ts';
import { SEVERITIES } from '../../domain/findings/severity.ts';
import { Nullable, NullableTimestamp, Timestamp } from '../../http/schemas.ts';

export const SeveritySchema = Type.Enum(SEVERITIES);
export const FindingStatusSchema = Type.Enum(FINDING_STATUSES);
export const DismissalReasonSchema = Type.Enum(DISMISSAL_REASONS);

export const UserSummarySchema = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    name: Type.String(),
  },
  { title: 'UserSummary' },
);
export type UserSummary = Static<typeof UserSummarySchema>;

const LocationSchema = Type.Object({
  file_path: Nullable(Type.String()),
  line: Nullable(Type.Integer()),
  column: Nullable(Type.Integer()),
  end_line: Nullable(Type.Integer()),
});

const RiskSchema = Type.Object(
  {
    score: Type.Integer({ description: 'Risk score 0–100' }),
    formula_version: Type.Integer(),
    /** S: severity 0–10 (CVSS, else the tool score, else the severity default). */
    severity: Type.Number(),
    /** X: exploitation 0–1 (KEV, EPSS band; 0.2 without a CVE). */
    exploitation: Type.Number(),
    /** G: age pressure 0–1, days open over the severity's SLA days. */
    age: Type.Number(),
    /** M: asset criticality weight 0.45–1. */
    asset: Type.Number(),
    /**
     * Where X came from: `kev` (listed in CISA KEV: exploitation certain, X = 1.0), `epss_snapshot`
     * (the imported EPSS snapshot), `epss_report` (the scanner's report; no snapshot knows the CVE),
     * `no_epss` (a CVE, no EPSS known), `no_cve`.
     */
    exploitation_source: Type.Enum(EXPLOITATION_SOURCES),
    /** The exploitation part in words (`Listed in CISA KEV: exploitation is certain (X = 1.0).`). */
    exploitation_explanation: Type.String(),
  },
  { description: 'round(100 × asset × (0.60·severity/10 + 0.30·exploitation + 0.10·age))' },
);

/** A finding as the list, the version list and the detail return it (the detail adds `timeline`). */
export const FindingSchema = Type.Object(
  {
    id: Type.Integer(),
    application_id: Type.Integer(),
    version_id: Type.Integer(),
    /** The scan that last reported the finding. */
    scan_id: Nullable(Type.Integer()),
    first_scan_id: Nullable(Type.Integer()),
    scanner_type_id: Type.Integer(),
    /** Scanner type name (`sarif`, `trivy`, ...). */
    scanner_type: Type.String(),
    /** Name of the tool that reported the finding (e.g. the SARIF driver name). */
    scanner: Type.String(),
    tool_version: Nullable(Type.String()),
    kind: Type.String(),
    /**
     * `security` or `quality` (a code-quality result: left out of the dashboard's security figures,
     * SLA due dates and CI gates unless asked for). Set by the parser from the rule's marks and the tool.
     */
    concern: Type.Enum(['security', 'quality']),
    category: Type.String(),
    title: Type.String(),
    severity: SeveritySchema,
    status: FindingStatusSchema,
    description: Nullable(Type.String()),
    remediation: Nullable(Type.String()),
    rule_id: Nullable(Type.String()),
    location: LocationSchema,
    file_path: Nullable(Type.String()),
    line: Nullable(Type.Integer()),
    snippet: Nullable(Type.String()),
    package_name: Nullable(Type.String()),
    package_version: Nullable(Type.String()),
    fixed_version: Nullable(Type.String()),
    cve_ids: Type.Array(Type.String()),
    /** The primary CWE; all of them are in `cwe_ids`. */
    cwe_id: Nullable(Type.Integer()),
    cwe_ids: Type.Array(Type.Integer()),
    cvss_score: Nullable(Type.Number()),
    cvss_vector: Nullable(Type.String()),
    /** Links (advisories, rule help) followed by the CVE ids not already among them. */
    references: Type.Array(Type.String()),
    fingerprint: Type.String(),
    /** Why a `false_positive` is one: `false_positive`, `accepted_risk`, `wont_fix`, `used_in_tests`; null when not said. */
    dismissal_reason: Nullable(DismissalReasonSchema),
    /** The comment given with the dismissal. */
    dismissal_comment: Nullable(Type.String()),
    /** The acceptance covering this finding (GET /api/acceptances/{id}); null when none does. While set, the finding is covered: it stays `false_positive` until the acceptance ends. */
    acceptance_id: Nullable(Type.Integer()),
    /**
     * EPSS of its most likely exploited CVE (probability of exploitation in the next 30 days): the
     * imported snapshot's when one knows its CVEs, else the scanner report's own (`enrichment.epss_source`).
     */
    epss: Nullable(Type.Number()),
    /** That CVE's EPSS percentile, 0–1. */
    epss_percentile: Nullable(Type.Number()),
    /** The EPSS the scanner's report gave (Grype `epss[]`), kept as the report states it, whether or not a snapshot overrides it. */
    report_epss: Nullable(Type.Number()),
    report_epss_percentile: Nullable(Type.Number()),
    in_kev: Type.Boolean(),
    /** CISA KEV listing of one of its CVEs (earliest due date), or null. */
    kev: Nullable(
      Type.Object({
        date_added: Type.String({ format: 'date' }),
        due_date: Type.String({ format: 'date' }),
        /** `knownRansomwareCampaignUse` is `Known`. */
        ransomware: Type.Boolean(),
      }),
    ),
    /** The snapshots (GET /api/enrichment/status) `epss` and `kev` came from; null: none (or the report's EPSS). */
    enrichment: Type.Object({
      epss_snapshot_id: Nullable(Type.Integer()),
      /** Where `epss` came from: `snapshot` (imported), `report` (the scanner's report; no snapshot knows the CVE), null: none. */
      epss_source: Nullable(Type.Enum(['snapshot', 'report'])),
      kev_snapshot_id: Nullable(Type.Integer()),
    }),
    risk_score: Type.Integer(),
    risk: RiskSchema,
    assignee_id: Nullable(Type.Integer()),
    assignee: Nullable(UserSummarySchema),
    due_date: NullableTimestamp,
    /** `sla`: from the application's SLA configuration (follows its changes); `manual`: set through triage. */
    due_date_source: Type.Enum(['sla', 'manual']),
    /**
     * Whole days until the due date (negative: days past it): for an open finding from now, for a
     * fixed one from when it was fixed; null without a due date or while dismissed (clock paused).
     */
    sla_days_remaining: Nullable(Type.Integer()),
    /** Past its due date: an open finding now, a fixed one when it was fixed (`sla_days_remaining` < 0). */
    sla_breached: Type.Boolean(),
    /** When `finding.sla_breached` was sent for it (once per finding), or null. */
    sla_breached_at: NullableTimestamp,
    reviewed_at: NullableTimestamp,
    reviewed_by: Nullable(Type.Integer()),
    first_seen_at: Timestamp,
    last_seen_at: Timestamp,
    fixed_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Finding' },
);
export type FindingRecord = Static<typeof FindingSchema>;

const ActorSchema = Type.Union([
  Type.Object({ type: Type.Literal('user'), id: Type.Integer(), email: Type.String(), name: Type.String() }),
  Type.Object({
    type: Type.Literal('system'),
    /** `ingest`, `policy:<id>`, or `deleted-user` when the acting user no longer exists. */
    name: Type.String(),
  }),
]);

export const TimelineEntrySchema = Type.Object(
  {
    /** Null for the synthesized `created` entry (ingest writes no row per new finding). */
    id: Nullable(Type.Integer()),
    /** `created`, `status_changed`, `reassigned`, `reviewed`, `commented`, `inherited`, `fixed`, `reopened`, `severity_changed` (detail: from, to), `sla_breached` (detail: due_date, breached_at). */
    type: Type.String(),
    actor: ActorSchema,
    from_status: Nullable(FindingStatusSchema),
    to_status: Nullable(FindingStatusSchema),
    from_assignee_id: Nullable(Type.Integer()),
    to_assignee_id: Nullable(Type.Integer()),
    scan_id: Nullable(Type.Integer()),
    detail: Nullable(Type.Object({}, { additionalProperties: true })),
    created_at: Timestamp,
  },
  { title: 'TimelineEntry' },
);
export type TimelineEntryRecord = Static<typeof TimelineEntrySchema>;

export const FindingDetailSchema = Type.Intersect([
  FindingSchema,
  Type.Object({
    timeline: Type.Array(TimelineEntrySchema, { description: 'Oldest first' }),
    /** The issue filed for this finding in the application's tracker, or null. */
    tracker_issue: Nullable(TrackerIssueSchema),
    /** The statuses a person may move this finding to now (the lifecycle table; policies may set any). */
    allowed_next_statuses: Type.Array(FindingStatusSchema),
  }),
]);
export type FindingDetailRecord = Static<typeof FindingDetailSchema>;

const PositiveId = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
/** Repeated or comma-separated values (`severity=high,critical` or `severity=high&severity=critical`). */
const ListParam = (description: string) => Type.Array(Type.String(), { description });
const SEVERITY_LIST = 'critical|high|medium|low|info; comma-separated list allowed';
const STATUS_LIST =
  'open|confirmed|false_positive|fixed|closed (closed = fixed or false_positive); comma-separated list allowed';
const DISMISSAL_LIST =
  'false_positive|accepted_risk|wont_fix|used_in_tests|none (dismissed without a reason); comma-separated list allowed';
const ConcernFilterSchema = Type.Enum(['security', 'quality', 'all']);
const SortBy = Type.Enum(['severity', 'title', 'risk_score', 'created_at', 'epss']);
const ASSIGNED_TO = '`me` (the caller), `none` (unassigned) or a user id';

/** Query of GET /api/findings; every parameter is also accepted in camelCase (`applicationId`). */
export const ListFindingsQuery = Type.Object({
  application_id: Type.Optional(PositiveId),
  application_version_id: Type.Optional(PositiveId),
  severity: Type.Optional(ListParam(SEVERITY_LIST)),
  status: Type.Optional(ListParam(STATUS_LIST)),
  scanner_type_id: Type.Optional(PositiveId),
  /** Findings first or last reported by this scan. */
  scan_id: Type.Optional(PositiveId),
  /**
   * Findings this scan made new: first reported by it, or a `fixed` finding it reopened. What a CI
   * gate counts (`scanhub upload --fail-on`); an application token may use it on its own scans.
   */
  new_in_scan: Type.Optional(PositiveId),
  /** Version by name (each application's version of that name); with `application_id`, one version. */
  version: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  assigned_to: Type.Optional(Type.String({ description: ASSIGNED_TO })),
  /** Dismissal reason(s) of false positives; `none` for one dismissed without a reason. */
  dismissal_reason: Type.Optional(ListParam(DISMISSAL_LIST)),
  /** Findings this acceptance covers. */
  acceptance_id: Type.Optional(PositiveId),
  /** Case-insensitive substring of title, file path or rule id. */
  search: Type.Optional(Type.String({ maxLength: 500 })),
  /** Open findings past their due date (`breached`), or due within 7 days and not past it (`due_soon`). */
  sla: Type.Optional(Type.Enum(['breached', 'due_soon'])),
  /** Listed in CISA KEV (`true`) or not (`false`). */
  kev: Type.Optional(Type.Boolean()),
  /** Security findings, code-quality findings, or `all` (the default: every finding, as before). */
  concern: Type.Optional(ConcernFilterSchema),
  /** EPSS (probability of exploitation in 30 days) at least this, 0–1. */
  epss_min: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  sort_by: Type.Optional(SortBy),
  order: Type.Optional(Type.Enum(['asc', 'desc'])),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, default: 1 })),
  /** Default 50; values above 200 are clamped to 200. */
  per_page: Type.Optional(Type.Integer({ minimum: 1 })),
  /**
   * An export of every matching finding instead of a page (also chosen by `Accept`): `csv`
   * (text/csv), `sarif` (application/sarif+json; open and confirmed unless `status` says otherwise),
   * `ndjson` (application/x-ndjson, one finding record a line). Exports ignore paging and sorting.
   */
  format: Type.Optional(Type.Enum(['json', 'csv', 'sarif', 'ndjson'])),
});
export type ListFindingsInput = Static<typeof ListFindingsQuery>;

export const FindingListSchema = Type.Object(
  {
    findings: Type.Array(FindingSchema),
    pagination: Type.Object({
      page: Type.Integer(),
      perPage: Type.Integer(),
      total: Type.Integer(),
      /** 0 when nothing matches. */
      totalPages: Type.Integer(),
    }),
  },
  { title: 'FindingList' },
);
export type FindingList = Static<typeof FindingListSchema>;

export const VersionFindingsParams = Type.Object({ id: Type.String(), versionId: Type.String() });

export const VersionFindingsQuery = Type.Object({
  severity: Type.Optional(ListParam(SEVERITY_LIST)),
  status: Type.Optional(ListParam(STATUS_LIST)),
  /** `security`, `quality` or `all` (the default). */
  concern: Type.Optional(ConcernFilterSchema),
  /** Default 1000; values above 10,000 are clamped to 10,000. */
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type VersionFindingsInput = Static<typeof VersionFindingsQuery>;
