import { sql, type Kysely } from 'kysely';

/**
 * Dismissal reasons and acceptances (issue 46).
 * - A finding dismissed as `false_positive` may say why (`dismissal_reason`, `dismissal_comment`);
 *   none stays valid, as the spec's clients send none. `acceptance_id` names the acceptance that
 *   covers the finding: a finding is covered exactly while it is set.
 * - An acceptance decides for the findings it names (by fingerprint, from the ids it was given) or
 *   matches by rule (CVE, rule id, package, path prefix) in one application, or every application
 *   of a group; it covers them while `active`, until `expires_at`.
 * - Settings per group (a row with no group: the global defaults) ask for a second approver and cap
 *   how long a risk may be accepted per severity.
 * The finding's new columns are null on insert (an upload writes none), so their foreign key and
 * check cost an upload nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table acceptances (
    id serial primary key,
    group_id integer not null references groups (id) on delete cascade,
    application_id integer references applications (id) on delete cascade,
    status text not null check (status in ('pending', 'active', 'rejected', 'revoked', 'expired')),
    reason text not null check (reason in ('false_positive', 'accepted_risk', 'wont_fix', 'used_in_tests')),
    justification text check (justification in ('component_not_present', 'vulnerable_code_not_present',
      'vulnerable_code_not_in_execute_path', 'vulnerable_code_cannot_be_controlled_by_adversary',
      'inline_mitigations_already_exist')),
    impact_statement text,
    comment text,
    finding_ids integer[],
    match_cve text,
    match_rule_id text,
    match_package text,
    match_path_prefix text,
    expires_at timestamptz,
    owner_id integer references users (id) on delete set null,
    created_by integer references users (id) on delete set null,
    source jsonb,
    decided_by integer references users (id) on delete set null,
    decided_at timestamptz,
    decision_comment text,
    ended_by integer references users (id) on delete set null,
    ended_at timestamptz,
    expiring_notified_at timestamptz,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    check ((finding_ids is not null) <> (coalesce(match_cve, match_rule_id, match_package) is not null))
  )`.execute(db);
  await sql`create index acceptances_group_idx on acceptances (group_id, status)`.execute(db);
  await sql`create index acceptances_application_idx on acceptances (application_id, status)`.execute(db);
  await sql`create index acceptances_expiry_idx on acceptances (expires_at) where status = 'active'`.execute(
    db,
  );

  await sql`create table acceptance_fingerprints (
    acceptance_id integer not null references acceptances (id) on delete cascade,
    fingerprint text not null,
    primary key (acceptance_id, fingerprint)
  )`.execute(db);
  await sql`create index acceptance_fingerprints_fingerprint_idx on acceptance_fingerprints (fingerprint)`.execute(
    db,
  );

  await sql`create table acceptance_settings (
    id serial primary key,
    group_id integer references groups (id) on delete cascade,
    four_eyes boolean,
    max_days jsonb,
    expiring_notice_days integer check (expiring_notice_days between 0 and 365),
    updated_by integer references users (id) on delete set null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
  )`.execute(db);
  await sql`create unique index acceptance_settings_group_key on acceptance_settings (coalesce(group_id, 0))`.execute(
    db,
  );

  await sql`alter table findings
    add column dismissal_reason text collate "C"
      check (dismissal_reason in ('false_positive', 'accepted_risk', 'wont_fix', 'used_in_tests')),
    add column dismissal_comment text,
    add column acceptance_id integer references acceptances (id) on delete set null`.execute(db);
  await sql`create index findings_acceptance_idx on findings (acceptance_id) where acceptance_id is not null`.execute(
    db,
  );
  await sql`create index findings_dismissal_reason_idx on findings (dismissal_reason) where dismissal_reason is not null`.execute(
    db,
  );
}
