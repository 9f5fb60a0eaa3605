import { Version3Client } from 'jira.js';
import { outboundAxiosAdapter, type OutboundPolicy } from './outbound-fetch.ts';
import {
  OWN_COMMENT_TAG,
  trackerErrorFrom,
  TrackerError,
  type IssueDraft,
  type IssueTrackerAdapter,
  type TrackerIssueRef,
} from './types.ts';

/**
 * Jira (Cloud or Data Center) through jira.js's Version3Client with an axios adapter that sends
 * through the guarded outbound module. Basic auth is Jira Cloud's email + API token; token auth is a
 * bearer personal access token (Data Center). The marker is a label, found with JQL. Closing and
 * reopening are workflow transitions: the first one into (or out of) the `done` status category.
 * Calls: GET /rest/api/3/myself, GET /project/{key}, POST /issue, GET /search/jql, GET /issue/{key},
 * GET+POST /issue/{key}/transitions, POST /issue/{key}/comment.
 */

export interface JiraSettings {
  baseUrl: string;
  authType: 'token' | 'basic';
  email: string | null;
  token: string;
  projectKey: string;
  issueType: string;
}

interface JiraIssue {
  id?: string;
  key?: string;
  fields?: { status?: { statusCategory?: { key?: string } } };
}

/** Atlassian Document Format: one paragraph per line (Jira Cloud's v3 API takes no plain text). */
function document(text: string) {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return {
    type: 'doc' as const,
    version: 1 as const,
    content: lines.map((line) => ({ type: 'paragraph', content: [{ type: 'text', text: line }] })),
  };
}

export function jiraAdapter(settings: JiraSettings, policy: OutboundPolicy): IssueTrackerAdapter {
  const site = settings.baseUrl.replace(/\/+$/, '');
  const adapter = outboundAxiosAdapter(policy);
  // A Data Center personal access token is a bearer header; jira.js's oauth2 mode expects a cloud id.
  const client =
    settings.authType === 'basic'
      ? new Version3Client({
          host: site,
          authentication: { basic: { email: settings.email ?? '', apiToken: settings.token } },
          baseRequestConfig: { adapter },
        })
      : new Version3Client({
          host: site,
          baseRequestConfig: { adapter, headers: { Authorization: `Bearer ${settings.token}` } },
        });
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
  const comment = (key: string, text: string) =>
    client.issueComments.addComment({ issueIdOrKey: key, comment: document(`${text}\n${OWN_COMMENT_TAG}`) });
  const transition = (key: string, toDone: boolean, text: string) =>
    call(async () => {
      const { transitions = [] } = await client.issues.getTransitions({ issueIdOrKey: key });
      const target = transitions.find(
        (candidate) => (candidate.to?.statusCategory?.key === 'done') === toDone && candidate.id,
      );
      // No workflow path is a configuration problem: a 4xx-like reason, not retried.
      if (!target?.id) throw new TrackerError(`jira: no transition ${toDone ? 'to' : 'out of'} done`, 409);
      await comment(key, text);
      await client.issues.doTransition({ issueIdOrKey: key, transition: { id: target.id } });
    });

  return {
    provider: 'jira',
    testConnection: () =>
      call(async () => {
        await client.myself.getCurrentUser();
        await client.projects.getProject({ projectIdOrKey: settings.projectKey });
      }),
    createIssue: (draft: IssueDraft) =>
      call(async () => {
        const created = await client.issues.createIssue({
          fields: {
            project: { key: settings.projectKey },
            issuetype: { name: settings.issueType },
            summary: draft.title.slice(0, 250),
            description: document(draft.body),
            labels: [...draft.labels, draft.marker],
          },
        });
        return ref({ id: created.id, key: created.key });
      }),
    findByMarker: (marker) =>
      call(async () => {
        const found = await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
          jql: `project = "${settings.projectKey}" AND labels = "${marker}"`,
          fields: ['status'],
          maxResults: 5,
        });
        const first = found.issues?.[0];
        return first ? ref(first) : null;
      }),
    getIssue: (key) =>
      call(async () => ref(await client.issues.getIssue({ issueIdOrKey: key, fields: ['status'] }))),
    close: (key, text) => transition(key, true, text),
    reopen: (key, text) => transition(key, false, text),
    comment: (key, text) =>
      call(async () => {
        await comment(key, text);
      }),
  };
}
