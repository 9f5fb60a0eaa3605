import type { CopyType } from '../../db/copy-binary.ts';

/**
 * The columns of a finding, each said once: what the database holds, how an upload fills and
 * updates it, how long a report's text may be, and where the API and the CSV export show it. The
 * staging table, both COPY encoders, the merge's insert and update lists, the string caps and the
 * CSV columns are derived from this list; `test/findings/finding-columns.test.ts` holds the database, the
 * Kysely table types (db/schema.ts) and the API schema (findings.schema.ts) to it.
 *
 * Adding a column: an entry here, a migration, and (when users see it) the presenter and the API
 * schema. The README's architecture section walks through one.
 */
export interface FindingColumn {
  /** Its type, as PostgreSQL names it (`int4` is `integer`); also its binary COPY type. */
  type: CopyType;
  /**
   * How a new finding gets it on insert, the same way whether the merge inserts from staging or a
   * first upload copies straight into `findings`:
   * - `staged`: from the upload's staged row (`stagedAs`, the staging column; the same name if absent);
   * - `computed`: from the upload's target and the staged row, by the merge's insert and the first
   *   upload's COPY rows alike (the compiler holds both to this list);
   * - `now`: the time of the insert (the SQL insert leaves it to its default, `now()`; the COPY
   *   writes the transaction's `now()`);
   * - absent: its default or null.
   */
  insert?: 'staged' | 'computed' | 'now';
  /** The staging column a `staged` column comes from, when it is named otherwise there. */
  stagedAs?: string;
  /**
   * What an upload that reports an existing finding does with it:
   * - `compared`: takes the staged value; a difference makes the finding updated (and written);
   * - `follows`: takes the staged value, which follows from the compared ones (a rank, a score part);
   * - `computed`: recomputed by the merge from the new values;
   * - absent: kept.
   */
  upload?: 'compared' | 'follows' | 'computed';
  /** The parsed finding's field (parsers/types.ts) a staged column is read from, where it is capped. */
  parsed?: string;
  /** Longest text kept from a report, in UTF-16 code units (an array's: of each entry). */
  cap?: number;
  /** Entries kept of an array a report gives. */
  items?: number;
  /**
   * The field of the API's finding that shows it (`true`: the same name); absent: not shown as such
   * (it may still feed a composed field, like `risk` or `location`).
   */
  presented?: string | true;
  /** A column of the CSV export, under its presented name, in this list's order. */
  exported?: true;
}

/** Entries kept of each list a report gives (CVE ids, CWE ids, references). */
export const LIST_ITEMS = 200;

/**
 * Every column of `findings`, in the order the CSV export writes those it exports (the export adds
 * `scanner_type` and `assignee`, which come from other tables, modules/findings/findings-csv.presenter.ts).
 */
