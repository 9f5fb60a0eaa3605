import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { corpusPath } from '../support/parse-corpus.ts';
import { buildSarif, type SarifResultSpec } from '../support/sarif-builder.ts';
import { createTestApp, listenOnLoopback, type TestApp } from '../support/test-app.ts';

/**
 * `scanhub upload --pr-comment` end to end: the CLI as a child process against a real server and a
 * fake GitHub / GitLab API on 127.0.0.1 that records every request and keeps the comments posted.
 */

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
let t: TestApp;
let url: string;
let admin: TestUser;
let work: string;

interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: {
    body?: string;
    conclusion?: string;
    output?: { annotations: { path: string; start_line: number }[] };
  } | null;
}

/** A forge that stores comments; `failures` answers the next requests with these statuses first. */
class FakeForge {
  requests: Recorded[] = [];
  comments = new Map<number, string>();
  failures: number[] = [];
  checkRuns = new Map<number, number>();
  private nextId = 100;
  server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      const path = request.url ?? '';
      const body = raw ? (JSON.parse(raw) as Recorded['body']) : null;
      this.requests.push({ method: request.method ?? '', path, headers: request.headers, body });
      const failure = this.failures.shift();
      const send = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(value));
      };
      if (failure !== undefined) return send(failure, { message: `fake ${failure}` });
      if (request.method === 'GET' && /\/pulls\/\d+\/files\?/.test(path))
        return send(200, [{ filename: 'src/c.ts', patch: '@@ -1,2 +1,6 @@\n a\n+b\n+c\n+d\n+e\n f' }]);
      if (request.method === 'GET' && /\/check-runs\?/.test(path))
        return send(200, { check_runs: [...this.checkRuns.keys()].map((id) => ({ id })) });
      if (request.method === 'POST' && path.endsWith('/check-runs')) {
        const id = this.nextId++;
        this.checkRuns.set(id, 1);
        return send(201, { id });
      }
      const checkRun = /\/check-runs\/(\d+)$/.exec(path);
      if (request.method === 'PATCH' && checkRun) return send(200, { id: Number(checkRun[1]) });
      const list = /^(.*\/(?:comments|notes))\?/.exec(path);
      if (request.method === 'GET' && list)
        return send(
          200,
          [...this.comments].map(([id, text]) => ({ id, body: text })),
        );
      const one = /\/(?:comments|notes)\/(\d+)$/.exec(path);
      if (one && (request.method === 'PATCH' || request.method === 'PUT')) {
        this.comments.set(Number(one[1]), body?.body ?? '');
        return send(200, { id: Number(one[1]), body: body?.body });
      }
      if (request.method === 'POST' && /\/(?:comments|notes)$/.test(path)) {
        const id = this.nextId++;
        this.comments.set(id, body?.body ?? '');
        return send(201, { id, body: body?.body });
      }
      send(404, { message: 'Not Found' });
    });
  });
  async listen(): Promise<string> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    const address = this.server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }
  writes = () => this.requests.filter((request) => request.method !== 'GET');
}

const forge = new FakeForge();
let forgeUrl: string;

