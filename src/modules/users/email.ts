/**
 * The one spelling of an email address that scanhub stores, looks up and rate-limits by:
 * Unicode NFKC (so a full-width `ａ` is `a`), trimmed, lowercased. Applied once at each edge
 * (create, change, login, limiter key), so `" Admin@Example.com"` is the same account and the
 * same login budget as `"admin@example.com"`.
 */
export function normalizeEmail(email: string): string {
  return email.normalize('NFKC').trim().toLowerCase();
}
