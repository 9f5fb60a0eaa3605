import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Fake Jira, GitHub and GitLab servers on 127.0.0.1: the few API calls scanhub makes, answered from
 * an in-memory issue list, every request recorded (method, path with query, headers, JSON body).
 * `failCreates` makes the next creates answer 502 *after* creating the issue, as a provider behind a
 * flaky proxy does; `close`/`reopen` change an issue as a person in the tracker would.
 */

export type Provider = 'jira' | 'github' | 'gitlab';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> | null;
}

export interface FakeIssue {
  number: number;
  key: string;
  title: string;
  body: string;
  labels: string[];
  state: 'open' | 'closed';
  comments: string[];
}

export interface FakeTracker {
  url: string;
  requests: RecordedRequest[];
  issues: FakeIssue[];
  /** Answer 502 to the next `n` creates, after creating the issue. */
  failCreates(n: number): void;
  close(number: number): void;
  /** Makes the issue views name this URL (as a hostile or broken tracker might) instead of their own. */
  answerIssueUrl(url: string): void;
  /** Calls other than these (method + path prefix) are the ones scanhub makes to the issue API. */
  calls(): string[];
  stop(): Promise<void>;
}

const json = (response: http.ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

export async function startFakeTracker(provider: Provider, validAuth: string): Promise<FakeTracker> {
  const requests: RecordedRequest[] = [];
  const issues: FakeIssue[] = [];
  let failing = 0;
  let base = '';
  let issueUrl: string | undefined;

  const find = (number: number) => issues.find((issue) => issue.number === number);
  const create = (title: string, body: string, labels: string[]) => {
    const number = issues.length + 1;
    const issue: FakeIssue = {
      number,
      key: `SEC-${number}`,
      title,
      body,
      labels,
      state: 'open',
      comments: [],
    };
    issues.push(issue);
    return issue;
  };
  const views = {
    github: (issue: FakeIssue) => ({
      number: issue.number,
      html_url: issueUrl ?? `${base}/acme/app/issues/${issue.number}`,
      state: issue.state,
      labels: issue.labels.map((name) => ({ name })),
    }),
    gitlab: (issue: FakeIssue) => ({
      iid: issue.number,
      web_url: issueUrl ?? `${base}/acme/app/-/issues/${issue.number}`,
      state: issue.state === 'closed' ? 'closed' : 'opened',
      labels: issue.labels,
    }),
    jira: (issue: FakeIssue) => ({
      id: String(10000 + issue.number),
      key: issue.key,
      fields: { status: { statusCategory: { key: issue.state === 'closed' ? 'done' : 'new' } } },
    }),
  };

  function route(
    method: string,
    url: URL,
    body: Record<string, unknown> | null,
    response: http.ServerResponse,
  ) {
    let path = url.pathname;
    const answerCreate = (issue: FakeIssue, view: unknown) => {
      if (failing > 0) {
        failing -= 1;
        return json(response, 502, { message: 'Bad gateway' });
      }
      return json(response, 201, view);
    };
    if (provider === 'github') {
      if (method === 'GET' && path === '/repos/acme/app')
        return json(response, 200, { full_name: 'acme/app' });
      if (method === 'POST' && path === '/repos/acme/app/issues') {
        const issue = create(String(body?.title), String(body?.body), (body?.labels as string[]) ?? []);
        return answerCreate(issue, views.github(issue));
      }
      if (method === 'GET' && path === '/repos/acme/app/issues') {
        const label = url.searchParams.get('labels') ?? '';
        return json(response, 200, issues.filter((issue) => issue.labels.includes(label)).map(views.github));
      }
      const match = /^\/repos\/acme\/app\/issues\/(\d+)(\/comments)?$/.exec(path);
      const issue = match ? find(Number(match[1])) : undefined;
      if (issue && match?.[2] && method === 'POST') {
        issue.comments.push(String(body?.body));
        return json(response, 201, { id: issue.comments.length });
      }
      if (issue && method === 'GET') return json(response, 200, views.github(issue));
      if (issue && method === 'PATCH') {
        issue.state = body?.state === 'closed' ? 'closed' : 'open';
        return json(response, 200, views.github(issue));
      }
    }
    if (provider === 'gitlab') {
      if (method === 'GET' && path === '/api/v4/projects/42') return json(response, 200, { id: 42 });
      if (method === 'POST' && path === '/api/v4/projects/42/issues') {
        const labels = String(body?.labels ?? '')
          .split(',')
          .filter(Boolean);
        const issue = create(String(body?.title), String(body?.description), labels);
        return answerCreate(issue, views.gitlab(issue));
      }
      if (method === 'GET' && path === '/api/v4/projects/42/issues') {
        const label = url.searchParams.get('labels') ?? '';
        return json(response, 200, issues.filter((issue) => issue.labels.includes(label)).map(views.gitlab));
      }
      const match = /^\/api\/v4\/projects\/42\/issues\/(\d+)(\/notes)?$/.exec(path);
      const issue = match ? find(Number(match[1])) : undefined;
      if (issue && match?.[2] && method === 'POST') {
        issue.comments.push(String(body?.body));
        return json(response, 201, { id: issue.comments.length });
      }
      if (issue && method === 'GET') return json(response, 200, views.gitlab(issue));
      if (issue && method === 'PUT') {
        issue.state = body?.state_event === 'close' ? 'closed' : 'open';
        return json(response, 200, views.gitlab(issue));
      }
    }
    if (provider === 'jira') {
      // Data Center's v2 API: the same calls under /rest/api/2, JQL search at /search.
      path = path
        .replace(/^\/rest\/api\/2\/search$/, '/rest/api/3/search/jql')
        .replace(/^\/rest\/api\/2\//, '/rest/api/3/');
      if (method === 'GET' && path === '/rest/api/3/myself') return json(response, 200, { accountId: 'me' });
      if (method === 'GET' && path === '/rest/api/3/project/SEC') return json(response, 200, { key: 'SEC' });
      if (method === 'POST' && path === '/rest/api/3/issue') {
        const fields = (body?.fields ?? {}) as Record<string, unknown>;
        const issue = create(
          String(fields.summary),
          JSON.stringify(fields.description),
          (fields.labels as string[]) ?? [],
        );
        return answerCreate(issue, { id: String(10000 + issue.number), key: issue.key, self: `${base}/x` });
      }
      if (method === 'GET' && path === '/rest/api/3/search/jql') {
        const label = /labels = "([^"]+)"/.exec(url.searchParams.get('jql') ?? '')?.[1] ?? '';
        return json(response, 200, {
          issues: issues.filter((issue) => issue.labels.includes(label)).map(views.jira),
        });
      }
      const match = /^\/rest\/api\/3\/issue\/SEC-(\d+)(\/transitions|\/comment)?$/.exec(path);
      const issue = match ? find(Number(match[1])) : undefined;
      if (issue && match?.[2] === '/transitions' && method === 'GET') {
        return json(response, 200, {
          transitions: [
            { id: '21', name: 'In Progress', to: { statusCategory: { key: 'indeterminate' } } },
            { id: '31', name: 'Done', to: { statusCategory: { key: 'done' } } },
          ],
        });
      }
      if (issue && match?.[2] === '/transitions' && method === 'POST') {
        issue.state = (body?.transition as { id?: string })?.id === '31' ? 'closed' : 'open';
        response.writeHead(204).end();
        return;
      }
      if (issue && match?.[2] === '/comment' && method === 'POST') {
        issue.comments.push(JSON.stringify(body?.body));
        return json(response, 201, { id: String(issue.comments.length) });
      }
      if (issue && method === 'GET') return json(response, 200, views.jira(issue));
    }
    json(response, 404, { message: `fake ${provider}: no route ${method} ${path}` });
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const url = new URL(request.url ?? '/', 'http://fake');
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      requests.push({
        method: request.method ?? '',
        path: url.pathname + url.search,
        headers: request.headers,
        body,
      });
      const auth = provider === 'gitlab' ? request.headers['private-token'] : request.headers.authorization;
      if (auth !== validAuth) {
        // Each provider's own shape of a refusal.
        return json(
          response,
          401,
          provider === 'jira' ? { errorMessages: ['Unauthorized'] } : { message: 'Bad credentials' },
        );
      }
      route(request.method ?? 'GET', url, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    issues,
    failCreates: (n) => void (failing = n),
    answerIssueUrl: (url) => void (issueUrl = url),
    close: (number) => {
      const issue = find(number);
      if (issue) issue.state = 'closed';
    },
    calls: () => requests.map((request) => `${request.method} ${request.path}`),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
