import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reviewTarget } from './ci-environment.ts';

const dir = mkdtempSync(join(tmpdir(), 'scanhub-ci-env-'));
const eventFile = (event: unknown) => {
  const path = join(dir, `event-${Math.random()}.json`);
  writeFileSync(path, JSON.stringify(event));
  return path;
};

describe('reviewTarget', () => {
  it('reads a GitHub Actions pull_request event: number and head sha from the event file, not GITHUB_SHA', () => {
    const target = reviewTarget(
      {},
      {
        GITHUB_ACTIONS: 'true',
        GITHUB_REPOSITORY: 'acme/shop',
        GITHUB_API_URL: 'https://ghe.example/api/v3/',
        GITHUB_SERVER_URL: 'https://ghe.example',
        GITHUB_SHA: 'merge-sha',
        GITHUB_TOKEN: 't',
        GITHUB_EVENT_PATH: eventFile({ number: 12, pull_request: { number: 12, head: { sha: 'head-sha' } } }),
      },
    );
    expect(target).toEqual({
      forge: 'github',
      apiUrl: 'https://ghe.example/api/v3',
      repository: 'acme/shop',
      number: 12,
      headSha: 'head-sha',
      blobUrl: 'https://ghe.example/acme/shop/blob',
      token: 't',
      tokenHeader: 'authorization',
    });
  });

  it('reads a GitLab merge request pipeline; an explicit token is PRIVATE-TOKEN, the job token JOB-TOKEN', () => {
    const env = {
      GITLAB_CI: 'true',
      CI_MERGE_REQUEST_IID: '5',
      CI_PROJECT_ID: '42',
      CI_PROJECT_URL: 'https://gitlab.example/acme/shop',
      CI_API_V4_URL: 'https://gitlab.example/api/v4',
      CI_COMMIT_SHA: 'c0ffee',
      CI_JOB_TOKEN: 'job',
    };
    expect(reviewTarget({}, env)).toMatchObject({
      forge: 'gitlab',
      apiUrl: 'https://gitlab.example/api/v4',
      repository: '42',
      number: 5,
      headSha: 'c0ffee',
      blobUrl: 'https://gitlab.example/acme/shop/-/blob',
      token: 'job',
      tokenHeader: 'job-token',
    });
    expect(reviewTarget({}, { ...env, GITLAB_TOKEN: 'pat' })).toMatchObject({
      token: 'pat',
      tokenHeader: 'private-token',
    });
  });

  it('flags win over the environment', () => {
    const target = reviewTarget(
      { number: '99', repository: 'other/repo', headSha: 'abc', githubToken: 'flag' },
      {
        GITHUB_ACTIONS: 'true',
        GITHUB_REPOSITORY: 'acme/shop',
        GITHUB_TOKEN: 'env',
        GITHUB_EVENT_PATH: eventFile({ pull_request: { number: 1, head: { sha: 'x' } } }),
      },
    );
    expect(target).toMatchObject({ number: 99, repository: 'other/repo', headSha: 'abc', token: 'flag' });
  });

  it('refuses, as a usage error, what it cannot tell: no PR, no token, a push event, a bad repository', () => {
    const github = { GITHUB_ACTIONS: 'true', GITHUB_REPOSITORY: 'acme/shop', GITHUB_TOKEN: 't' };
    const push = { ...github, GITHUB_EVENT_PATH: eventFile({ ref: 'refs/heads/main' }) };
    expect(() => reviewTarget({}, push)).toThrow(/No pull request number/);
    expect(() => reviewTarget({ number: '1' }, { ...github, GITHUB_TOKEN: '' })).toThrow(/No GitHub token/);
    expect(() => reviewTarget({ number: '1', repository: '../x' }, github)).toThrow(/No GitHub repository/);
    expect(() => reviewTarget({ number: '1' }, {})).toThrow(/Not in GitHub Actions or GitLab CI/);
    expect(() => reviewTarget({ number: '1', forge: 'bitbucket' }, {})).toThrow(/github or gitlab/);
    expect(() =>
      reviewTarget(
        { number: '1', apiUrl: 'file:///etc' },
        { GITLAB_CI: 'true', CI_PROJECT_ID: '1', CI_JOB_TOKEN: 'j' },
      ),
    ).toThrow(/http/);
  });
});