export const FINDING_COLUMNS = {
  id: { type: 'int4', presented: true, exported: true },
  application_id: { type: 'int4', insert: 'computed', presented: true, exported: true },
  version_id: { type: 'int4', insert: 'computed', presented: true, exported: true },
  severity: {
    type: 'text',
    insert: 'staged',
    upload: 'compared',
    presented: true,
    exported: true,
  },
  status: { type: 'text', insert: 'staged', stagedAs: 'initial_status', presented: true, exported: true },
  title: {
    type: 'text',
    insert: 'staged',
    upload: 'compared',
    parsed: 'title',
    cap: 1_000,
    presented: true,
    exported: true,
  },
  tool_name: {
    type: 'text',
    insert: 'staged',
    parsed: 'toolName',
    cap: 200,
    presented: 'scanner',
    exported: true,
  },
  rule_id: {
    type: 'text',
    insert: 'staged',
    parsed: 'ruleId',
    cap: 1_000,
    presented: true,
    exported: true,
  },
  file_path: {
    type: 'text',
    insert: 'staged',
    parsed: 'filePath',
    cap: 4 * 1024,
    presented: true,
    exported: true,
  },
  line: { type: 'int4', insert: 'staged', upload: 'compared', presented: true, exported: true },
  cwe_id: { type: 'int4', insert: 'computed', upload: 'computed', presented: true, exported: true },
  cve_ids: {
    type: 'text[]',
    insert: 'staged',
    parsed: 'cveIds',
    cap: 100,
    items: LIST_ITEMS,
    presented: true,
    exported: true,
  },
  package_name: {
    type: 'text',
    insert: 'staged',
    parsed: 'packageName',
    cap: 1_000,
    presented: true,
    exported: true,
  },
  package_version: {
    type: 'text',
    insert: 'staged',
    upload: 'compared',
    parsed: 'packageVersion',
    cap: 200,
    presented: true,
    exported: true,
  },
  fixed_version: {
    type: 'text',
    insert: 'staged',
    upload: 'compared',
    parsed: 'fixedVersion',
    cap: 1_000,
    presented: true,
    exported: true,
  },
  cvss_score: {
    type: 'float8',
    insert: 'staged',
    upload: 'compared',
    presented: true,
    exported: true,
  },
  risk_score: { type: 'int4', insert: 'computed', upload: 'computed', presented: true, exported: true },
  due_date: { type: 'timestamptz', insert: 'computed', presented: true, exported: true },
  /** `sla` (derived from the SLA configuration, recomputed) or `manual` (set through triage, kept). */
  due_date_source: { type: 'text', presented: true, exported: true },
  first_seen_at: { type: 'timestamptz', insert: 'now', presented: true, exported: true },
  last_seen_at: { type: 'timestamptz', insert: 'now', presented: true, exported: true },
  fixed_at: { type: 'timestamptz', presented: true, exported: true },
  fingerprint: { type: 'text', insert: 'staged', presented: true, exported: true },
  /** Why a false positive is one (domain/findings/dismissal.ts); set with the status, never by an upload. */
  dismissal_reason: { type: 'text', presented: true, exported: true },
  dismissal_comment: { type: 'text', presented: true, exported: true },
  /** The acceptance covering the finding: covered exactly while set (modules/acceptances). */
  acceptance_id: { type: 'int4', presented: true, exported: true },
  /**
   * `security` or `quality` (domain/findings/concern.ts): set by the parser, taken again from every
   * upload that reports the finding (a rule newly tagged `security` moves it); never identity.
   */
  concern: { type: 'text', insert: 'staged', upload: 'compared', presented: true, exported: true },

  scanner_type_id: { type: 'int4', insert: 'computed', presented: true },
  first_scan_id: { type: 'int4', insert: 'computed', presented: true },
  last_scan_id: { type: 'int4', insert: 'computed' },
  /** Identity shared by twins (same rule, file, snippet); the fingerprint tells them apart. */
  identity_base: { type: 'text', insert: 'staged', stagedAs: 'base' },
  /** Analysis category (SARIF `automationDetails.id`); '' when none. Re-upload scope. */
  category: {
    type: 'text',
    insert: 'staged',
    parsed: 'category',
    cap: 1_000,
    presented: true,
  },
  kind: { type: 'text', insert: 'staged', presented: true },
  /** 5 critical … 1 info: sorts and filters by severity without a CASE. */
  severity_rank: { type: 'int2', insert: 'staged', upload: 'follows' },
  severity_score: { type: 'float8', insert: 'staged', upload: 'compared' },
  description: {
    type: 'text',
    insert: 'staged',
    upload: 'compared',
    parsed: 'description',
    cap: 64 * 1024,
    presented: true,
  },
  remediation: {
    type: 'text',
    insert: 'staged',
    upload: 'compared',
    parsed: 'remediation',
    cap: 64 * 1024,
    presented: true,
  },
  column: { type: 'int4', insert: 'staged', upload: 'compared' },
  end_line: { type: 'int4', insert: 'staged', upload: 'compared' },
  snippet: {
    type: 'text',
    insert: 'staged',
    upload: 'compared',
    parsed: 'snippet',
    cap: 8 * 1024,
    presented: true,
  },
  cwe_ids: {
    type: 'int4[]',
    insert: 'staged',
    upload: 'compared',
    parsed: 'cweIds',
    items: LIST_ITEMS,
    presented: true,
  },
  cvss_vector: {
    type: 'text',
    insert: 'staged',
    upload: 'compared',
    parsed: 'cvssVector',
    cap: 200,
    presented: true,
  },
  references: {
    type: 'text[]',
    insert: 'staged',
    parsed: 'references',
    cap: 4 * 1024,
    items: LIST_ITEMS,
    presented: true,
  },
  tool_version: {
    type: 'text',
    insert: 'staged',
    parsed: 'toolVersion',
    cap: 200,
    presented: true,
  },
  tool_fingerprint: { type: 'text', insert: 'staged', parsed: 'toolFingerprint', cap: 1_000 },
  /**
   * The report's own EPSS and percentile (Grype's `vulnerability.epss[]`), kept apart from the
   * snapshot's `epss`: used for risk only while no imported snapshot knows the finding's CVEs
   * (enrichment.ts). `follows`: a re-upload takes it whenever it writes the finding, but a report whose
   * only change is EPSS drift (daily) does not rewrite the finding.
   */
  report_epss: { type: 'float8', insert: 'staged', upload: 'follows', presented: true },
  report_epss_percentile: { type: 'float8', insert: 'staged', upload: 'follows', presented: true },
  /** Enrichment (issue 45): written set-wise from the current EPSS and KEV snapshots, never by an upload. */
  /** Shown in `enrichment` and `kev`, composed. EPSS itself is in `finding_epss` (migration 2026-11-29T1600). */
  in_kev: { type: 'bool', presented: true },
  kev_snapshot_id: { type: 'int4' },
  kev_date_added: { type: 'text' },
  kev_due_date: { type: 'text' },
  kev_ransomware: { type: 'bool' },
  kev_listed_at: { type: 'timestamptz' },
  epss_event_snapshot_id: { type: 'int4' },
  risk_severity: { type: 'float8', insert: 'staged', upload: 'follows' },
  risk_exploitation: { type: 'float8', insert: 'staged' },
  risk_age: { type: 'float8', insert: 'computed' },
  risk_asset: { type: 'float8', insert: 'computed' },
  risk_formula_version: { type: 'int2', insert: 'computed' },
  assignee_id: { type: 'int4', presented: true },
  reviewed_at: { type: 'timestamptz', presented: true },
  reviewed_by: { type: 'int4', presented: true },
  /** When `finding.sla_breached` was sent (once per finding; domain/findings/sla-breach.ts). */
  sla_breached_at: { type: 'timestamptz', presented: true },
  /** The SLA clock's pause while dismissed: since when, and the seconds of earlier pauses (sla.ts). */
  sla_paused_at: { type: 'timestamptz' },
  sla_paused_seconds: { type: 'int4' },
  /** Reported by its scope's latest scan; while true, last seen = the scope's (see finding_scopes). */
  present: { type: 'bool' },
  created_at: { type: 'timestamptz', insert: 'now', presented: true },
  updated_at: { type: 'timestamptz', insert: 'now', presented: true },
} as const satisfies Record<string, FindingColumn>;

