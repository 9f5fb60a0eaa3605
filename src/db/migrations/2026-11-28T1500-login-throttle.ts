import { sql, type Kysely } from 'kysely';

/**
 * Sign-in attempt counters, one row per bucket (an address, an email, or both), shared by every
 * server: a fixed window that ends at `window_ends_at`. Rows whose window has ended are deleted as
 * attempts come in (login-throttle.ts), through the index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table login_throttle (
    bucket text primary key,
    attempts integer not null,
    window_ends_at timestamptz not null
  )`.execute(db);
  await sql`create index login_throttle_window_ends_at_idx on login_throttle (window_ends_at)`.execute(db);
}
