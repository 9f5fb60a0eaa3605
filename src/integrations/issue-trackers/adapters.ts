import type { Selectable } from 'kysely';
import type { Config } from '../../config.ts';
import type { IssueTrackersTable } from '../../db/schema.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { originOf } from '../../lib/outbound-http.ts';
import { TrackerError, type IssueTrackerAdapter } from './types.ts';

export type TrackerRow = Selectable<IssueTrackersTable>;

/**
 * The adapter for a configured tracker, its token unsealed only here, for the client's lifetime.
 * Each provider's client library is imported on first use, not at start: jira.js alone (with zod
 * and axios) is ~420 modules, and most servers never call a tracker, or not in their first second.
 */
export async function trackerAdapter(
  tracker: TrackerRow,
  secrets: SecretBox,
  config: Pick<Config, 'outbound' | 'trackers'>,
): Promise<IssueTrackerAdapter> {
  const target = originOf(tracker.base_url);
  // The token goes only to the origin it was saved for (whoever changed base_url since never
  // re-entered it), and the shims check every request against it again.
  if (!target || target !== tracker.token_origin) return refusingAdapter(tracker.provider);
  const policy = {
    timeoutMs: config.trackers.timeoutMs,
    allowPrivate: config.outbound.allowPrivate,
    credentialOrigin: target,
  };
  const token = secrets.open(tracker.token_sealed);
  switch (tracker.provider) {
    case 'github': {
      const { githubAdapter } = await import('./github.ts');
      return githubAdapter(
        { baseUrl: tracker.base_url, token, repository: tracker.repository ?? '' },
        policy,
      );
    }
    case 'gitlab': {
      const { gitlabAdapter } = await import('./gitlab.ts');
      return gitlabAdapter({ baseUrl: tracker.base_url, token, projectId: tracker.project_id ?? '' }, policy);
    }
    case 'jira': {
      const { jiraAdapter } = await import('./jira.ts');
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
}

/** Every call fails, sending nothing: the stored token was saved for another origin than `base_url`'s. */
function refusingAdapter(provider: TrackerRow['provider']): IssueTrackerAdapter {
  const refuse = () =>
    Promise.reject(
      new TrackerError(
        `${provider}: the token was saved for another address than base_url; save the token again`,
        undefined,
        true,
      ),
    );
  return {
    provider,
    testConnection: refuse,
    createIssue: refuse,
    findByMarker: refuse,
    getIssue: refuse,
    close: refuse,
    reopen: refuse,
    comment: refuse,
  };
}