type Columns = typeof FINDING_COLUMNS;
export type FindingColumnName = keyof Columns;

type ColumnsWhere<Test> = {
  [Name in FindingColumnName]: Columns[Name] extends Test ? Name : never;
}[FindingColumnName];

/** The staging column a staged finding column comes from. */
type StagedName<Name extends FindingColumnName> = Columns[Name] extends { stagedAs: infer As extends string }
  ? As
  : Name;

export type StagedFindingColumn = ColumnsWhere<{ insert: 'staged' }>;
/** Columns an insert computes from the upload (merge.ts and the first upload's COPY rows each supply them). */
export type ComputedFindingColumn = ColumnsWhere<{ insert: 'computed' }>;
export type NowFindingColumn = ColumnsWhere<{ insert: 'now' }>;
/** Columns a matched finding takes from the upload, compared or following the compared ones. */
export type UploadedFindingColumn = ColumnsWhere<{ upload: 'compared' | 'follows' }>;
export type RecomputedFindingColumn = ColumnsWhere<{ upload: 'computed' }>;
/** The staging table's own columns, which no finding keeps: the upload's key, position and filter flags. */
export const STAGING_ONLY_COLUMNS = {
  upload_key: 'text',
  /** Position in the report: the last tie-break between twins on one line and column. */
  seq: 'int4',
  twin_ordinal: 'bool',
  /** The upload may have staged this fingerprint before (false: this is certainly its first row). */
  maybe_repeat: 'bool',
} as const satisfies Record<string, CopyType>;

