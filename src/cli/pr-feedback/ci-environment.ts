import { readFileSync } from 'node:fs';
import { usageError } from '../errors.ts';

/** Where the pull request (GitHub) or merge request (GitLab) lives, and who may write to it. */
export interface ReviewTarget {
  forge: 'github' | 'gitlab';
  /** API root, e.g. https://api.github.com or https://gitlab.example/api/v4 (no trailing slash). */
  apiUrl: string;
  /** GitHub `owner/name`; GitLab project id or `group/project` path. */
  repository: string;
  /** Pull request number or merge request IID. */
  number: number;
  /** Commit the findings are linked at. */
  headSha: string | null;
  /** Links a file at a commit: `${blobUrl}/<sha>/<path>#L<line>`. */
  blobUrl: string;
  token: string;
  /** GitLab: `JOB-TOKEN` for CI_JOB_TOKEN, else `PRIVATE-TOKEN`. */
  tokenHeader: 'authorization' | 'private-token' | 'job-token';
}

/** Flags that override what the CI environment says. */
export interface ReviewFlags {
  forge?: string | undefined;
  apiUrl?: string | undefined;
  repository?: string | undefined;
  number?: string | undefined;
  headSha?: string | undefined;
  githubToken?: string | undefined;
  gitlabToken?: string | undefined;
}

interface GithubEvent {
  pull_request?: { number?: unknown; head?: { sha?: unknown } };
  number?: unknown;
}

function readEvent(path: string | undefined): GithubEvent {
  if (!path) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as GithubEvent;
  } catch {
    return {};
  }
}

function httpUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`${what} is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`${what} must be http(s)`);
  return url.href.replace(/\/+$/, '');
}

function reviewNumber(value: unknown, what: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0)
    throw usageError(`No ${what}: pass --pr-number (not in a pull/merge request pipeline?)`);
  return number;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;

function github(flags: ReviewFlags, env: NodeJS.ProcessEnv): ReviewTarget {
  const event = readEvent(env.GITHUB_EVENT_PATH);
  const apiUrl = httpUrl(flags.apiUrl ?? env.GITHUB_API_URL ?? 'https://api.github.com', '--forge-api-url');
  const repository = flags.repository ?? env.GITHUB_REPOSITORY;
  // owner/name only: a `..` segment would move the API path elsewhere on the host.
  const segments = repository?.split('/') ?? [];
  const plain = (segment: string) => /^[\w.-]+$/.test(segment) && !/^\.+$/.test(segment);
  if (!repository || segments.length !== 2 || !segments.every(plain))
    throw usageError('No GitHub repository: pass --repository owner/name or set GITHUB_REPOSITORY');
  const token = flags.githubToken ?? env.GITHUB_TOKEN;
  if (!token) throw usageError('No GitHub token: pass --github-token or set GITHUB_TOKEN');
  return {
    forge: 'github',
    apiUrl,
    repository,
    number: reviewNumber(
      flags.number ?? text(event.pull_request?.number) ?? text(event.number),
      'pull request number',
    ),
    headSha: flags.headSha ?? text(event.pull_request?.head?.sha) ?? env.GITHUB_SHA ?? null,
    blobUrl: `${httpUrl(env.GITHUB_SERVER_URL ?? 'https://github.com', 'GITHUB_SERVER_URL')}/${repository}/blob`,
    token,
    tokenHeader: 'authorization',
  };
}

function gitlab(flags: ReviewFlags, env: NodeJS.ProcessEnv): ReviewTarget {
  const apiUrl = flags.apiUrl ?? env.CI_API_V4_URL;
  if (!apiUrl) throw usageError('No GitLab API URL: pass --forge-api-url or set CI_API_V4_URL');
  const repository = flags.repository ?? env.CI_PROJECT_ID;
  if (!repository) throw usageError('No GitLab project: pass --repository <id or path> or set CI_PROJECT_ID');
  const explicit = flags.gitlabToken ?? env.GITLAB_TOKEN;
  const token = explicit ?? env.CI_JOB_TOKEN;
  if (!token) throw usageError('No GitLab token: pass --gitlab-token or set GITLAB_TOKEN (or CI_JOB_TOKEN)');
  return {
    forge: 'gitlab',
    apiUrl: httpUrl(apiUrl, '--forge-api-url'),
    repository,
    number: reviewNumber(flags.number ?? env.CI_MERGE_REQUEST_IID, 'merge request IID'),
    headSha: flags.headSha ?? env.CI_COMMIT_SHA ?? null,
    blobUrl: `${httpUrl(env.CI_PROJECT_URL ?? `${new URL(httpUrl(apiUrl, '--forge-api-url')).origin}/${repository}`, 'CI_PROJECT_URL')}/-/blob`,
    token,
    tokenHeader: explicit ? 'private-token' : 'job-token',
  };
}

/**
 * The review to comment on, from flags first, then the CI environment: GitHub Actions
 * (`GITHUB_REPOSITORY`, the `pull_request` event file, `GITHUB_API_URL`) or GitLab CI
 * (`CI_MERGE_REQUEST_IID`, `CI_PROJECT_ID`, `CI_API_V4_URL`, `CI_COMMIT_SHA`).
 */
export function reviewTarget(flags: ReviewFlags, env: NodeJS.ProcessEnv): ReviewTarget {
  const forge =
    flags.forge ??
    (flags.githubToken ? 'github' : flags.gitlabToken ? 'gitlab' : undefined) ??
    (env.GITHUB_ACTIONS === 'true' ? 'github' : env.GITLAB_CI === 'true' ? 'gitlab' : undefined);
  if (forge === 'github') return github(flags, env);
  if (forge === 'gitlab') return gitlab(flags, env);
  throw usageError(
    forge === undefined
      ? 'Not in GitHub Actions or GitLab CI: pass --forge github|gitlab with --repository and --pr-number'
      : `--forge must be github or gitlab (got ${forge})`,
  );
}
