import { Gitlab } from '@gitbeaker/rest';
import { createRequesterFn, type RequestOptions } from '@gitbeaker/requester-utils';
import { outboundFetch, type OutboundPolicy } from './outbound-fetch.ts';
import {
  COMMENT_MARKER,
  trackerErrorFrom,
  TrackerError,
  type IssueDraft,
  type IssueTrackerAdapter,
  type TrackerIssueRef,
} from './types.ts';

/**
 * GitLab (gitlab.com or self-managed) through @gitbeaker/rest with a request handler of our own:
 * the guarded fetch, and no client-side retry of 502s (gitbeaker's default retries ten times; a
 * tracker job is retried by pg-boss, which looks for the marker first). Calls: Projects.show,
 * Issues.create, Issues.all (labels filter), Issues.show, Issues.edit (state_event), IssueNotes.create.
 */

export interface GitlabSettings {
  baseUrl: string;
  token: string;
  projectId: string;
}

interface GitlabIssue {
  iid: number;
  web_url: string;
  state: string;
}

const ref = (issue: GitlabIssue): TrackerIssueRef => ({
  id: String(issue.iid),
  key: `#${issue.iid}`,
  url: issue.web_url,
  state: issue.state === 'closed' ? 'closed' : 'open',
});

type HandlerOptions = RequestOptions & { prefixUrl?: string; searchParams?: string; body?: string };

function guardedRequester(policy: OutboundPolicy) {
  const send = outboundFetch(policy);
  return createRequesterFn(
    async (_, options) => options,
    async (endpoint: string, options?: Record<string, unknown>) => {
      const { prefixUrl, searchParams, method, headers, body } = (options ?? {}) as HandlerOptions;
      const base = prefixUrl?.endsWith('/') ? prefixUrl : `${prefixUrl ?? ''}/`;
      const url = new URL(endpoint, base);
      url.search = searchParams ?? '';
      const response = await send(url, {
        method: method ?? 'GET',
        headers: headers as Record<string, string>,
        ...(body !== undefined ? { body } : {}),
      });
      const text = await response.text();
      if (!response.ok) {
        throw Object.assign(new Error(`GitLab answered ${response.status}`), {
          status: response.status,
          response: { status: response.status, data: text },
        });
      }
      const json: unknown =
        text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
      return {
        body: json as Record<string, unknown>,
        headers: Object.fromEntries(response.headers),
        status: response.status,
      };
    },
  );
}

export function gitlabAdapter(settings: GitlabSettings, policy: OutboundPolicy): IssueTrackerAdapter {
  const api = new Gitlab({
    host: settings.baseUrl.replace(/\/+$/, ''),
    token: settings.token,
    requesterFn: guardedRequester(policy),
  });
  const projectId = settings.projectId;
  const iid = (key: string): number => {
    const parsed = Number(key.replace(/^#/, ''));
    if (!Number.isInteger(parsed) || parsed <= 0) throw new TrackerError(`gitlab: not an issue iid: ${key}`);
    return parsed;
  };
  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw trackerErrorFrom('gitlab', error);
    }
  };
  const note = (key: string, body: string) =>
    api.IssueNotes.create(projectId, iid(key), `${body}\n\n${COMMENT_MARKER}`);
  const setState = (key: string, stateEvent: 'close' | 'reopen', comment: string) =>
    call(async () => {
      await note(key, comment);
      await api.Issues.edit(projectId, iid(key), { stateEvent });
    });

  return {
    provider: 'gitlab',
    testConnection: () =>
      call(async () => {
        await api.Projects.show(projectId);
      }),
    createIssue: (draft: IssueDraft) =>
      call(async () => {
        const issue = await api.Issues.create(projectId, draft.title, {
          description: `${draft.body}\n\n<!-- ${draft.marker} -->`,
          labels: [...draft.labels, draft.marker].join(','),
        });
        return ref(issue as unknown as GitlabIssue);
      }),
    findByMarker: (marker) =>
      call(async () => {
        const issues = await api.Issues.all({ projectId, labels: marker, perPage: 5, maxPages: 1 });
        const first = (issues as unknown as GitlabIssue[])[0];
        return first ? ref(first) : null;
      }),
    getIssue: (key) =>
      call(async () => ref((await api.Issues.show(iid(key), { projectId })) as unknown as GitlabIssue)),
    close: (key, comment) => setState(key, 'close', comment),
    reopen: (key, comment) => setState(key, 'reopen', comment),
    comment: (key, body) =>
      call(async () => {
        await note(key, body);
      }),
  };
}
