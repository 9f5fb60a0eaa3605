import { Octokit } from '@octokit/rest';
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
 * GitHub (github.com or Enterprise: `baseUrl` is the API root) through @octokit/rest with its
 * `fetch` replaced by the guarded one. Issues are found again by their marker label
 * (`GET /repos/{owner}/{repo}/issues?labels=…&state=all`: the list endpoint is consistent at once,
 * unlike search). Calls: repos.get, issues.create, issues.listForRepo, issues.get, issues.update,
 * issues.createComment.
 */

export interface GithubSettings {
  baseUrl: string;
  token: string;
  /** `owner/name`. */
  repository: string;
}

interface GithubIssue {
  number: number;
  html_url: string;
  state: string;
  pull_request?: unknown;
}

const ref = (issue: GithubIssue): TrackerIssueRef => ({
  id: String(issue.number),
  key: `#${issue.number}`,
  url: issue.html_url,
  state: issue.state === 'closed' ? 'closed' : 'open',
});

export function githubAdapter(settings: GithubSettings, policy: OutboundPolicy): IssueTrackerAdapter {
  const [owner = '', repo = ''] = settings.repository.split('/');
  const octokit = new Octokit({
    auth: settings.token,
    baseUrl: settings.baseUrl.replace(/\/+$/, ''),
    userAgent: 'scanhub-trackers/1',
    request: { fetch: outboundFetch(policy) },
    // Octokit would log deprecations and errors to the console; the job records its own reason.
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
  const number = (key: string): number => {
    const parsed = Number(key.replace(/^#/, ''));
    if (!Number.isInteger(parsed) || parsed <= 0)
      throw new TrackerError(`github: not an issue number: ${key}`);
    return parsed;
  };
  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw trackerErrorFrom('github', error);
    }
  };
  const setState = (key: string, state: 'open' | 'closed', comment: string) =>
    call(async () => {
      await octokit.rest.issues.createComment({ owner, repo, issue_number: number(key), body: comment });
      await octokit.rest.issues.update({
        owner,
        repo,
        issue_number: number(key),
        state,
        ...(state === 'closed' ? { state_reason: 'completed' as const } : {}),
      });
    });

  return {
    provider: 'github',
    testConnection: () =>
      call(async () => {
        await octokit.rest.repos.get({ owner, repo });
      }),
    createIssue: (draft: IssueDraft) =>
      call(async () => {
        const { data } = await octokit.rest.issues.create({
          owner,
          repo,
          title: draft.title,
          body: `${draft.body}\n\n<!-- ${draft.marker} -->`,
          labels: [...draft.labels, draft.marker],
        });
        return ref(data);
      }),
    findByMarker: (marker) =>
      call(async () => {
        const { data } = await octokit.rest.issues.listForRepo({
          owner,
          repo,
          labels: marker,
          state: 'all',
          per_page: 5,
        });
        const issue = data.find((candidate) => !candidate.pull_request);
        return issue ? ref(issue) : null;
      }),
    getIssue: (key) =>
      call(async () => ref((await octokit.rest.issues.get({ owner, repo, issue_number: number(key) })).data)),
    close: (key, comment) => setState(key, 'closed', comment),
    reopen: (key, comment) => setState(key, 'open', comment),
    comment: (key, body) =>
      call(async () => {
        await octokit.rest.issues.createComment({
          owner,
          repo,
          issue_number: number(key),
          body: `${body}\n\n${COMMENT_MARKER}`,
        });
      }),
  };
}
