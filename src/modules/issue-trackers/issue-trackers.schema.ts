import { Type, type Static } from 'typebox';
import { CLOSED_STATUSES } from '../../domain/findings/lifecycle.ts';
import { SEVERITIES } from '../../domain/findings/severity.ts';
import { BodyObject, Nullable, NullableTimestamp, Timestamp } from '../../http/schemas.ts';

const Provider = Type.Enum(['jira', 'github', 'gitlab']);
const SeverityThreshold = Type.Enum(SEVERITIES);
const ClosedStatus = Type.Enum(CLOSED_STATUSES);
const Text = (maxLength: number, description: string) =>
  Type.String({ minLength: 1, maxLength, description });

/** POST /api/applications/{id}/issue-tracker: creates the tracker, or changes the given fields. */
export const UpsertTrackerBody = BodyObject({
  provider: Provider,
  /** `token` (all providers) or `basic` (Jira Cloud: `email` + API token). Default `token`. */
  auth_type: Type.Optional(Type.Enum(['token', 'basic'])),
  /** API token, personal access token or Jira API token. Sealed at rest, never returned. Required on create. */
  token: Type.Optional(Text(1024, 'API token; never returned')),
  /** The account for basic auth (Jira Cloud: the account's email). */
  username: Type.Optional(Nullable(Text(256, 'Account name for basic auth'))),
  email: Type.Optional(Nullable(Text(256, 'Account email for Jira Cloud basic auth'))),
  /** Jira site; GitHub API root (default https://api.github.com); GitLab instance (default https://gitlab.com). */
  base_url: Type.Optional(Text(2048, 'http(s) URL of the tracker')),
  project_key: Type.Optional(Nullable(Text(64, 'Jira project key'))),
  issue_type: Type.Optional(Nullable(Text(64, 'Jira issue type (default Bug)'))),
  repository: Type.Optional(Nullable(Text(256, 'GitHub repository, owner/name'))),
  project_id: Type.Optional(Nullable(Text(256, 'GitLab project id or path'))),
  severity_threshold: Type.Optional(SeverityThreshold),
  auto_create: Type.Optional(Type.Boolean()),
  close_on_fix: Type.Optional(Type.Boolean()),
  labels: Type.Optional(Type.Array(Text(64, 'A label put on every issue'), { maxItems: 20 })),
  /** Where a finding goes when its issue is closed in the tracker. Default `fixed`. */
  closed_status: Type.Optional(ClosedStatus),
  /** Secret for inbound webhooks; generated when absent (and then returned once, at creation). */
  webhook_secret: Type.Optional(Type.String({ minLength: 16, maxLength: 256 })),
});
export type UpsertTrackerInput = Static<typeof UpsertTrackerBody>;

export const TrackerSchema = Type.Object(
  {
    id: Type.Integer(),
    application_id: Type.Integer(),
    provider: Provider,
    auth_type: Type.Enum(['token', 'basic']),
    username: Nullable(Type.String()),
    base_url: Type.String(),
    project_key: Nullable(Type.String()),
    issue_type: Nullable(Type.String()),
    repository: Nullable(Type.String()),
    project_id: Nullable(Type.String()),
    severity_threshold: SeverityThreshold,
    auto_create: Type.Boolean(),
    close_on_fix: Type.Boolean(),
    labels: Type.Array(Type.String()),
    closed_status: ClosedStatus,
    token_set: Type.Boolean(),
    token_last4: Type.String(),
    /** Where the tracker sends its webhooks (path on this server). */
    webhook_url: Type.String(),
    webhook_secret_set: Type.Boolean(),
    /** Only in the answer that created the tracker (or set a new secret): keep it now. */
    webhook_secret: Type.Optional(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'IssueTracker' },
);
export type TrackerRecord = Static<typeof TrackerSchema>;

export const TrackerIssueSchema = Type.Object(
  {
    id: Type.Integer(),
    tracker_id: Type.Integer(),
    finding_id: Type.Integer(),
    provider: Provider,
    external_id: Nullable(Type.String()),
    /** `PROJ-7` or `#12`; null while the issue is being created. */
    external_key: Nullable(Type.String()),
    url: Nullable(Type.String()),
    /** `pending` until the provider answered; `failed` when it refused for good. */
    state: Type.Enum(['pending', 'open', 'closed', 'failed']),
    last_synced_at: NullableTimestamp,
    last_error: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'TrackerIssue' },
);
export type TrackerIssueRecord = Static<typeof TrackerIssueSchema>;

export const ConnectionResultSchema = Type.Object(
  { success: Type.Boolean(), message: Type.String() },
  { title: 'ConnectionResult' },
);

export const InboundParams = Type.Object({ provider: Type.String(), trackerId: Type.String() });
/** Open to other parameters: a tracker may append its own to the webhook URL (Jira's `user_id`). */
export const InboundQuery = Type.Object(
  { secret: Type.Optional(Type.String({ maxLength: 256 })) },
  { additionalProperties: true },
);
export const InboundResultSchema = Type.Object({ received: Type.Boolean(), applied: Type.String() });
