import type { Concern } from '../domain/findings/concern.ts';
import type { AcceptanceStatus, DismissalReason, VexJustification } from '../domain/findings/dismissal.ts';
import type { FindingStatus } from '../domain/findings/lifecycle.ts';
import type { Severity } from '../domain/findings/severity.ts';
import type { Action, Condition } from '../domain/policies/definition.ts';
import type { ColumnType, Generated } from 'kysely';

/** Timestamp columns: written as Date or ISO string, read as Date. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export type Role = 'admin' | 'member';
export type AccessAction = 'read' | 'write';
export type AssetCriticality = 'low' | 'medium' | 'high' | 'critical';

export interface UsersTable {
  id: Generated<number>;
  email: string;
  name: string;
  password_hash: string;
  role: Role;
  disabled: Generated<boolean>;
  last_login_at: Timestamp | null;
  /** The `userName` a SCIM provider gave, when it is not the email itself (src/modules/scim/). */
  scim_user_name: string | null;
  /** The SCIM provider's `externalId` for this user. */
  scim_external_id: string | null;
  /** When the SCIM provider deleted the user: disabled, and no longer found through SCIM. */
  scim_removed_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface SessionsTable {
  /** sha256 of the cookie value; the raw value is never stored. */
  id: string;
  user_id: number;
  expires_at: Timestamp;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** First characters of the raw key, shown so users can tell keys apart. */
  prefix: string;
  key_hash: string;
  expires_at: Timestamp | null;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  /** Refused on every state-changing request (src/http/auth.ts). */
  read_only: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** A SCIM provisioning bearer token; only its SHA-256 is kept (src/modules/scim/scim-tokens.service.ts). */
export interface ScimTokensTable {
  id: Generated<number>;
  name: string;
  prefix: string;
  token_hash: string;
  created_by: number | null;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created_at: CreatedAt;
}

/** Sign-in attempts per bucket in a fixed window (src/modules/auth/login-throttle.ts). */
export interface LoginThrottleTable {
  bucket: string;
  attempts: number;
  window_ends_at: Timestamp;
}

export interface TeamsTable {
  id: Generated<number>;
  name: string;
  /** Created by SCIM provisioning (a SCIM Group): SCIM lists and changes only these teams. */
  scim_managed: Generated<boolean>;
  /** The SCIM provider's `externalId` for this group. */
  scim_external_id: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface TeamMembersTable {
  team_id: number;
  user_id: number;
  role: string;
  /**
   * `idp`: made by the OpenID provider's groups (reset at each sign-in); `scim`: by SCIM provisioning
   * (a Group's members); `manual`: by hand.
   */
  source: Generated<'manual' | 'idp' | 'scim'>;
  created_at: CreatedAt;
}

/** A user's link to an OpenID provider account: `(issuer, subject)` never changes once made. */
export interface UserIdentitiesTable {
  id: Generated<number>;
  user_id: number;
  issuer: string;
  subject: string;
  /** The last sign-in's ID token and userinfo claims (never tokens). */
  last_claims: ColumnType<Record<string, unknown>, string | undefined, string>;
  /** The admin role was given by a group mapping (and is taken back when no mapping gives it). */
  admin_from_idp: Generated<boolean>;
  last_login_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface IdpGroupMappingsTable {
  id: Generated<number>;
  idp_group: string;
  team_id: number | null;
  grants_admin: Generated<boolean>;
  created_at: CreatedAt;
}

export interface OidcPendingLoginsTable {
  state_hash: string;
  code_verifier: string;
  nonce: string;
  return_to: string;
  expires_at: Timestamp;
}

export type DueDateSource = 'sla' | 'manual';

/** Days to fix per severity, each enforced or not (domain/findings/sla.ts); one row is the default. */
export interface SlaConfigurationsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  critical_days: number;
  high_days: number;
  medium_days: number;
  low_days: number;
  info_days: number;
  critical_enforced: Generated<boolean>;
  high_enforced: Generated<boolean>;
  medium_enforced: Generated<boolean>;
  low_enforced: Generated<boolean>;
  info_enforced: Generated<boolean>;
  is_default: Generated<boolean>;
  /** Null: global (admins edit it); else the group whose writers edit it. */
  owner_group_id: number | null;
  created_by: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** A licence policy (migration 2026-11-29T0400): a deny or allow list of SPDX ids or expressions. */
export interface LicensePoliciesTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  /** Null: global (admins edit it); else the group whose writers edit it (and its subgroups it covers). */
  owner_group_id: number | null;
  mode: 'deny' | 'allow';
  licenses: string[];
  severity: Generated<Severity>;
  enabled: Generated<boolean>;
  created_by: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface GroupsTable {
  id: Generated<number>;
  name: string;
  path: string;
  /** Its SLA configuration; null: inherited from the nearest ancestor group (by path), else the default. */
  sla_configuration_id: number | null;
  created_by: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ApplicationsTable {
  id: Generated<number>;
  group_id: number;
  name: string;
  slug: string;
  repository_url: string | null;
  asset_criticality: AssetCriticality;
  api_token_hash: string;
  api_token_encrypted: string;
  api_token_prefix: string;
  /** Its own SLA configuration; null: its group's (domain/findings/sla.ts). */
  sla_configuration_id: number | null;
  created_by: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ApplicationVersionsTable {
  id: Generated<number>;
  application_id: number;
  name: string;
  branch: string | null;
  tag: string | null;
  is_default: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/**
 * One row per grant. Subject is a user or a team; resource is an application, a group, or (both
 * null) everything. Application-level and admin-level permission policies share this table so one
 * query answers every access question.
 */
export interface PermissionPoliciesTable {
  id: Generated<number>;
  user_id: number | null;
  team_id: number | null;
  application_id: number | null;
  group_id: number | null;
  /** An administrative resource (src/access/vocabulary.ts); null for application grants. */
  resource: string | null;
  /** `read`/`write` on applications; an administrative resource's own actions otherwise. */
  action: string;
  created_by: number | null;
  created_at: CreatedAt;
}

export interface ScannerTypesTable {
  id: Generated<number>;
  name: string;
  display_name: string;
  enabled: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type ScanStatus = 'pending' | 'processing' | 'completed' | 'failed';
export type SeverityName = Severity;
/** The finding statuses are the lifecycle's (domain/findings/lifecycle.ts). */
export type { FindingStatus };

export interface ScansTable {
  id: Generated<number>;
  application_id: number;
  version_id: number;
  scanner_type_id: number | null;
  scanner_type: string | null;
  tool_name: string | null;
  tool_version: string | null;
  file_name: string | null;
  file_size: number;
  file_sha256: string;
  status: ScanStatus;
  error: string | null;
  findings_count: Generated<number>;
  new_findings_count: Generated<number>;
  existing_findings_count: Generated<number>;
  fixed_findings_count: Generated<number>;
  reopened_findings_count: Generated<number>;
  uploaded_by: number | null;
  uploaded_via: 'api_key' | 'session' | 'application_token' | 'system';
  idempotency_key: string | null;
  spool_path: string | null;
  branch: string | null;
  /** The upload's own scope (`category` form field), replacing the report's. */
  category: string | null;
  /** `partial=true`: absence closes only findings in the files the upload covers. */
  partial: Generated<boolean>;
  /** The scanned directory, stripped from the front of every path. */
  root: string | null;
  /** Whether this scan's upload created its version (deleted with a failed upload's scan when unused). */
  created_version: Generated<boolean>;
  /** The upload's component diff (scan_component_changes), counted. */
  components_added: Generated<number>;
  components_removed: Generated<number>;
  started_at: Timestamp | null;
  completed_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  /** The upload request's audit context (src/events/audit.ts), for the audit row written when it completes. */
  upload_audit: ColumnType<unknown, string | null | undefined, string | null>;
}

/** A component (package) of a version, in the scope (tool + category) of the uploads that list it. */
export interface ComponentsTable {
  id: Generated<number>;
  application_id: number;
  version_id: number;
  tool_name: string;
  category: Generated<string>;
  purl: string;
  /** The purl without version, qualifiers and subpath. */
  package: string;
  ecosystem: string;
  namespace: string | null;
  name: string;
  version: string | null;
  licenses: string | null;
  license_ids: Generated<string[]>;
  scope: string | null;
  direct: boolean | null;
  /** jsonb: algorithm → content. */
  hashes: Generated<Record<string, string>>;
  digest: string;
  first_scan_id: number | null;
  last_scan_id: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** What one upload added to and removed from its scope's components. */
export interface ScanComponentChangesTable {
  scan_id: number;
  change: 'added' | 'removed';
  purl: string;
  name: string;
  version: string | null;
}

/** An async upload's bytes, in order, until its scan finishes. */
export interface UploadChunksTable {
  scan_id: number;
  seq: number;
  data: Buffer;
}

export interface FindingsTable {
  id: Generated<number>;
  application_id: number;
  version_id: number;
  scanner_type_id: number;
  first_scan_id: number | null;
  last_scan_id: number | null;
  fingerprint: string;
  /** Identity shared by twins (same rule, file, snippet); the fingerprint tells them apart. */
  identity_base: string;
  category: Generated<string>;
  kind: string;
  /** `security` or `quality` (domain/findings/concern.ts); not identity. */
  concern: Generated<Concern>;
  title: string;
  severity: SeverityName;
  severity_rank: number;
  severity_score: number | null;
  status: FindingStatus;
  description: string | null;
  remediation: string | null;
  rule_id: string | null;
  file_path: string | null;
  line: number | null;
  column: number | null;
  end_line: number | null;
  snippet: string | null;
  package_name: string | null;
  package_version: string | null;
  fixed_version: string | null;
  cve_ids: Generated<string[]>;
  cwe_ids: Generated<number[]>;
  cwe_id: number | null;
  cvss_score: number | null;
  cvss_vector: string | null;
  references: Generated<string[]>;
  tool_name: string;
  tool_version: string | null;
  tool_fingerprint: string | null;
  /** The report's own EPSS and percentile (Grype `epss[]`); used for risk while no snapshot knows its CVEs. */
  report_epss: number | null;
  report_epss_percentile: number | null;
  in_kev: Generated<boolean>;
  /** The KEV snapshot that lists one of its CVEs (null: not listed). */
  kev_snapshot_id: number | null;
  /** KEV `dateAdded` and `dueDate` (ISO days), `knownRansomwareCampaignUse = Known`. */
  kev_date_added: string | null;
  kev_due_date: string | null;
  kev_ransomware: boolean | null;
  /** When an import first listed one of its CVEs in KEV (`finding.kev_listed` was written then). */
  kev_listed_at: Timestamp | null;
  /** The EPSS snapshot that last announced a threshold crossing (`finding.epss_changed`). */
  epss_event_snapshot_id: number | null;
  risk_score: number;
  risk_severity: number;
  risk_exploitation: number;
  risk_age: number;
  risk_asset: number;
  risk_formula_version: number;
  assignee_id: number | null;
  due_date: Timestamp | null;
  /** `sla`: derived from the SLA configuration (recomputed); `manual`: set through triage (kept). */
  due_date_source: Generated<DueDateSource>;
  /** When `finding.sla_breached` was sent for it (once per finding). */
  sla_breached_at: Timestamp | null;
  /** Start of the current pause of its SLA clock (while dismissed), null while it runs. */
  sla_paused_at: Timestamp | null;
  /** Seconds its SLA clock was paused before the current pause; added to the due date. */
  sla_paused_seconds: Generated<number>;
  reviewed_at: Timestamp | null;
  reviewed_by: number | null;
  first_seen_at: CreatedAt;
  last_seen_at: UpdatedAt;
  fixed_at: Timestamp | null;
  /** Reported by its scope's latest scan; while true, last seen = the scope's (see finding_scopes). */
  present: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  /** Why it is a false positive (null: not said, or not dismissed). */
  dismissal_reason: DismissalReason | null;
  dismissal_comment: string | null;
  /** The acceptance that covers it: a finding is covered exactly while this is set. */
  acceptance_id: number | null;
}

/** What one upload speaks for: version × scanner type × tool × category, and when it last spoke. */
export interface FindingScopesTable {
  id: Generated<number>;
  version_id: number;
  scanner_type_id: number;
  tool_name: string;
  category: string;
  last_scan_id: number | null;
  last_seen_at: Timestamp;
}

/**
 * Ledger of finding counts per (version, severity, status), appended by triggers on findings; sum
 * the rows of a key for its totals (see the finding-counts migration). Bigint sums arrive as numbers.
 */
export interface FindingCountsTable {
  application_id: number;
  version_id: number;
  severity: SeverityName;
  /** `security` or `quality` (migration 2026-11-29T1000-finding-concern). */
  concern: Generated<Concern>;
  status: FindingStatus;
  findings: number;
  risk: number;
  fixed_timed: number;
  /** numeric: a string from the driver. */
  fix_seconds: string;
}

/**
 * Findings per application and UTC day (migration 2026-11-29T1300), a ledger of deltas as
 * `finding_counts`: `seen` by `first_seen_at`, `fixed` by `fixed_at` (fixed findings), `due` by
 * `due_date` (open and confirmed findings; `day` null for none). The dashboard's moving windows.
 */
export interface FindingDayCountsTable {
  application_id: number;
  /** The findings' concern (security or quality), as `finding_counts` keys it. */
  concern: string;
  measure: 'seen' | 'fixed' | 'due';
  /** A date (YYYY-MM-DD), compared as one; null: a `due` finding without a due date. */
  day: string | null;
  findings: number;
}

/**
 * The same deltas for findings whose first scan has not completed, set apart by scan until it does
 * (migration 2026-11-24T1500): `publish_finding_counts(scan)` moves them into `finding_counts`.
 */
export interface FindingCountsUnpublishedTable extends FindingCountsTable {
  scan_id: number;
}

/** The timeline (table `finding_events`): what happened to each finding, as its page shows it. Not the outbox. */
export interface FindingEventsTable {
  id: Generated<number>;
  finding_id: number;
  type: string;
  actor_user_id: number | null;
  actor_system: string | null;
  scan_id: number | null;
  from_status: FindingStatus | null;
  to_status: FindingStatus | null;
  from_assignee_id: number | null;
  to_assignee_id: number | null;
  detail: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
}

export interface FindingCommentsTable {
  id: Generated<number>;
  finding_id: number;
  parent_id: number | null;
  author_id: number | null;
  content: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/**
 * The outbox (table `events`): one row per domain event, written in the transaction of the change
 * (events/events.ts) and handed after commit to the after-commit subscribers (webhooks, issue
 * trackers) by the outbox dispatcher (events/outbox-dispatcher.ts), which sets `processed_at`. Not
 * the findings' history: that is the timeline, `finding_events`.
 */
export interface EventsTable {
  id: Generated<number>;
  type: string;
  application_id: number | null;
  finding_id: number | null;
  scan_id: number | null;
  data: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  processed_at: Timestamp | null;
  /** Set by a policy's `webhook` action: delivered to every active webhook of the application. */
  policy_id: number | null;
  /**
   * The last finding id a subscriber sent of an event that stands for many (an upload's new
   * findings), when it stopped midway; the webhooks' dispatch is the one that does.
   */
  dispatch_cursor: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: CreatedAt;
}

export interface IngestStagingTable {
  upload_key: string;
  /** Position in the report: the last tie-break between twins on one line and column. */
  seq: number;
  /** Identity base until twins are matched (merge/identical-findings.ts), then the finding's fingerprint. */
  fingerprint: string;
  /** Identity base: shared by twins. */
  base: string;
  twin_ordinal: boolean;
  /** The upload may have staged this fingerprint before (false: this is certainly its first row). */
  maybe_repeat: Generated<boolean>;
  category: string;
  kind: string;
  concern: Concern;
  title: string;
  severity: SeverityName;
  severity_rank: number;
  severity_score: number | null;
  initial_status: FindingStatus;
  description: string | null;
  remediation: string | null;
  rule_id: string | null;
  file_path: string | null;
  line: number | null;
  column: number | null;
  end_line: number | null;
  snippet: string | null;
  package_name: string | null;
  package_version: string | null;
  fixed_version: string | null;
  cve_ids: string[];
  cwe_ids: number[];
  cvss_score: number | null;
  cvss_vector: string | null;
  references: string[];
  tool_name: string;
  tool_version: string | null;
  tool_fingerprint: string | null;
  report_epss: number | null;
  report_epss_percentile: number | null;
  risk_severity: number;
  risk_exploitation: number;
}

export interface WebhooksTable {
  id: Generated<number>;
  application_id: number;
  url: string;
  /** Event names as subscribed: `*`, spec names, or `finding.updated`. */
  events: string[];
  /** AES-GCM sealed (SecretBox); never returned. */
  secret_sealed: string | null;
  /** The origin the secret was saved for; deliveries elsewhere are refused (null: no secret). */
  secret_origin: string | null;
  active: Generated<boolean>;
  /** Set when a delivery used up its retries; cleared by the next success. */
  failing_since: Timestamp | null;
  consecutive_failures: Generated<number>;
  last_delivery_at: Timestamp | null;
  last_status_code: number | null;
  created_by: number | null;
  /**
   * Subscribed to `audit.*`: the id of the last audit event this webhook got a delivery for (the
   * forwarder sends every later one); null when it does not stream the audit trail.
   */
  audit_cursor: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: ColumnType<number, never, never>;
  webhook_id: number;
  message_id: string;
  event: string;
  event_id: number | null;
  finding_id: number | null;
  policy_id: number | null;
  body: string;
  status: ColumnType<WebhookDeliveryStatus, WebhookDeliveryStatus | undefined, WebhookDeliveryStatus>;
  attempts: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  redelivery_of: number | null;
  created_at: CreatedAt;
  completed_at: Timestamp | null;
}

export interface WebhookDeliveryAttemptsTable {
  id: ColumnType<number, never, never>;
  delivery_id: number;
  attempted_at: CreatedAt;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
}

export type PolicyScopeType = 'application' | 'group' | 'global';

export interface PoliciesTable {
  id: Generated<number>;
  name: string;
  scope_type: PolicyScopeType;
  application_id: number | null;
  group_id: number | null;
  event_types: string[];
  /** Normalized `[{field, op, value}]` (src/domain/policies/definition.ts). */
  conditions: ColumnType<Condition[], string, string>;
  /** Normalized `[{type, target}]`. */
  actions: ColumnType<Action[], string, string>;
  enabled: Generated<boolean>;
  created_by: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface PolicyRunsTable {
  id: ColumnType<number, never, never>;
  policy_id: number;
  event: string;
  /** 1 for the change itself, 2 and 3 for what policies' own changes set off. */
  depth: number;
  /** Findings the policy was evaluated on. */
  evaluated: number;
  /** The findings it matched and acted on. */
  finding_ids: number[];
  actions: ColumnType<Action[] | null, string | null | undefined, string | null>;
  error: string | null;
  created_at: CreatedAt;
}

export type TrackerProvider = 'jira' | 'github' | 'gitlab';
export type TrackerIssueState = 'pending' | 'open' | 'closed' | 'failed';

export interface IssueTrackersTable {
  id: Generated<number>;
  application_id: number;
  provider: TrackerProvider;
  auth_type: 'token' | 'basic';
  /** Jira Cloud basic auth: the account email. */
  username: string | null;
  /** AES-GCM sealed (SecretBox); never returned. */
  token_sealed: string;
  token_last4: string;
  /** The origin the token was saved for; it is never sent anywhere else (null: saved before this rule). */
  token_origin: string | null;
  base_url: string;
  project_key: string | null;
  issue_type: string | null;
  repository: string | null;
  project_id: string | null;
  severity_threshold: Generated<SeverityName>;
  auto_create: Generated<boolean>;
  close_on_fix: Generated<boolean>;
  labels: Generated<string[]>;
  closed_status: Generated<FindingStatus>;
  /** Inbound webhook secret, sealed; returned once, in the create response. */
  webhook_secret_sealed: string;
  created_by: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** An inbound tracker webhook delivery already applied; kept for a window to refuse replays. */
export interface TrackerDeliveriesTable {
  tracker_id: number;
  delivery_id: string;
  received_at: CreatedAt;
}

/** A finding's ticket: claimed (`pending`) before the provider is called, so there is never a second. */
export interface TrackerIssuesTable {
  id: Generated<number>;
  tracker_id: number;
  finding_id: number;
  provider: TrackerProvider;
  external_id: string | null;
  external_key: string | null;
  url: string | null;
  state: Generated<TrackerIssueState>;
  last_synced_at: Timestamp | null;
  last_error: string | null;
  /** Held by the job talking to the provider for this link; expires if its worker dies. */
  lease_until: Timestamp | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface AuditEventsTable {
  /** Assigned by the chain trigger (head + 1); never given by the writer. */
  id: ColumnType<string, never, never>;
  occurred_at: ColumnType<Date, Date | string | undefined, never>;
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
  changes: ColumnType<unknown, string | null, never>;
  details: ColumnType<unknown, string | null, never>;
  prev_hash: ColumnType<string, never, never>;
  hash: ColumnType<string, never, never>;
}

/** The audit chain's one row: its head and the anchor retention left (migration 2026-11-28T2000). */
export interface AuditChainTable {
  singleton: Generated<boolean>;
  last_id: ColumnType<string, never, string | number>;
  last_hash: ColumnType<string, never, string>;
  anchor_id: ColumnType<string, never, string | number>;
  anchor_prev_hash: ColumnType<string, never, string>;
}

export interface DB {
  users: UsersTable;
  components: ComponentsTable;
  scan_component_changes: ScanComponentChangesTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  login_throttle: LoginThrottleTable;
  audit_events: AuditEventsTable;
  audit_chain: AuditChainTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  scim_tokens: ScimTokensTable;
  user_identities: UserIdentitiesTable;
  idp_group_mappings: IdpGroupMappingsTable;
  oidc_pending_logins: OidcPendingLoginsTable;
  sla_configurations: SlaConfigurationsTable;
  license_policies: LicensePoliciesTable;
  groups: GroupsTable;
  applications: ApplicationsTable;
  application_versions: ApplicationVersionsTable;
  permission_policies: PermissionPoliciesTable;
  scanner_types: ScannerTypesTable;
  scans: ScansTable;
  findings: FindingsTable;
  finding_scopes: FindingScopesTable;
  finding_counts: FindingCountsTable;
  finding_counts_unpublished: FindingCountsUnpublishedTable;
  finding_day_counts: FindingDayCountsTable;
  finding_events: FindingEventsTable;
  finding_comments: FindingCommentsTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  policies: PoliciesTable;
  policy_runs: PolicyRunsTable;
  issue_trackers: IssueTrackersTable;
  tracker_issues: TrackerIssuesTable;
  tracker_deliveries: TrackerDeliveriesTable;
  ingest_staging: IngestStagingTable;
  upload_chunks: UploadChunksTable;
  worker_processes: WorkerProcessesTable;
  job_holds: JobHoldsTable;
  posture_daily: PostureDailyTable;
  posture_open_daily: PostureOpenDailyTable;
  posture_group_daily: PostureGroupDailyTable;
  posture_fixes: PostureFixesTable;
  posture_group_fixes: PostureGroupFixesTable;
  posture_days: PostureDaysTable;
  posture_period_flows: PosturePeriodFlowsTable;
  posture_group_period_flows: PostureGroupPeriodFlowsTable;
  posture_period_fixes: PosturePeriodFixesTable;
  posture_group_period_fixes: PostureGroupPeriodFixesTable;
  acceptances: AcceptancesTable;
  acceptance_fingerprints: AcceptanceFingerprintsTable;
  acceptance_settings: AcceptanceSettingsTable;
  enrichment_snapshots: EnrichmentSnapshotsTable;
  epss_scores: EpssScoresTable;
  enrichment_changes: EnrichmentChangesTable;
  finding_epss: FindingEpssTable;
  finding_sla_due: FindingSlaDueTable;
  kev_entries: KevEntriesTable;
  enrichment_settings: EnrichmentSettingsTable;
}

/** One import of an enrichment source (EPSS or KEV), with where it came from (issue 45). */
export interface EnrichmentSnapshotsTable {
  id: Generated<number>;
  source: 'epss' | 'kev';
  format: 'epss_csv' | 'kev_json' | 'kev_csv';
  version: string;
  /** `date`: read it as `data_date::text` (the drivers parse dates differently). */
  data_date: ColumnType<string, string, string>;
  released_at: Timestamp | null;
  row_count: Generated<number>;
  file_name: string | null;
  sha256: string | null;
  origin: 'upload' | 'fetch';
  imported_by: number | null;
  current: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** A finding's EPSS (migration 2026-11-29T1600): its most likely exploited CVE's, from `snapshot_id`. */
export interface FindingEpssTable {
  finding_id: number;
  application_id: number;
  epss: number;
  percentile: number | null;
  /** The EPSS snapshot the value came from; null once that snapshot is deleted. */
  snapshot_id: number | null;
}

/** A CVE an import changed since the last re-score (migration 2026-11-30T1200). */
export interface EnrichmentChangesTable {
  cve: string;
  seq: Generated<string>;
}

/**
 * A finding's SLA due date as the last recompute moved it (migration 2026-11-30T1000): an overlay
 * on `findings.due_date`, read through `effectiveDueDateSql` (domain/findings/sla.ts).
 */
export interface FindingSlaDueTable {
  finding_id: number;
  application_id: number;
  due_date: Timestamp | null;
}

export interface EpssScoresTable {
  cve: string;
  epss: number;
  percentile: number;
  /** The snapshot that set this value: a later import that states the same value does not write the row. */
  snapshot_id: number;
}

export interface KevEntriesTable {
  cve: string;
  vendor_project: string;
  product: string;
  vulnerability_name: string;
  /** `date` columns: read as `::text`. */
  date_added: ColumnType<string, string, string>;
  short_description: string;
  required_action: string;
  due_date: ColumnType<string, string, string>;
  ransomware: boolean;
  notes: Generated<string>;
  cwes: Generated<string[]>;
  snapshot_id: number;
}

export interface EnrichmentSettingsTable {
  id: Generated<boolean>;
  /** A KEV due date earlier than the SLA's becomes the finding's due date. */
  kev_due_dates: Generated<boolean>;
  /** `finding.epss_changed` fires when a finding's EPSS percentile crosses this, up or down. */
  epss_percentile_threshold: Generated<number>;
  updated_at: UpdatedAt;
}

/** What made an acceptance besides a person's request (a VEX document's statement). */
export interface AcceptanceSource {
  type: string;
  [key: string]: unknown;
}

/**
 * A risk decision over findings of one application (or every application of a group): the
 * findings named (by fingerprint, `acceptance_fingerprints`) or matched by rule.
 */
export interface AcceptancesTable {
  id: Generated<number>;
  group_id: number;
  /** Null: every application of the group. */
  application_id: number | null;
  status: AcceptanceStatus;
  reason: DismissalReason;
  justification: VexJustification | null;
  impact_statement: string | null;
  comment: string | null;
  /** The findings named when it was made (null: it matches by rule). */
  finding_ids: number[] | null;
  match_cve: string | null;
  match_rule_id: string | null;
  match_package: string | null;
  match_path_prefix: string | null;
  expires_at: Timestamp | null;
  owner_id: number | null;
  created_by: number | null;
  source: ColumnType<AcceptanceSource | null, string | null, string | null>;
  decided_by: number | null;
  decided_at: Timestamp | null;
  decision_comment: string | null;
  ended_by: number | null;
  ended_at: Timestamp | null;
  expiring_notified_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface AcceptanceFingerprintsTable {
  acceptance_id: number;
  fingerprint: string;
}

/** Per group, or global (`group_id` null); a null field takes the global value. */
export interface AcceptanceSettingsTable {
  id: Generated<number>;
  group_id: number | null;
  four_eyes: boolean | null;
  /** Longest accepted risk in days, per severity (`{critical: 30, ...}`); an absent severity: no limit. */
  max_days: ColumnType<Partial<Record<SeverityName, number>> | null, string | null, string | null>;
  expiring_notice_days: number | null;
  updated_by: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** A process that runs job workers, and when it last said it is alive (src/jobs/liveness.ts). */
export interface WorkerProcessesTable {
  id: string;
  host: string;
  pid: number;
  started_at: CreatedAt;
  heartbeat_at: Timestamp;
}

/** One run of a pg-boss job, held by the process running it. */
export interface JobHoldsTable {
  job_id: string;
  queue: string;
  process_id: string;
  job_started_on: Timestamp;
  held_at: CreatedAt;
}

/** A UTC day (`date`), written and read as `YYYY-MM-DD` text (queries select it with `to_char`). */
type Day = ColumnType<string, string, string>;

/** Findings of one severity and status at the end of a day, and what happened that day (issue 47). */
interface PostureStateColumns {
  day: Day;
  severity: SeverityName;
  status: FindingStatus;
  findings: number;
  risk: ColumnType<string, number, number>;
  /** Of `findings`: open and past their due date at the end of the day. */
  overdue: number;
  /** First seen that day (and ending it in this status). */
  opened: number;
  /** Fixed that day. */
  fixed: number;
  /** Open, whose due date passed that day. */
  breached: number;
  age_0_7: number;
  age_8_30: number;
  age_31_90: number;
  age_over_90: number;
}

export interface PostureDailyTable extends PostureStateColumns {
  application_id: number;
}

/**
 * Open findings (open, confirmed) of one application at the end of one day, per severity: the open
 * rows of `posture_daily` of that application and day, one row (application-days with any).
 */
export interface PostureOpenDailyTable {
  application_id: number;
  day: Day;
  critical: number;
  high: number;
  medium: number;
  low: number;
  info: number;
}

/** `posture_daily` summed per group; `group_id = 0` sums every application. */
export interface PostureGroupDailyTable extends PostureStateColumns {
  group_id: number;
}

/** The fixes of one day, by severity, scanner type and days-to-fix bucket. */
interface PostureFixColumns {
  day: Day;
  severity: SeverityName;
  scanner_type_id: number;
  /** Lower bound of the bucket of whole days from first seen to fixed (src/modules/metrics/fix-buckets.ts). */
  fix_days: number;
  fixed: number;
  /** Of `fixed`: those that had a due date. */
  sla_fixed: number;
  /** Of `sla_fixed`: fixed on or before it. */
  within_sla: number;
  fix_seconds: number;
}

export interface PostureFixesTable extends PostureFixColumns {
  application_id: number;
}

export interface PostureGroupFixesTable extends PostureFixColumns {
  group_id: number;
}

/** A roll-up period of the posture tables: an ISO week (from Monday) or a calendar month. */
export type PosturePeriod = 'week' | 'month';

/** The flows of a period's days (`day`: its first day) by severity, summed over every status. */
interface PosturePeriodFlowColumns {
  period: PosturePeriod;
  day: Day;
  severity: SeverityName;
  opened: number;
  fixed: number;
  breached: number;
}

export interface PosturePeriodFlowsTable extends PosturePeriodFlowColumns {
  application_id: number;
}

export interface PostureGroupPeriodFlowsTable extends PosturePeriodFlowColumns {
  group_id: number;
}

/** The fix tables' rows of a period's days (`day`: its first day), summed. */
interface PosturePeriodFixColumns extends PostureFixColumns {
  period: PosturePeriod;
}

export interface PosturePeriodFixesTable extends PosturePeriodFixColumns {
  application_id: number;
}

export interface PostureGroupPeriodFixesTable extends PosturePeriodFixColumns {
  group_id: number;
}

/** Days the posture job wrote; an incomplete day (written before it ended) is written again. */
export interface PostureDaysTable {
  day: Day;
  complete: boolean;
  written_at: CreatedAt;
}