beforeAll(async () => {
  t = await createTestApp();
  url = await listenOnLoopback(t);
  admin = await makeUser(t, { role: 'admin' });
  work = mkdtempSync(join(tmpdir(), 'scanhub-pr-'));
  forgeUrl = await forge.listen();
});
afterAll(async () => {
  await t.close();
  forge.server.close();
  rmSync(work, { recursive: true, force: true });
});
beforeEach(() => {
  forge.requests = [];
  forge.comments.clear();
  forge.checkRuns.clear();
  forge.failures = [];
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['bin/scanhub.js', ...args],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', SCANHUB_URL: url, ...env } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function sarifFile(name: string, results: SarifResultSpec[]): string {
  const path = join(work, name);
  writeFileSync(path, buildSarif({ tool: 'PrTool', results }));
  return path;
}

const BASE = [
  { ruleId: 'B1', path: 'src/a.ts', line: 3, level: 'error' as const },
  { ruleId: 'B2', path: 'src/b.ts', line: 4, level: 'warning' as const },
];
const HEAD_SHA = 'abc123def4567890abc123def4567890abc12345';

function githubEnv(token: string): Record<string, string> {
  const event = join(work, 'event.json');
  writeFileSync(
    event,
    JSON.stringify({
      action: 'synchronize',
      number: 7,
      pull_request: { number: 7, head: { sha: HEAD_SHA } },
    }),
  );
  return {
    SCANHUB_TOKEN: token,
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_EVENT_PATH: event,
    GITHUB_API_URL: forgeUrl,
    GITHUB_SERVER_URL: 'https://github.example',
    GITHUB_SHA: 'merge-commit-not-the-head',
    GITHUB_TOKEN: 'ghs_secret_token',
  };
}

describe('scanhub upload --pr-comment on GitHub', () => {
  it('posts one comment, edits it on a rerun, and says briefly when nothing is new', async () => {
    const app = await makeApplication(t, admin);
    const env = githubEnv(app.api_token);
    const main = await cli(['upload', sarifFile('main.sarif', BASE), '--version', 'main'], env);
    expect(main.code, main.stderr).toBe(0);
    const feature = sarifFile('feature.sarif', [
      { ruleId: 'B1', path: 'src/a.ts', line: 3, level: 'error' },
      {
        ruleId: 'B3',
        path: 'src/c.ts',
        line: 5,
        level: 'error',
        message: 'ping @octocat <img src=x> [x](http://evil)',
      },
    ]);
    const args = [
      'upload',
      feature,
      '--version',
      'pr-7',
      '--baseline',
      'main',
      '--fail-on',
      'high',
      '--pr-comment',
    ];

    const first = await cli(args, env);
    expect(first.code, first.stderr).toBe(1); // the gate fails; the comment is still posted
    expect(forge.writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /repos/acme/shop/issues/7/comments',
    ]);
    expect(forge.requests[0]?.headers.authorization).toBe('Bearer ghs_secret_token');
    const body = forge.writes()[0]?.body?.body ?? '';
    expect(body.startsWith(`<!-- scanhub:pr-comment application=${app.id} -->`)).toBe(true);
    expect(body).toMatch(/\*\*1 new\*\* over `main`: 1 high/);
    expect(body).toContain(`(https://github.example/acme/shop/blob/${HEAD_SHA}/src/c.ts#L5)`);
    expect(body).toMatch(new RegExp(`\\(${url}/findings/\\d+\\)`));
    expect(body).toContain('**1 fixed**');
    expect(body).toContain('**Gate failed**: 1 new open finding at or above high');
    expect(body).not.toMatch(/@octocat|<img|\[x\]\(http/);
    expect(first.stderr + first.stdout).not.toContain('ghs_secret_token');

    const rerun = await cli(args, env);
    expect(rerun.code, rerun.stderr).toBe(1);
    // unchanged content: found by its marker, not posted again
    expect(forge.writes().map((r) => r.method)).toEqual(['POST']);
    expect(forge.comments.size).toBe(1);

    const clean = sarifFile('clean.sarif', BASE);
    const fixedRun = await cli(
      ['upload', clean, '--version', 'pr-7', '--baseline', 'main', '--fail-on', 'high', '--pr-comment'],
      env,
    );
    expect(fixedRun.code, fixedRun.stderr).toBe(0);
    expect(forge.writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /repos/acme/shop/issues/7/comments',
      'PATCH /repos/acme/shop/issues/comments/100',
    ]);
    expect(forge.comments.get(100)).toContain('No new findings over `main`.');
    expect(forge.comments.get(100)).toContain('**Gate passed**');
  }, 90_000);

  it('--pr-annotations: a scanhub check run annotating new findings on changed lines only; a rerun makes a new run', async () => {
    const app = await makeApplication(t, admin);
    const env = githubEnv(app.api_token);
    await cli(['upload', sarifFile('am.sarif', BASE), '--version', 'main'], env);
    const feature = sarifFile('af.sarif', [
      ...BASE,
      { ruleId: 'IN', path: 'src/c.ts', line: 5, level: 'error' }, // added line
      { ruleId: 'CTX', path: 'src/c.ts', line: 1, level: 'error' }, // context line: summary only
      { ruleId: 'ELSE', path: 'src/z.ts', line: 2, level: 'warning' }, // file not in the diff
    ]);
    const args = ['upload', feature, '--version', 'pr-a', '--baseline', 'main', '--fail-on', 'high'];
    const run = await cli([...args, '--pr-comment', '--pr-annotations'], env);
    expect(run.code, run.stderr).toBe(1);
    const created = forge.writes().find((r) => r.path === '/repos/acme/shop/check-runs');
    expect(created?.method).toBe('POST');
    expect(created?.body).toMatchObject({ name: 'scanhub', head_sha: HEAD_SHA, conclusion: 'failure' });
    expect(created?.body?.output?.annotations).toEqual([
      expect.objectContaining({ path: 'src/c.ts', start_line: 5, annotation_level: 'failure' }),
    ]);
    expect(run.stdout).toMatch(/1 annotation\(s\) on changed lines, 2 new finding\(s\) outside the diff/);

    forge.requests = [];
    const rerun = await cli([...args, '--pr-comment', '--pr-annotations'], env);
    expect(rerun.code, rerun.stderr).toBe(1);
    // GitHub appends an update's annotations to the run's own: a rerun makes a new run (the newest
    // one is shown), so no finding is annotated twice.
    const rerunWrites = forge.writes();
    expect(rerunWrites.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /repos/acme/shop/check-runs']);
    expect(rerunWrites[0]?.body?.output?.annotations).toHaveLength(1);

    const gitlabOnly = await cli([...args, '--pr-comment', '--pr-annotations', '--forge', 'gitlab'], {
      ...env,
      CI_API_V4_URL: forgeUrl,
      CI_PROJECT_ID: '1',
      CI_JOB_TOKEN: 'j',
      CI_MERGE_REQUEST_IID: '1',
    });
    expect(gitlabOnly.code).toBe(2);
  }, 90_000);

  it('retries 5xx, and exits 3 naming the cause on 404 (wrong pull request) and 403', async () => {
    const app = await makeApplication(t, admin);
    const env = githubEnv(app.api_token);
    await cli(['upload', sarifFile('m2.sarif', BASE), '--version', 'main'], env);
    const args = [
      'upload',
      sarifFile('f2.sarif', BASE),
      '--version',
      'pr-8',
      '--baseline',
      'main',
      '--pr-comment',
      '--retries',
      '2',
    ];

    forge.failures = [502, 503];
    const retried = await cli(args, env);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stderr).toMatch(/github: retry in \d+ ms after GET .* HTTP 502/);
    expect(forge.writes()).toHaveLength(1);

    forge.failures = [404];
    const wrong = await cli([...args, '--pr-number', '9999'], env);
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(/answered 404.*pull request #9999 of acme\/shop not found/);

    forge.failures = [403];
    const refused = await cli(args, env);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/answered 403.*pull-requests: write/);
    expect(refused.stderr).not.toContain('ghs_secret_token');
  }, 90_000);

  it('refuses --pr-comment without --baseline and outside a pull request (exit 2)', async () => {
    const app = await makeApplication(t, admin);
    const file = sarifFile('u.sarif', BASE);
    const noBaseline = await cli(['upload', file, '--pr-comment'], githubEnv(app.api_token));
    expect(noBaseline.code).toBe(2);
    expect(noBaseline.stderr).toMatch(/--pr-comment needs --baseline/);
    const push = { ...githubEnv(app.api_token), GITHUB_EVENT_PATH: join(work, 'missing-event.json') };
    const noPr = await cli(['upload', file, '--baseline', 'main', '--pr-comment'], push);
    expect(noPr.code).toBe(2);
    expect(noPr.stderr).toMatch(/No pull request number/);
    expect(forge.requests).toHaveLength(0);
  }, 60_000);
});

