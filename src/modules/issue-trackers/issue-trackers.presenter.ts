import type { Selectable } from 'kysely';
import type { IssueTrackersTable, TrackerIssuesTable } from '../../db/schema.ts';
import { closedStatusOr } from '../../domain/findings/lifecycle.ts';
import { iso } from '../../http/schemas.ts';
import type { TrackerIssueRecord, TrackerRecord } from './issue-trackers.schema.ts';

/** The inbound webhook path of a tracker (the provider is part of it, so a wrong one is a 404). */
export const webhookPath = (tracker: { id: number; provider: string }): string =>
  `/api/integrations/${tracker.provider}/webhook/${tracker.id}`;

/** A tracker as the API shows it: the token and webhook secret only as "set" and the token's last 4. */
export function presentTracker(row: Selectable<IssueTrackersTable>): TrackerRecord {
  return {
    id: row.id,
    application_id: row.application_id,
    provider: row.provider,
    auth_type: row.auth_type,
    username: row.username,
    base_url: row.base_url,
    project_key: row.project_key,
    issue_type: row.issue_type,
    repository: row.repository,
    project_id: row.project_id,
    severity_threshold: row.severity_threshold,
    auto_create: row.auto_create,
    close_on_fix: row.close_on_fix,
    labels: row.labels,
    closed_status: closedStatusOr(row.closed_status),
    token_set: true,
    token_last4: row.token_last4,
    webhook_url: webhookPath(row),
    webhook_secret_set: true,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function presentTrackerIssue(row: Selectable<TrackerIssuesTable>): TrackerIssueRecord {
  return {
    id: row.id,
    tracker_id: row.tracker_id,
    finding_id: row.finding_id,
    provider: row.provider,
    external_id: row.external_id,
    external_key: row.external_key,
    url: row.url,
    state: row.state,
    last_synced_at: iso(row.last_synced_at),
    last_error: row.last_error,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
