import { setTimeout as sleep } from 'node:timers/promises';
import { CliError, serverError } from '../errors.ts';
import type { ReviewTarget } from './ci-environment.ts';

const READ_TIMEOUT_MS = 30_000;
const MAX_DELAY_MS = 60_000;

export interface ForgeOptions {
  retries: number;
  baseDelayMs: number;
  /** Told before each retry, so the CI log says why the step takes longer. */
  onRetry: (reason: string, delayMs: number) => void;
}

function authHeader(target: ReviewTarget): Record<string, string> {
  if (target.tokenHeader === 'authorization') return { authorization: `Bearer ${target.token}` };
  return { [target.tokenHeader]: target.token };
}

function hint(target: ReviewTarget, status: number): string {
  const review =
    target.forge === 'github' ? `pull request #${target.number}` : `merge request !${target.number}`;
  if (status === 404)
    return ` (${review} of ${target.repository} not found: wrong --pr-number or --repository, or the token cannot see it)`;
  if (status === 401) return ' (the token was refused)';
  if (status === 403)
    return target.forge === 'github'
      ? ' (the token lacks pull-requests: write / issues: write, or a rate limit was hit)'
      : ' (the token may not write notes: CI_JOB_TOKEN cannot; use a project access token as GITLAB_TOKEN)';
  return '';
}

/**
 * JSON calls to the configured forge API only (never a URL taken from a response). 5xx, 429 and a
 * rate-limited 403 (with Retry-After) are retried with backoff; anything else non-2xx is an
 * exit-3 error naming the call, the status and the likely cause. The token never appears in errors.
 */
export async function forgeJson<T>(
  target: ReviewTarget,
  options: ForgeOptions,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT',
  path: string,
  body?: unknown,
): Promise<T> {
  const url = `${target.apiUrl}${path}`;
  for (let attempt = 0; ; attempt++) {
    let reason: string;
    let retryAfterMs: number | undefined;
    try {
      const response = await fetch(url, {
        method,
        headers: {
          'user-agent': 'scanhub-cli',
          accept: target.forge === 'github' ? 'application/vnd.github+json' : 'application/json',
          ...authHeader(target),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(READ_TIMEOUT_MS),
      });
      const retryAfter = Number(response.headers.get('retry-after'));
      if (Number.isFinite(retryAfter) && retryAfter > 0) retryAfterMs = retryAfter * 1000;
      const rateLimited = response.status === 403 && retryAfterMs !== undefined;
      const retryable = response.status >= 500 || response.status === 429 || rateLimited;
      if (response.ok) return (await response.json()) as T;
      if (!retryable || attempt >= options.retries) {
        const detail = (await response.text().catch(() => '')).slice(0, 300).replace(/\s+/g, ' ');
        throw serverError(
          `${target.forge} ${method} ${path} answered ${response.status}${rateLimited ? ' (rate limited)' : ''}: ${detail}${hint(target, response.status)}`,
        );
      }
      reason = `HTTP ${response.status}`;
      await response.body?.cancel().catch(() => {});
    } catch (error) {
      if (error instanceof CliError) throw error;
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      reason = cause ?? (error instanceof Error ? error.message : String(error));
      if (attempt >= options.retries) throw serverError(`Cannot reach ${target.apiUrl}: ${reason}`);
    }
    const backoff = options.baseDelayMs * 2 ** attempt * (1 + Math.random() * 0.2);
    const delay = Math.min(MAX_DELAY_MS, retryAfterMs ?? backoff);
    options.onRetry(`${method} ${path}: ${reason}`, delay);
    await sleep(delay);
  }
}
