/**
 * The one masking function of the audit trail: whatever goes into an audit row's before/after or
 * details passes through `maskSecrets`. A value is masked when its field's name says it is a secret
 * (password, token, key, secret, hash, sealed or encrypted value, credential, cookie, session,
 * authorization, private key) or when the value itself looks like a scanhub credential (`shk_…` API
 * key, `sht_…` application token). Identifiers and counts named after secrets (`api_key_id`,
 * `token_count`, a key's visible `prefix`) and booleans (`has_secret`) are not secrets and stay.
 */

export const MASKED = '[masked]';

const SECRET_NAME =
  /pass(word|phrase)?|secret|token|api_?key|^key$|_key$|hash|sealed|encrypt|credential|cookie|session|authori[sz]ation|private|signature/i;
const NOT_SECRET_NAME = /(_id|Id|_ids|_count|_at|prefix|_expires_at|_set)$/;
const CREDENTIAL_VALUE = /\b(shk|sht)_[A-Za-z0-9_-]{16,}/;

export function isSecretField(name: string): boolean {
  return SECRET_NAME.test(name) && !NOT_SECRET_NAME.test(name);
}

/** A copy of `value` with every secret masked, at any depth. */
export function maskSecrets(value: unknown, fieldName?: string): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (fieldName !== undefined && isSecretField(fieldName) && typeof value !== 'boolean') return MASKED;
  if (typeof value === 'string') return CREDENTIAL_VALUE.test(value) ? MASKED : value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item));
  if (typeof value === 'object') {
    const masked: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (item !== undefined) masked[key] = maskSecrets(item, key);
    }
    return masked;
  }
  return value;
}
