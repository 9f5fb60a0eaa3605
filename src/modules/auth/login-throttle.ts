import { isIPv6 } from 'node:net';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { sha256Hex } from '../../lib/secrets.ts';

/**
 * Sign-in budgets, counted in the database so that every server behind a load balancer spends the
 * same ones. Every attempt counts, before its password is checked, in three buckets:
 * - one address at one email (guessing one account's password),
 * - one address at any email (password spraying: one common password tried on many accounts),
 * - one email from any address (a botnet at one account): a longer window, so a lock-out that is
 *   slower to reach and slower to end. It locks the owner out too while it lasts; that is the price
 *   of not letting a distributed guess run unbounded.
 * Each is a fixed window that starts with its first attempt.
 */
export interface LoginLimits {
  loginPerMinute: number;
  loginPerAddressPerMinute: number;
  loginPerAccountPerHour: number;
}

interface Bucket {
  key: string;
  max: number;
  windowSeconds: number;
  /** Said in the 429, so a person knows whether waiting a minute helps. */
  refusal: string;
}

/**
 * The address a budget is counted for: an IPv6 client's /64 (one subscriber's usual allocation, so
 * rotating through it buys no fresh budget), an IPv4 client's address (an IPv4-mapped one as IPv4).
 */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] ?? address;
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

function bucketsFor(address: string, email: string, limits: LoginLimits): Bucket[] {
  // Hashed: an email typed at the login form is not kept in the clear for an hour.
  const account = sha256Hex(`login-email:${email}`);
  return [
    {
      key: `pair:${address}:${account}`,
      max: limits.loginPerMinute,
      windowSeconds: 60,
      refusal: 'Too many sign-in attempts for this email from this address',
    },
    {
      key: `address:${address}`,
      max: limits.loginPerAddressPerMinute,
      windowSeconds: 60,
      refusal: 'Too many sign-in attempts from this address',
    },
    {
      key: `account:${account}`,
      max: limits.loginPerAccountPerHour,
      windowSeconds: 3600,
      refusal: 'Too many sign-in attempts for this account; it is locked for a while',
    },
  ];
}

export interface LoginRefusal {
  detail: string;
  retryAfterSeconds: number;
}

/**
 * Counts one sign-in attempt. When any bucket is past its budget, says so for the one that frees
 * last (the attempt must then be refused without checking its password).
 */
export async function countLoginAttempt(
  db: Kysely<DB>,
  address: string,
  email: string,
  limits: LoginLimits,
): Promise<LoginRefusal | undefined> {
  const buckets = bucketsFor(addressBucket(address), email, limits);
  const rows = sql<{ bucket: string; window_seconds: number }>`(values ${sql.join(
    buckets.map((bucket) => sql`(${bucket.key}::text, ${bucket.windowSeconds}::integer)`),
  )})`;
  // One statement: a bucket whose window has ended starts a new one at this attempt.
  const counted = await sql<{ bucket: string; attempts: number; retry_after: number }>`
    insert into login_throttle as t (bucket, attempts, window_ends_at)
    select bucket, 1, now() + make_interval(secs => window_seconds) from ${rows} as b (bucket, window_seconds)
    on conflict (bucket) do update set
      attempts = case when t.window_ends_at <= now() then 1 else t.attempts + 1 end,
      window_ends_at = case when t.window_ends_at <= now() then excluded.window_ends_at else t.window_ends_at end
    returning bucket, attempts, ceil(extract(epoch from window_ends_at - now()))::integer as retry_after`.execute(
    db,
  );
  await db
    .deleteFrom('login_throttle')
    .where('window_ends_at', '<', sql<Date>`now()`)
    .execute();

  let refused: { bucket: Bucket; retryAfter: number } | undefined;
  for (const row of counted.rows) {
    const bucket = buckets.find((candidate) => candidate.key === row.bucket);
    if (!bucket || row.attempts <= bucket.max) continue;
    const retryAfter = Math.max(1, row.retry_after);
    if (!refused || retryAfter > refused.retryAfter) refused = { bucket, retryAfter };
  }
  if (!refused) return undefined;
  return {
    detail: `${refused.bucket.refusal}; retry in ${refused.retryAfter} s`,
    retryAfterSeconds: refused.retryAfter,
  };
}
