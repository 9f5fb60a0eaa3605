import type { Kysely } from 'kysely';
import { parseId } from '../../access/access.ts';
import type { DB, TrackerProvider } from '../../db/schema.ts';
import { badRequest, notFound, unauthorized } from '../../errors.ts';
import { nulBytePath } from '../../http/validation.ts';
import {
  deliveryKeys,
  eventTime,
  parseInbound,
  verifyInbound,
} from '../../integrations/issue-trackers/inbound.ts';
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
  if (change.kind === 'comment' && change.text.trim() === '')
    return { received: true, applied: 'ignored: empty comment' };
  const sent = eventTime(tracker.provider, body);
  if (sent && sent.getTime() < Date.now() - REPLAY_WINDOW_MS) {
    return { received: true, applied: 'ignored: older than the replay window' };
  }
  const keys = deliveryKeys(tracker.provider, request.headers, raw);
  if (!(await remember(db, tracker.id, keys)))
    return { received: true, applied: 'ignored: duplicate delivery' };
  try {
    const applied =
      change.kind === 'state'
        ? await applyRemoteState(db, tracker, change.key, change.state, 'webhook')
        : await applyRemoteComment(db, tracker, change.key, change.author, change.text);
    return { received: true, applied };
  } catch (error) {
    // Not applied: the provider's retry of this delivery must not be taken for a replay.
    await db
      .deleteFrom('tracker_deliveries')
      .where('tracker_id', '=', tracker.id)
      .where('delivery_id', 'in', keys)
      .execute();
    throw error;
  }
}

/**
 * How long a delivery is remembered. Providers retry for hours at most (GitHub not at all, GitLab
 * and Jira within a day); a delivery whose event is older than this is refused outright.
 */
const REPLAY_WINDOW_MS = 7 * 24 * 3600 * 1000;

/**
 * Records the delivery's keys; false when any was seen already (a replay, or a provider's retry
 * of a delivery that was applied). In the database: every server sharing it sees the same record.
 * Records past the window are dropped on the way.
 */
async function remember(db: Kysely<DB>, trackerId: number, keys: readonly string[]): Promise<boolean> {
  await db
    .deleteFrom('tracker_deliveries')
    .where('received_at', '<', new Date(Date.now() - REPLAY_WINDOW_MS))
    .execute();
  const inserted = await db
    .insertInto('tracker_deliveries')
    .values(keys.map((delivery_id) => ({ tracker_id: trackerId, delivery_id })))
    .onConflict((conflict) => conflict.doNothing())
    .returning('delivery_id')
    .execute();
  return inserted.length === keys.length;
}
