import { sql, type Kysely } from 'kysely';

/**
 * The audit trail (issue 49): `audit_events`, append-only, each row chained to the one before by
 * hash; `audit_chain`, one row: the chain's head (last id and hash) and its anchor (the first kept
 * row after retention, and the hash it chains to). docs/architecture.md, "The audit trail".
 *
 * The database owns the chain: a BEFORE INSERT trigger assigns each row its id (head + 1), truncates
 * its time to milliseconds (what a JavaScript Date holds, so a verifier outside SQL can rebuild the
 * canonical text), and computes `hash = sha256(prev_hash || canonical(row))`. The first row a
 * transaction appends locks the head row `for update`, so concurrent writers queue instead of
 * forking the chain, and ids follow commit order of the head (no sequence gaps, no reordering); the
 * head stays locked until the transaction ends, which is why writers append their audit row last.
 * Later rows of the same transaction continue from a transaction-local setting (no lock or update of
 * the head per row: a set-wise INSERT … SELECT of 10k rows updates the head once, per statement).
 *
 * Append-only: UPDATE and TRUNCATE are refused; DELETE only of rows below the anchor while the
 * transaction has set `scanhub.audit_retention` (the retention job, which moves the anchor first).
 * That stops every code path of the application and a mistaken statement; it does not stop a
 * database owner (who can drop the trigger): that is what the hash chain shows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table audit_events (
    id bigint primary key,
    occurred_at timestamptz not null default now(),
    actor_type text not null,
    actor_id text,
    actor_label text,
    action text not null,
    target_type text,
    target_id text,
    target_label text,
    application_id integer,
    request_id text,
    ip text,
    user_agent text,
    changes jsonb,
    details jsonb,
    prev_hash text not null,
    hash text not null
  )`.execute(db);
  await sql`create index audit_events_occurred_at_idx on audit_events (occurred_at, id)`.execute(db);
  await sql`create index audit_events_action_idx on audit_events (action, id)`.execute(db);
  await sql`create index audit_events_actor_idx on audit_events (actor_type, actor_id, id)`.execute(db);
  await sql`create index audit_events_target_idx on audit_events (target_type, target_id, id)`.execute(db);

  // Who sent an upload, from where: kept with the scan so an asynchronous upload, finished by a job,
  // writes its audit row with the request's actor, address and agent.
  await sql`alter table scans add column upload_audit jsonb`.execute(db);

  await sql`create table audit_chain (
    singleton boolean primary key default true check (singleton),
    last_id bigint not null default 0,
    last_hash text not null default repeat('0', 64),
    anchor_id bigint not null default 1,
    anchor_prev_hash text not null default repeat('0', 64)
  )`.execute(db);
  await sql`insert into audit_chain default values`.execute(db);

  // The canonical text of a row: every column but the hashes, in this order, each as
  // S<octets>:<text>; (or N; for null); jsonb as PostgreSQL prints it. src/events/audit-chain.ts
  // builds the same text in JavaScript, which is what verify checks against.
  // plpgsql, not sql: a SQL-language function is planned again at every call (from the trigger, once
  // per row: 10k rows took seconds); plpgsql keeps its plans.
  await sql`create function audit_event_canonical(e audit_events) returns text language plpgsql stable as $$
    declare
      field text;
      canonical text := '';
    begin
      foreach field in array array[
        e.id::text,
        to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        e.actor_type, e.actor_id, e.actor_label, e.action,
        e.target_type, e.target_id, e.target_label, e.application_id::text,
        e.request_id, e.ip, e.user_agent, e.changes::text, e.details::text
      ] loop
        if field is null then
          canonical := canonical || 'N;';
        else
          canonical := canonical || 'S' || octet_length(field) || ':' || field || ';';
        end if;
      end loop;
      return canonical;
    end $$`.execute(db);

  await sql`create function audit_events_chain() returns trigger language plpgsql as $$
    declare
      head text := current_setting('scanhub.audit_chain_head', true);
      previous_id bigint;
      previous_hash text;
    begin
      if head is null or head = '' then
        select c.last_id, c.last_hash into previous_id, previous_hash from audit_chain c for update;
      else
        previous_id := split_part(head, ':', 1)::bigint;
        previous_hash := split_part(head, ':', 2);
      end if;
      new.id := previous_id + 1;
      new.occurred_at := date_trunc('milliseconds', coalesce(new.occurred_at, now()));
      new.prev_hash := previous_hash;
      new.hash := encode(sha256(convert_to(previous_hash || audit_event_canonical(new), 'UTF8')), 'hex');
      perform set_config('scanhub.audit_chain_head', new.id || ':' || new.hash, true);
      return new;
    end $$`.execute(db);
  await sql`create trigger audit_events_chain before insert on audit_events
    for each row execute function audit_events_chain()`.execute(db);

  await sql`create function audit_events_advance_head() returns trigger language plpgsql as $$
    declare head text := current_setting('scanhub.audit_chain_head', true);
    begin
      if head is not null and head <> '' then
        update audit_chain set last_id = split_part(head, ':', 1)::bigint, last_hash = split_part(head, ':', 2);
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger audit_events_advance_head after insert on audit_events
    for each statement execute function audit_events_advance_head()`.execute(db);

  await sql`create function audit_events_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        if current_setting('scanhub.audit_retention', true) = 'on'
           and old.id < (select anchor_id from audit_chain) then
          return old;
        end if;
      end if;
      raise exception 'audit_events is append-only (% refused)', tg_op using errcode = '42501';
    end $$`.execute(db);
  await sql`create trigger audit_events_append_only before update or delete on audit_events
    for each row execute function audit_events_append_only()`.execute(db);
  await sql`create trigger audit_events_no_truncate before truncate on audit_events
    for each statement execute function audit_events_append_only()`.execute(db);

  // The head row is kept: never deleted, never a second one (the check), anchor only forward.
  await sql`create function audit_chain_guard() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' then
        if new.last_id >= old.last_id and new.anchor_id >= old.anchor_id then
          return new;
        end if;
      end if;
      raise exception 'audit_chain only moves forward (% refused)', tg_op using errcode = '42501';
    end $$`.execute(db);
  await sql`create trigger audit_chain_guard before update or delete on audit_chain
    for each row execute function audit_chain_guard()`.execute(db);
  await sql`create trigger audit_chain_no_truncate before truncate on audit_chain
    for each statement execute function audit_chain_guard()`.execute(db);
}
