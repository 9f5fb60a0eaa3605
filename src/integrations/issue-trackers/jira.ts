import { jiraApi } from './jira-api.ts';
import type { JiraIssue } from './jira-api.ts';
import type { OutboundPolicy } from './outbound-fetch.ts';
import {
  OWN_COMMENT_TAG,
  trackerErrorFrom,
  TrackerError,
  type IssueDraft,
  type IssueTrackerAdapter,
  type TrackerIssueRef,
} from './types.ts';

/**
 * Jira through jira.js: Cloud (basic: email + API token, REST v3) or Data Center (bearer personal
 * access token, REST v2), see `jira-api.ts`. The marker is a label, found with JQL. Closing and
 * reopening are workflow transitions: the first one into (or out of) the `done` status category.
 * Calls (v3 shown; v2 the same paths, and `GET /search` for the JQL): GET /myself, GET /project/{key},
 * POST /issue, GET /search/jql, GET /issue/{key}, GET+POST /issue/{key}/transitions,
 * POST /issue/{key}/comment.
 */

export interface JiraSettings {
  baseUrl: string;
  authType: 'token' | 'basic';
  email: string | null;
  token: string;
  projectKey: string;
  issueType: string;
}

export function jiraAdapter(settings: JiraSettings, policy: OutboundPolicy): IssueTrackerAdapter {
  const site = settings.baseUrl.replace(/\/+$/, '');
  const api = jiraApi(
    { site, authType: settings.authType, email: settings.email, token: settings.token },
    policy,
  );
  const ref = (issue: JiraIssue): TrackerIssueRef => {
    if (!issue.key || !issue.id) throw new TrackerError('jira: the answer names no issue');
    return {
      id: issue.id,
      key: issue.key,
      url: `${site}/browse/${issue.key}`,
      state: issue.fields?.status?.statusCategory?.key === 'done' ? 'closed' : 'open',
    };
  };
  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw trackerErrorFrom('jira', error);
    }
  };
  // Jira texts cannot hide a marker; the visible tag tells our own comments apart.
  const comment = (key: string, text: string) => api.comment(key, `${text}\n${OWN_COMMENT_TAG}`);
  const transition = (key: string, toDone: boolean, text: string) =>
    call(async () => {
      const transitions = await api.transitions(key);
      const target = transitions.find(
        (candidate) => (candidate.to?.statusCategory?.key === 'done') === toDone && candidate.id,
      );
      // No workflow path is a configuration problem: a 4xx-like reason, not retried.
      if (!target?.id) throw new TrackerError(`jira: no transition ${toDone ? 'to' : 'out of'} done`, 409);
      await comment(key, text);
      await api.transition(key, target.id);
    });

  return {
    provider: 'jira',
    testConnection: () => call(() => api.checkAccess(settings.projectKey)),
    createIssue: (draft: IssueDraft) =>
      call(async () =>
        ref(
          await api.create({
            projectKey: settings.projectKey,
            issueType: settings.issueType,
            summary: draft.title.slice(0, 250),
            description: { text: draft.text, wiki: draft.wiki },
            labels: [...draft.labels, draft.marker],
          }),
        ),
      ),
    findByMarker: (marker) =>
      call(async () => {
        const [first] = await api.search(`project = "${settings.projectKey}" AND labels = "${marker}"`);
        return first ? ref(first) : null;
      }),
    getIssue: (key) => call(async () => ref(await api.get(key))),
    close: (key, text) => transition(key, true, text),
    reopen: (key, text) => transition(key, false, text),
    comment: (key, text) =>
      call(async () => {
        await comment(key, text);
      }),
  };
}
