import { setTimeout as sleep } from 'node:timers/promises';
import { serverError } from './errors.ts';
import type { Credentials } from './options.ts';

/** A request body made afresh for each try (a stream can be read only once). */
export type BodyFactory = () => AsyncIterable<Uint8Array>;

export interface RequestOptions {
  method?: 'GET' | 'POST';
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  body?: BodyFactory;
  /** Called before a retry, with the reason, so the CLI can say it is retrying. */
  onRetry?: (attempt: number, reason: string, delayMs: number) => void;
}

export interface ClientOptions {
  /** Tries after the first; network errors, 5xx and 429 are retried. */
  retries: number;
  /** First backoff delay; doubled each try (plus jitter), capped at 30 s. */
  baseDelayMs: number;
}

const RETRY_STATUS = (status: number) => status >= 500 || status === 429;
/** A read that hangs this long is given up and retried; uploads have no limit (files may be large). */
const READ_TIMEOUT_MS = 60_000;
const MAX_DELAY_MS = 30_000;

/** What a problem+json body says, or the status text. */
async function problemDetail(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const problem = JSON.parse(text) as { detail?: string; title?: string; code?: string };
    const words = problem.detail ?? problem.title ?? text;
    return problem.code ? `${words} (${problem.code})` : words;
  } catch {
    return text.slice(0, 500) || response.statusText;
  }
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/**
 * The scanhub API over Node's fetch, with the caller's credentials. Network errors, 5xx and 429
 * are retried with exponential backoff (429's `Retry-After` honoured); other answers are returned
 * or, from `json`, turned into an exit-3 error carrying the problem's detail.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly credentials: Credentials,
    private readonly options: ClientOptions,
  ) {}

  private authHeaders(): Record<string, string> {
    return this.credentials.kind === 'token'
      ? { 'x-api-token': this.credentials.token }
      : { 'x-api-key': this.credentials.key };
  }

  url(path: string, query: RequestOptions['query'] = {}): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, String(value));
    return url.href;
  }

  /** Sends with retries; resolves with the last response (any status), rejects after the last network error. */
  async request(path: string, options: RequestOptions = {}): Promise<Response> {
    const url = this.url(path, options.query);
    for (let attempt = 0; ; attempt++) {
      let reason: string;
      let retryAfterMs: number | undefined;
      try {
        const body = options.body?.();
        const response = await fetch(url, {
          method: options.method ?? 'GET',
          headers: { 'user-agent': 'scanhub-cli', ...this.authHeaders(), ...options.headers },
          ...(body
            ? { body: body as unknown as RequestInit['body'], duplex: 'half' }
            : { signal: AbortSignal.timeout(READ_TIMEOUT_MS) }),
        } as RequestInit);
        if (!RETRY_STATUS(response.status) || attempt >= this.options.retries) return response;
        reason = `HTTP ${response.status}`;
        const retryAfter = Number(response.headers.get('retry-after'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) retryAfterMs = retryAfter * 1000;
        await response.body?.cancel().catch(() => {});
      } catch (error) {
        if (attempt >= this.options.retries)
          throw serverError(`Cannot reach ${this.baseUrl}: ${networkReason(error)}`);
        reason = networkReason(error);
      }
      const backoff = this.options.baseDelayMs * 2 ** attempt * (1 + Math.random() * 0.2);
      const delay = Math.min(MAX_DELAY_MS, retryAfterMs ?? backoff);
      options.onRetry?.(attempt + 1, reason, delay);
      await sleep(delay);
    }
  }

  /** GET (or the given request) answered 2xx with JSON; anything else is an exit-3 error. */
  async json<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.request(path, options);
    return this.expectJson<T>(response, `${options.method ?? 'GET'} ${path}`);
  }

  async expectJson<T>(response: Response, what: string): Promise<T> {
    if (!response.ok) {
      const detail = await problemDetail(response);
      const hint =
        response.status === 401
          ? ' (check --token/SCANHUB_TOKEN or --api-key/SCANHUB_API_KEY)'
          : response.status === 404
            ? ' (not found, or not readable with these credentials)'
            : '';
      throw serverError(`${what} answered ${response.status}: ${detail}${hint}`);
    }
    return (await response.json()) as T;
  }
}