describe('scanhub upload --pr-comment on GitLab', () => {
  it('reads a merge request pipeline, posts a note with the job token, stays silent when asked', async () => {
    const app = await makeApplication(t, admin);
    const env = {
      SCANHUB_TOKEN: app.api_token,
      GITLAB_CI: 'true',
      CI_MERGE_REQUEST_IID: '3',
      CI_PROJECT_ID: '42',
      CI_PROJECT_URL: 'https://gitlab.example/acme/shop',
      CI_API_V4_URL: `${forgeUrl}/api/v4`,
      CI_COMMIT_SHA: HEAD_SHA,
      CI_JOB_TOKEN: 'job-secret',
    };
    await cli(['upload', sarifFile('gm.sarif', BASE), '--version', 'main'], env);
    const feature = sarifFile('gf.sarif', [
      ...BASE,
      { ruleId: 'G3', path: 'lib/x.rb', line: 9, level: 'warning' },
    ]);
    const report = join(work, 'gl-code-quality.json');
    const run = await cli(
      [
        'upload',
        feature,
        '--version',
        'mr-3',
        '--baseline',
        'main',
        '--pr-comment',
        '--code-quality',
        report,
      ],
      env,
    );
    expect(run.code, run.stderr).toBe(1); // --baseline without --fail-on counts any new finding
    expect(forge.writes().map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/v4/projects/42/merge_requests/3/notes',
    ]);
    expect(forge.requests[0]?.headers['job-token']).toBe('job-secret');
    expect(forge.writes()[0]?.body?.body).toContain(
      `(https://gitlab.example/acme/shop/-/blob/${HEAD_SHA}/lib/x.rb#L9)`,
    );

    const quality = JSON.parse(readFileSync(report, 'utf8')) as {
      severity: string;
      fingerprint: string;
      location: { path: string; lines: { begin: number } };
    }[];
    expect(quality.map((issue) => `${issue.location.path}:${issue.location.lines.begin}`).sort()).toEqual([
      'lib/x.rb:9',
      'src/a.ts:3',
      'src/b.ts:4',
    ]);
    expect(new Set(quality.map((issue) => issue.fingerprint)).size).toBe(3);
    const levels = ['info', 'minor', 'major', 'critical', 'blocker'];
    expect(quality.every((issue) => levels.includes(issue.severity))).toBe(true);

    forge.comments.clear();
    forge.requests = [];
    const silent = await cli(
      [
        'upload',
        sarifFile('gc.sarif', BASE),
        '--version',
        'mr-4',
        '--baseline',
        'main',
        '--pr-comment',
        '--pr-comment-silent',
      ],
      { ...env, CI_MERGE_REQUEST_IID: '4' },
    );
    expect(silent.code, silent.stderr).toBe(0);
    expect(forge.writes()).toHaveLength(0);
    expect(forge.requests.map((r) => r.path)[0]).toMatch(
      /^\/api\/v4\/projects\/42\/merge_requests\/4\/notes\?/,
    );
  }, 90_000);
});

describe('scanhub upload of several reports of one scanner', () => {
  it('refuses (exit 2) two Trivy reports into one version, unless each has its own category', async () => {
    const app = await makeApplication(t, admin);
    const env = { SCANHUB_TOKEN: app.api_token };
    const files = [corpusPath('trivy/scheme_2_many_vulns.json'), corpusPath('trivy/kubernetes.json')];
    const refused = await cli(['upload', ...files, '--version', 'v1'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/both trivy reports.*--category/s);
    const scans = await t.db.selectFrom('scans').select('id').where('application_id', '=', app.id).execute();
    expect(scans).toHaveLength(0);

    const byPath = await cli(
      ['upload', ...files, '--version', 'v1', '--category-from-path', '--root', corpusPath('.'), '--json'],
      env,
    );
    expect(byPath.code, byPath.stderr).toBe(0);
    const result = JSON.parse(byPath.stdout) as { uploads: { scan: { fixed_findings_count: number } }[] };
    expect(result.uploads.map((upload) => upload.scan.fixed_findings_count)).toEqual([0, 0]);
  }, 60_000);
});
