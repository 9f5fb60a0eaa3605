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

/** Sign-in attempts per bucket in a fixed window (src/modules/auth/login-throttle.ts). */
export interface LoginThrottleTable {
  bucket: string;
  attempts: number;
  window_ends_at: Timestamp;
}

export interface TeamsTable {
  id: Generated<number>;
  name: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface TeamMembersTable {
  team_id: number;
  user_id: number;
  role: string;
  /** `idp`: made by the OpenID provider's groups (reset at each sign-in); `manual`: by hand. */
  source: Generated<'manual' | 'idp'>;
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

export interface GroupsTable {
  id: Generated<number>;
  name: string;
  path: string;
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
  uploaded_via: 'api_key' | 'session' | 'application_token';
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
  started_at: Timestamp | null;
  completed_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
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
  epss: number | null;
  in_kev: Generated<boolean>;
  risk_score: number;
  risk_severity: number;
  risk_exploitation: number;
  risk_age: number;
  risk_asset: number;
  risk_formula_version: number;
  assignee_id: number | null;
  due_date: Timestamp | null;
  reviewed_at: Timestamp | null;
  reviewed_by: number | null;
  first_seen_at: CreatedAt;
  last_seen_at: UpdatedAt;
  fixed_at: Timestamp | null;
  /** Reported by its scope's latest scan; while true, last seen = the scope's (see finding_scopes). */
  present: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
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
  status: FindingStatus;
  findings: number;
  risk: number;
  fixed_timed: number;
  /** numeric: a string from the driver. */
  fix_seconds: string;
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

export interface DB {
  users: UsersTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  login_throttle: LoginThrottleTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  user_identities: UserIdentitiesTable;
  idp_group_mappings: IdpGroupMappingsTable;
  oidc_pending_logins: OidcPendingLoginsTable;
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
