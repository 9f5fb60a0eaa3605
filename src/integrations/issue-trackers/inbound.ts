import { createHash, createHmac } from 'node:crypto';
import type { TrackerProvider } from '../../db/schema.ts';
import { constantTimeEqual } from '../../lib/secrets.ts';

/**
 * Inbound provider webhooks: how each provider proves the call is from it, and what it says.
 * - GitHub signs the raw body: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 with the secret>`.
 * - GitLab sends the secret itself in `X-Gitlab-Token`.
 * - Jira (its webhooks carry no signature for admin-made hooks) gets the secret in the URL
 *   (`?secret=`) or an `X-Scanhub-Secret` header.
 * Every comparison is constant-time.
 */

export type InboundChange =
  | { kind: 'state'; key: string; state: 'open' | 'closed' }
  | { kind: 'comment'; key: string; author: string; text: string }
  | { kind: 'ignored'; reason: string };

type Headers = Record<string, string | string[] | undefined>;
const header = (headers: Headers, name: string): string => {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
};

export function verifyInbound(
  provider: TrackerProvider,
  secret: string,
  headers: Headers,
  raw: Buffer,
  querySecret: string | undefined,
): boolean {
  switch (provider) {
    case 'github': {
      const expected = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
      return constantTimeEqual(header(headers, 'x-hub-signature-256'), expected);
    }
    case 'gitlab':
      return constantTimeEqual(header(headers, 'x-gitlab-token'), secret);
    case 'jira':
      return constantTimeEqual(querySecret ?? header(headers, 'x-scanhub-secret'), secret);
  }
}

/* The payloads are the providers' JSON; only the few fields named below are read. */
type Json = Record<string, unknown>;
const object = (value: unknown): Json => (value && typeof value === 'object' ? (value as Json) : {});
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const integer = (value: unknown): number | null => (Number.isInteger(value) ? (value as number) : null);

/** Jira comments arrive as text (v2 hooks) or an Atlassian document: its text nodes, joined. */
function documentText(value: unknown): string {
  if (typeof value === 'string') return value;
  const node = object(value);
  if (typeof node.text === 'string') return node.text;
  const children = Array.isArray(node.content) ? node.content.map(documentText) : [];
  return children.join(node.type === 'doc' ? '\n' : '');
}

export function parseInbound(provider: TrackerProvider, headers: Headers, body: unknown): InboundChange {
  const payload = object(body);
  if (provider === 'github') {
    const event = header(headers, 'x-github-event');
    const issue = object(payload.issue);
    const number = integer(issue.number);
    if (number === null || issue.pull_request)
      return { kind: 'ignored', reason: `github ${event || 'event'}` };
    if (event === 'issues' && (payload.action === 'closed' || payload.action === 'reopened')) {
      return { kind: 'state', key: `#${number}`, state: payload.action === 'closed' ? 'closed' : 'open' };
    }
    if (event === 'issue_comment' && payload.action === 'created') {
      const comment = object(payload.comment);
      const author = text(object(comment.user).login) || 'someone';
      return { kind: 'comment', key: `#${number}`, author, text: text(comment.body) };
    }
    return { kind: 'ignored', reason: `github ${event} ${text(payload.action)}`.trim() };
  }
  if (provider === 'gitlab') {
    const event = header(headers, 'x-gitlab-event');
    const attributes = object(payload.object_attributes);
    if (event === 'Issue Hook') {
      const iid = integer(attributes.iid);
      const action = attributes.action;
      if (iid !== null && (action === 'close' || action === 'reopen')) {
        return { kind: 'state', key: `#${iid}`, state: action === 'close' ? 'closed' : 'open' };
      }
    }
    if (event === 'Note Hook' && attributes.noteable_type === 'Issue') {
      const iid = integer(object(payload.issue).iid);
      const author = text(object(payload.user).username) || 'someone';
      if (iid !== null) return { kind: 'comment', key: `#${iid}`, author, text: text(attributes.note) };
    }
    return { kind: 'ignored', reason: `gitlab ${event || 'event'}` };
  }
  const event = text(payload.webhookEvent);
  const issue = object(payload.issue);
  const key = text(issue.key);
  if (!key) return { kind: 'ignored', reason: `jira ${event || 'event'}` };
  if (event === 'jira:issue_updated') {
    const category = text(object(object(object(issue.fields).status).statusCategory).key);
    if (category) return { kind: 'state', key, state: category === 'done' ? 'closed' : 'open' };
  }
  if (event === 'comment_created') {
    const comment = object(payload.comment);
    const author = text(object(comment.author).displayName) || 'someone';
    return { kind: 'comment', key, author, text: documentText(comment.body) };
  }
  return { kind: 'ignored', reason: `jira ${event}` };
}

/**
 * The names under which a delivery is remembered, to refuse it a second time: the provider's
 * delivery id (GitHub `X-GitHub-Delivery`, GitLab `X-Gitlab-Event-UUID`, Jira
 * `X-Atlassian-Webhook-Identifier`) and the body's hash. Both, because GitHub signs only the body:
 * whoever captured a signed body can send it again under any delivery id.
 */
export function deliveryKeys(provider: TrackerProvider, headers: Headers, raw: Buffer): string[] {
  const idHeader = {
    github: 'x-github-delivery',
    gitlab: 'x-gitlab-event-uuid',
    jira: 'x-atlassian-webhook-identifier',
  }[provider];
  const id = header(headers, idHeader).trim().slice(0, 200);
  return [`sha256:${createHash('sha256').update(raw).digest('hex')}`, ...(id ? [`id:${id}`] : [])];
}

/**
 * When the provider says the event happened (GitHub and GitLab: the issue's or comment's
 * `updated_at`; Jira: the payload's `timestamp`), or null when it does not say. A delivery older
 * than the replay window is refused: past the window its keys are forgotten.
 */
export function eventTime(provider: TrackerProvider, body: unknown): Date | null {
  const payload = object(body);
  const candidates =
    provider === 'github'
      ? [object(payload.comment).updated_at, object(payload.issue).updated_at]
      : provider === 'gitlab'
        ? [object(payload.object_attributes).updated_at]
        : [payload.timestamp];
  for (const candidate of candidates) {
    const time =
      typeof candidate === 'number'
        ? new Date(candidate)
        : typeof candidate === 'string'
          ? new Date(candidate)
          : null;
    if (time && !Number.isNaN(time.getTime())) return time;
  }
  return null;
}
