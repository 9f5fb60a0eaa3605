import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

/** Records of the API, by their OpenAPI component name (`Schemas['Finding']`). */
export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];

/** A problem+json answer, thrown so TanStack Query and forms can show it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem> & { errors?: { path: string; message: string }[] },
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
  }
}

let csrfToken: string | undefined;

/** The CSRF token of the current session (from login, or fetched once). */
export function rememberCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

async function currentCsrfToken(): Promise<string> {
  if (!csrfToken) {
    const response = await fetch('/api/csrf-token', { credentials: 'same-origin' });
    csrfToken = ((await response.json()) as { csrfToken: string }).csrfToken;
  }
  return csrfToken;
}

const csrf: Middleware = {
  async onRequest({ request }) {
    if (request.method === 'GET' || request.method === 'HEAD') return request;
    request.headers.set('X-CSRF-Token', await currentCsrfToken());
    return request;
  },
};

/** The typed API client: paths, parameters and answers come from the server's OpenAPI document. */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(csrf);

/** The answer's data, or an ApiError carrying its problem. */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    const problem = (
      error && typeof error === 'object' ? error : { title: response.statusText }
    ) as ApiError['problem'];
    throw new ApiError(response.status, problem);
  }
  return data as T;
}

/** Field messages of a validation problem, keyed by the field name (`body.url` → `url`). */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  const fields: Record<string, string> = {};
  for (const issue of error.problem.errors ?? []) {
    const name = issue.path.replace(/^(body|query|params)\./, '').split(/[.[]/)[0] ?? issue.path;
    fields[name] ??= issue.message;
  }
  return fields;
}

type FindingListPage = components['schemas']['FindingList'];

/**
 * The JSON page of `GET /api/findings`. The same route answers exports (CSV, SARIF, NDJSON) when
 * asked for them; the UI never asks, so anything else is a bug worth an error.
 */
export function asFindingPage(data: FindingListPage | string | { runs: unknown }): FindingListPage {
  if (typeof data === 'string' || 'runs' in data) throw new Error('expected a JSON page of findings');
  return data;
}
