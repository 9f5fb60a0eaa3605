import type { Kysely } from 'kysely';
import type { ResolvedApplication, ResolvedInApplication } from '../../access/resources.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { badRequest, notFound } from '../../errors.ts';
import { trackerAdapter, type TrackerRow } from '../../integrations/issue-trackers/adapters.ts';
import { trackerErrorFrom } from '../../integrations/issue-trackers/types.ts';
import type { Jobs } from '../../jobs/job-map.ts';
import { originOf } from '../../lib/outbound-http.ts';
import { randomToken, type SecretBox } from '../../lib/secrets.ts';
import { presentTracker, presentTrackerIssue } from './issue-trackers.presenter.ts';
import type { TrackerIssueRecord, TrackerRecord, UpsertTrackerInput } from './issue-trackers.schema.ts';
import { claimLinks } from './issue-trackers.subscriber.ts';
import { lastFour, trackerSettings } from './tracker-settings.ts';

/**
 * An application's issue tracker. Reading it needs read on the application; configuring, testing and
 * deleting it need write. The token is sealed at once and only ever shown as `token_last4`.
 */

/** What says where issues live: changing any of these starts the links afresh. */
const TARGET_FIELDS = ['provider', 'base_url', 'project_key', 'repository', 'project_id'] as const;

type TrackerContext = { db: Kysely<DB>; secrets: SecretBox; config: Pick<Config, 'outbound' | 'trackers'> };

async function trackerOf(db: Kysely<DB>, applicationId: number) {
  const row = await db
    .selectFrom('issue_trackers')
    .selectAll()
    .where('application_id', '=', applicationId)
    .executeTakeFirst();
  if (!row) throw notFound('Issue tracker');
  return row;
}

export async function getTracker(db: Kysely<DB>, app: ResolvedApplication): Promise<TrackerRecord> {
  return presentTracker(await trackerOf(db, app.id));
}

/**
 * A tracker as its audit rows show it: every setting, with the sealed token and inbound secret under
 * their own names, which the masking function replaces (a new token shows as a change, never a value).
 */
const NOT_SETTINGS = new Set(['id', 'application_id', 'created_by', 'created_at', 'updated_at']);
function auditFields(row: TrackerRow): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([name]) => !NOT_SETTINGS.has(name)));
}

/** Creates the tracker (`created: true`) or applies the given fields to it. */
export async function upsertTracker(
  { db, secrets }: Pick<TrackerContext, 'db' | 'secrets'>,
  user: UserPrincipal,
  app: ResolvedApplication,
  input: UpsertTrackerInput,
  audit: AuditContext,
): Promise<{ created: boolean; tracker: TrackerRecord }> {
  const stored = await db
    .selectFrom('issue_trackers')
    .selectAll()
    .where('application_id', '=', app.id)
    .executeTakeFirst();
  // Another provider needs its own token: the stored one is never sent to a different service.
  const settings = trackerSettings(
    input,
    stored,
    input.token !== undefined || stored?.provider === input.provider,
  );
  if (stored && input.token === undefined) requireTokenToRedirect(stored, settings);
  const token =
    input.token !== undefined
      ? {
          token_sealed: secrets.seal(input.token),
          token_last4: lastFour(input.token),
          token_origin: originOf(settings.base_url),
        }
      : undefined;
  // The inbound secret belongs to the tracker it was made for: a tracker moved to another origin
  // gets a new one (returned once) unless one is given, so the old site's hooks stop being believed.
  const moved = stored !== undefined && originOf(settings.base_url) !== originOf(stored.base_url);
  const newSecret = input.webhook_secret ?? (stored && !moved ? undefined : randomToken('shw_', 24));
  const secret = newSecret !== undefined ? { webhook_secret_sealed: secrets.seal(newSecret) } : undefined;
  if (stored) {
    const row = await db.transaction().execute(async (trx) => {
      // Links name issues of the tracker they were filed in; pointed elsewhere, they would be
      // closed, reopened and commented in the wrong place. The issues stay where they are.
      if (TARGET_FIELDS.some((field) => settings[field] !== stored[field])) {
        await trx.deleteFrom('tracker_issues').where('tracker_id', '=', stored.id).execute();
      }
      const updated = await trx
        .updateTable('issue_trackers')
        .set({ ...settings, ...token, ...secret, updated_at: new Date() })
        .where('id', '=', stored.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordAudit(trx, audit, {
        action: 'issue_tracker.updated',
        target: { type: 'issue_tracker', id: updated.id, label: updated.provider },
        applicationId: app.id,
        before: auditFields(stored),
        after: auditFields(updated),
      });
      return updated;
    });
    const shown =
      input.webhook_secret === undefined && newSecret !== undefined ? { webhook_secret: newSecret } : {};
    return { created: false, tracker: { ...presentTracker(row), ...shown } };
  }
  // trackerSettings refused a create without a token; a new tracker always gets a secret.
  if (!token || !secret || newSecret === undefined) throw new Error('unreachable: token and secret are set');
  const row = await db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('issue_trackers')
      .values({ ...settings, ...token, ...secret, application_id: app.id, created_by: user.id })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, audit, {
      action: 'issue_tracker.created',
      target: { type: 'issue_tracker', id: inserted.id, label: inserted.provider },
      applicationId: app.id,
      after: auditFields(inserted),
    });
    return inserted;
  });
  return { created: true, tracker: { ...presentTracker(row), webhook_secret: newSecret } };
}

