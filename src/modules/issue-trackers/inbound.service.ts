import type { Kysely } from 'kysely';
import { parseId } from '../../access/access.ts';
import type { DB, TrackerProvider } from '../../db/schema.ts';
import { badRequest, notFound, unauthorized } from '../../errors.ts';
import { nulBytePath } from '../../http/validation.ts';
import { parseInbound, verifyInbound } from '../../integrations/issue-trackers/inbound.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { applyRemoteComment, applyRemoteState } from './remote-changes.ts';

const PROVIDERS: readonly string[] = ['jira', 'github', 'gitlab'];

export interface InboundRequest {
  provider: string;
  trackerRef: string;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer | undefined;
  querySecret: string | undefined;
}

/**
 * A provider's webhook: the tracker named in the path (its provider must match), the signature
 * checked against its secret (401 otherwise, before anything is read), then the change applied.
 */
export async function receiveTrackerWebhook(
  { db, secrets }: { db: Kysely<DB>; secrets: SecretBox },
  request: InboundRequest,
): Promise<{ received: boolean; applied: string }> {
  const id = parseId(request.trackerRef);
  if (!PROVIDERS.includes(request.provider) || id === null) throw notFound('Issue tracker');
  const tracker = await db
    .selectFrom('issue_trackers')
    .select(['id', 'provider', 'closed_status', 'webhook_secret_sealed'])
    .where('id', '=', id)
    .where('provider', '=', request.provider as TrackerProvider)
    .executeTakeFirst();
  if (!tracker) throw notFound('Issue tracker');
  const raw = request.raw ?? Buffer.alloc(0);
  const secret = secrets.open(tracker.webhook_secret_sealed);
  if (!verifyInbound(tracker.provider, secret, request.headers, raw, request.querySecret)) {
    throw unauthorized('The webhook signature or secret does not match');
  }
  let body: unknown;
  try {
    body = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : {};
  } catch {
    throw badRequest('invalid_json', 'The webhook body is not JSON');
  }
  const nul = nulBytePath(body, 'body');
  if (nul !== null) {
    throw badRequest('validation_failed', 'The request is invalid', [
      { path: nul, message: 'must not contain a NUL character' },
    ]);
  }
  const change = parseInbound(tracker.provider, request.headers, body);
  if (change.kind === 'ignored')
    return { received: true, applied: `ignored: ${change.reason}`.slice(0, 200) };
  if (change.kind === 'state') {
    return {
      received: true,
      applied: await applyRemoteState(db, tracker, change.key, change.state, 'webhook'),
    };
  }
  const text = change.text;
  if (text.trim() === '') return { received: true, applied: 'ignored: empty comment' };
  return { received: true, applied: await applyRemoteComment(db, tracker, change.key, change.author, text) };
}
