import { sql, type Kysely } from 'kysely';

/**
 * Stored outbound credentials are bound to the origin (scheme, host, port) they were saved for: a
 * tracker's token to its `base_url`'s origin, a webhook's signing secret to its URL's origin. The
 * senders refuse to use a credential anywhere else (modules/issue-trackers, modules/webhooks), so a
 * user who can edit the target but never saw the credential cannot redirect it. Existing rows are
 * bound to where they point now: the stored URLs are normalised (`URL#toString`), so the origin is
 * the text up to the first `/` after the authority.
 *
 * `tracker_deliveries` remembers inbound tracker webhook deliveries (GitHub `X-GitHub-Delivery`,
 * GitLab `X-Gitlab-Event-UUID`, Jira's identifier and timestamp) for a window, so a captured signed
 * body posted again is not applied twice. In the database, since several servers share one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table issue_trackers add column token_origin text`.execute(db);
  await sql`update issue_trackers set token_origin = substring(base_url from '^[a-z][a-z0-9+.-]*://[^/?#]+')`.execute(
    db,
  );
  await sql`alter table webhooks add column secret_origin text`.execute(db);
  await sql`update webhooks set secret_origin = substring(url from '^[a-z][a-z0-9+.-]*://[^/?#]+')
    where secret_sealed is not null`.execute(db);
  await sql`create table tracker_deliveries (
    tracker_id integer not null references issue_trackers (id) on delete cascade,
    delivery_id text not null,
    received_at timestamptz not null default now(),
    primary key (tracker_id, delivery_id)
  )`.execute(db);
  await sql`create index tracker_deliveries_received_at on tracker_deliveries (received_at)`.execute(db);
}
