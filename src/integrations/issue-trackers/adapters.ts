import type { Selectable } from 'kysely';
import type { Config } from '../../config.ts';
import type { IssueTrackersTable } from '../../db/schema.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { githubAdapter } from './github.ts';
import { gitlabAdapter } from './gitlab.ts';
import { jiraAdapter } from './jira.ts';
import type { IssueTrackerAdapter } from './types.ts';

export type TrackerRow = Selectable<IssueTrackersTable>;

/** The adapter for a configured tracker, its token unsealed only here, for the client's lifetime. */
export function trackerAdapter(
  tracker: TrackerRow,
  secrets: SecretBox,
  config: Pick<Config, 'outbound' | 'trackers'>,
): IssueTrackerAdapter {
  const policy = { timeoutMs: config.trackers.timeoutMs, allowPrivate: config.outbound.allowPrivate };
  const token = secrets.open(tracker.token_sealed);
  switch (tracker.provider) {
    case 'github':
      return githubAdapter(
        { baseUrl: tracker.base_url, token, repository: tracker.repository ?? '' },
        policy,
      );
    case 'gitlab':
      return gitlabAdapter({ baseUrl: tracker.base_url, token, projectId: tracker.project_id ?? '' }, policy);
    case 'jira':
      return jiraAdapter(
        {
          baseUrl: tracker.base_url,
          authType: tracker.auth_type,
          email: tracker.username,
          token,
          projectKey: tracker.project_key ?? '',
          issueType: tracker.issue_type ?? 'Bug',
        },
        policy,
      );
  }
}
