import type { TrackerProvider } from '../../db/schema.ts';

/**
 * The one small interface every issue-tracker provider implements (one adapter file each). Adapters
 * throw only `TrackerError`: a reason fit for `last_error` and the connection test, never a client's
 * error object (those carry requests, and requests carry tokens).
 */

export interface IssueDraft {
  title: string;
  /** Markdown (GitHub, GitLab), scanner text in a fenced block. */
  body: string;
  /** Plain text (Jira Cloud, whose documents take text as text). */
  text: string;
  /** Jira wiki markup (Jira Data Center's v2 API), scanner text in a `{noformat}` block. */
  wiki: string;
  labels: string[];
  /** The finding's marker (label and hidden text): how a retry finds an issue it already created. */
  marker: string;
}

export interface TrackerIssueRef {
  /** The provider's stable id (GitHub issue number, GitLab iid, Jira issue id). */
  id: string;
  /** What people call it: `#12`, `PROJ-7`. Webhooks name issues by it. */
  key: string;
  url: string;
  state: 'open' | 'closed';
}

export interface IssueTrackerAdapter {
  readonly provider: TrackerProvider;
  /** Resolves when the credentials work and the target (project, repository) is reachable. */
  testConnection(): Promise<void>;
  createIssue(draft: IssueDraft): Promise<TrackerIssueRef>;
  /** The issue carrying `marker`, open or closed, or null when none does. */
  findByMarker(marker: string): Promise<TrackerIssueRef | null>;
  getIssue(key: string): Promise<TrackerIssueRef>;
  close(key: string, comment: string): Promise<void>;
  reopen(key: string, comment: string): Promise<void>;
  comment(key: string, body: string): Promise<void>;
}

export class TrackerError extends Error {
  override name = 'TrackerError';
  /**
   * `status` is the provider's HTTP status when it answered; absent for timeouts and refused
   * connections. Both 5xx and no answer may hide a created issue (see `findByMarker`).
   */
  constructor(
    message: string,
    readonly status?: number,
    /** A refusal scanhub made itself that no retry can change (a credential bound elsewhere). */
    readonly final = false,
  ) {
    super(message.slice(0, 500));
  }

  get retryable(): boolean {
    return !this.final && (this.status === undefined || this.status >= 500 || this.status === 429);
  }
}

/**
 * An issue's address as the tracker gave it, kept only when it is an http(s) URL: it is shown as a
 * link, and a `javascript:` or `data:` one from a hostile or broken tracker would run in the app.
 */
export function webUrlOrNull(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.toString() : null;
  } catch {
    return null;
  }
}

/** The marker of a finding's issue: a label every provider can filter on. */
export const findingMarker = (findingId: number): string => `scanhub-finding-${findingId}`;

/** Hidden text in Markdown comments scanhub writes; an inbound comment carrying it is our own echo. */
export const COMMENT_MARKER = '<!-- scanhub -->';
/** The visible tag of comments scanhub writes where hidden text is impossible (Jira's documents). */
export const OWN_COMMENT_TAG = '[scanhub]';

/** Whether an inbound comment is one scanhub wrote (so it is not copied back to the finding). */
export const isOwnComment = (text: string): boolean =>
  text.includes(COMMENT_MARKER) || text.trimEnd().endsWith(OWN_COMMENT_TAG);

/**
 * A reason from any client failure: the status and the provider's message, cut short. Only the
 * fields named here are read, so a client error's request (headers, tokens) is never copied.
 */
export function trackerErrorFrom(provider: TrackerProvider, error: unknown): TrackerError {
  if (error instanceof TrackerError) return error;
  const candidate = error as {
    status?: unknown;
    response?: { status?: unknown; data?: unknown };
    cause?: { response?: { status?: unknown } };
    message?: unknown;
  } | null;
  const rawStatus = candidate?.status ?? candidate?.response?.status ?? candidate?.cause?.response?.status;
  const message = typeof candidate?.message === 'string' ? candidate.message : 'request failed';
  // Octokit reports a failed connection as status 500; it is no answer, and is said as such.
  const noAnswer = message.includes('fetch failed');
  const status = typeof rawStatus === 'number' && rawStatus >= 100 && !noAnswer ? rawStatus : undefined;
  const detail = providerMessage(candidate?.response?.data);
  const reason = [
    `${provider}`,
    status !== undefined ? `answered ${status}` : 'unreachable',
    detail ?? message,
  ]
    .filter(Boolean)
    .join(': ');
  return new TrackerError(reason, status);
}

function providerMessage(data: unknown): string | undefined {
  if (typeof data === 'string') {
    try {
      return providerMessage(JSON.parse(data));
    } catch {
      return data.slice(0, 200) || undefined;
    }
  }
  if (data === null || typeof data !== 'object') return undefined;
  const record = data as { errorMessages?: unknown; message?: unknown; errors?: unknown };
  if (Array.isArray(record.errorMessages) && record.errorMessages.length > 0) {
    return record.errorMessages.map(String).join('; ').slice(0, 200);
  }
  if (typeof record.message === 'string') return record.message.slice(0, 200);
  if (record.errors && typeof record.errors === 'object') return JSON.stringify(record.errors).slice(0, 200);
  return undefined;
}