export type StagingColumnName =
  | keyof typeof STAGING_ONLY_COLUMNS
  | { [Name in StagedFindingColumn]: StagedName<Name> }[StagedFindingColumn];

const entries = Object.entries(FINDING_COLUMNS) as [FindingColumnName, FindingColumn][];
const namesWhere = <Name extends FindingColumnName>(test: (column: FindingColumn) => boolean) =>
  entries.filter(([, column]) => test(column)).map(([name]) => name as Name);

/** Where a finding column is staged (`stagedAs`, else its own name). */
export const stagedNameOf = (name: StagedFindingColumn): StagingColumnName =>
  ((FINDING_COLUMNS[name] as FindingColumn).stagedAs ?? name) as StagingColumnName;

export const STAGED_FINDING_COLUMNS: readonly StagedFindingColumn[] = namesWhere(
  (column) => column.insert === 'staged',
);
export const COMPUTED_FINDING_COLUMNS: readonly ComputedFindingColumn[] = namesWhere(
  (column) => column.insert === 'computed',
);
export const NOW_FINDING_COLUMNS: readonly NowFindingColumn[] = namesWhere(
  (column) => column.insert === 'now',
);
/** Columns whose difference from the staged row makes a matched finding updated. */
export const COMPARED_FINDING_COLUMNS: readonly UploadedFindingColumn[] = namesWhere(
  (column) => column.upload === 'compared',
);
export const UPLOADED_FINDING_COLUMNS: readonly UploadedFindingColumn[] = namesWhere(
  (column) => column.upload === 'compared' || column.upload === 'follows',
);
export const RECOMPUTED_FINDING_COLUMNS: readonly RecomputedFindingColumn[] = namesWhere(
  (column) => column.upload === 'computed',
);

/** Every staging column with its type: the staging table's own, then the staged finding columns. */
export const STAGING_COLUMN_TYPES: Readonly<Record<StagingColumnName, CopyType>> = Object.fromEntries([
  ...Object.entries(STAGING_ONLY_COLUMNS),
  ...STAGED_FINDING_COLUMNS.map((name) => [stagedNameOf(name), FINDING_COLUMNS[name].type]),
]) as Record<StagingColumnName, CopyType>;

/** Columns the CSV export writes, as [heading, column], in order. */
export const EXPORTED_FINDING_COLUMNS: readonly (readonly [string, FindingColumnName])[] = entries
  .filter(([, column]) => column.exported)
  .map(([name, column]) => [column.presented === true || !column.presented ? name : column.presented, name]);

/** Presented columns by the name the API gives them. */
export const PRESENTED_FINDING_FIELDS: readonly string[] = entries
  .filter(([, column]) => column.presented)
  .map(([name, column]) => (column.presented === true ? name : (column.presented as string)));

/** Caps of the parsed finding's fields, by field name (cap-fields.ts applies them). */
export const PARSED_FIELD_CAPS: readonly { field: string; cap?: number; items?: number }[] = entries
  .filter(([, column]) => column.parsed !== undefined)
  .map(([, column]) => ({
    field: column.parsed as string,
    ...(column.cap !== undefined ? { cap: column.cap } : {}),
    ...(column.items !== undefined ? { items: column.items } : {}),
  }));