/**
 * A 400 naming `token` when a change without a token would send the stored one somewhere (or on
 * behalf of someone) it was not saved for. Whoever may edit the tracker may not have seen the
 * token: only someone who can give it again may move it. What counts:
 * - `base_url`'s origin (the Jira site, the GitHub API host, the GitLab instance);
 * - the account it authenticates (`auth_type`, and Jira's `email`, half of a basic credential);
 * - on GitHub, the repository's owner (one host serves everyone; the owner is who the issues, and
 *   the token's writes, go to); on GitLab, the project (an id names no owner). A Jira project key
 *   stays within the site, which belongs to one organisation, and may change freely.
 */
function requireTokenToRedirect(
  stored: Pick<
    TrackerRow,
    'provider' | 'base_url' | 'token_origin' | 'auth_type' | 'username' | 'repository' | 'project_id'
  >,
  settings: ReturnType<typeof trackerSettings>,
): void {
  const owner = (repository: string | null | undefined) => repository?.split('/')[0]?.toLowerCase() ?? null;
  const changed: string[] = [];
  if (originOf(settings.base_url) !== (stored.token_origin ?? null)) changed.push('base_url');
  if (settings.auth_type !== stored.auth_type) changed.push('auth_type');
  if ((settings.username ?? null) !== stored.username) changed.push('email');
  if (settings.provider === 'github' && owner(settings.repository) !== owner(stored.repository))
    changed.push('repository');
  if (settings.provider === 'gitlab' && settings.project_id !== stored.project_id) changed.push('project_id');
  if (changed.length === 0) return;
  const why = `must be given again when ${changed.join(', ')} change${changed.length > 1 ? '' : 's'}`;
  throw badRequest(
    'validation_failed',
    `token ${why}: the stored token is only sent where it was saved for`,
    [{ path: 'body.token', message: why }],
  );
}

/** Removes the tracker and its links; the issues stay in the tracker. */
export async function deleteTracker(
  db: Kysely<DB>,
  app: ResolvedApplication,
  audit: AuditContext,
): Promise<void> {
  const tracker = await trackerOf(db, app.id);
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('issue_trackers').where('id', '=', tracker.id).execute();
    await recordAudit(trx, audit, {
      action: 'issue_tracker.deleted',
      target: { type: 'issue_tracker', id: tracker.id, label: tracker.provider },
      applicationId: app.id,
      before: auditFields(tracker),
    });
  });
}

/** The linked issues, failures included (`last_error`), newest first. */
export async function listTrackerIssues(
  db: Kysely<DB>,
  app: ResolvedApplication,
): Promise<TrackerIssueRecord[]> {
  const tracker = await trackerOf(db, app.id);
  const rows = await db
    .selectFrom('tracker_issues')
    .selectAll()
    .where('tracker_id', '=', tracker.id)
    .orderBy('id', 'desc')
    .limit(1000)
    .execute();
  return rows.map(presentTrackerIssue);
}

/** Calls the tracker with the stored credentials; a refusal is a 400 with the provider's reason. */
export async function testTrackerConnection(
  context: TrackerContext,
  app: ResolvedApplication,
): Promise<{ success: boolean; message: string }> {
  const tracker = await trackerOf(context.db, app.id);
  try {
    await (await trackerAdapter(tracker, context.secrets, context.config)).testConnection();
  } catch (error) {
    throw badRequest('connection_failed', trackerErrorFrom(tracker.provider, error).message);
  }
  return { success: true, message: `Connected to ${tracker.provider} at ${tracker.base_url}` };
}

/**
 * Files an issue for one finding by hand (any severity). The link is claimed here and the provider
 * called by a job; a second call answers the existing link (`created: false`), and sends a link
 * that had failed for good back to the provider.
 */
export async function createIssueForFinding(
  { db, jobs }: { db: Kysely<DB>; jobs: Jobs },
  user: UserPrincipal,
  finding: ResolvedInApplication,
): Promise<{ created: boolean; issue: TrackerIssueRecord }> {
  const tracker = await trackerOf(db, finding.application_id);
  const claimed = await db.transaction().execute(async (trx) => {
    // A link the tracker refused for good (bad token, missing project) is tried again on request.
    const retried = await trx
      .updateTable('tracker_issues')
      .set({ state: 'pending', last_error: null, updated_at: new Date() })
      .where('finding_id', '=', finding.id)
      .where('tracker_id', '=', tracker.id)
      .where('state', '=', 'failed')
      .where('external_key', 'is', null)
      .returning('id')
      .execute();
    if (retried.length > 0) {
      await jobs.sendMany(
        trx,
        'tracker-issue',
        retried.map((link) => ({ linkId: link.id, action: 'create' as const })),
      );
    }
    const ids = await claimLinks(trx, tracker, [finding.id]);
    if (ids.length > 0)
      await jobs.sendMany(
        trx,
        'tracker-issue',
        ids.map((linkId) => ({ linkId, action: 'create' as const })),
      );
    return ids.length > 0;
  });
  jobs.wake('tracker-issue');
  const link = await db
    .selectFrom('tracker_issues')
    .selectAll()
    .where('finding_id', '=', finding.id)
    .where('tracker_id', '=', tracker.id)
    .executeTakeFirstOrThrow();
  return { created: claimed, issue: presentTrackerIssue(link) };
}
