import { createHash } from 'node:crypto';
import type { NormalizedFinding } from './types.ts';

/** Helpers for the secret scanners (Gitleaks, TruffleHog, trufflehog3, and secrets found by Trivy and Semgrep). */

export const SECRET_REMEDIATION =
  'Revoke and rotate the secret, then remove it from the code and its git history.';

export const REDACTION = '[REDACTED]';

/**
 * What a secret becomes in stored text: its first characters then the marker, like `gitleaks --redact`
 * (`ghp_[REDACTED]`). At most 4 characters and at most a quarter of the secret are kept, so a reader
 * can tell which credential to rotate without the text giving much of it away.
 */
export const redactedForm = (secret: string): string =>
  secret.slice(0, Math.min(4, Math.floor(secret.length / 4))) + REDACTION;

/** A secret's identity: its SHA-256, never the secret itself. */
export const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

/**
 * Removes every occurrence of the given secrets from every text field of a finding. Applied last, to the
 * whole finding, so no field (titles, commit messages, excerpts) can carry a secret by accident.
 */
export function redactSecrets(finding: NormalizedFinding, secrets: (string | null)[]): NormalizedFinding {
  // Longest first, so a secret that contains another is removed whole.
  const known = [
    ...new Set(secrets.filter((secret): secret is string => secret !== null && secret !== '')),
  ].sort((a, b) => b.length - a.length);
  const clean = (value: string): string =>
    known.reduce((out, secret) => out.split(secret).join(redactedForm(secret)), value);
  const cleanOrNull = (value: string | null): string | null => (value === null ? null : clean(value));
  return {
    ...finding,
    title: clean(finding.title),
    description: cleanOrNull(finding.description),
    remediation: cleanOrNull(finding.remediation),
    ruleId: cleanOrNull(finding.ruleId),
    filePath: cleanOrNull(finding.filePath),
    snippet: cleanOrNull(finding.snippet),
    references: finding.references.map(clean),
    toolFingerprint: cleanOrNull(finding.toolFingerprint),
    category: cleanOrNull(finding.category),
  };
}

/**
 * Secret scanners walk git history and report one secret once per commit that touches it, and a secret
 * pasted twice in one file is still one credential to rotate. With a hash, rule + file + secret is the
 * finding's identity (fingerprint.ts), so the parser yields one finding per identity and the scan's
 * counts equal the rows stored. Without one (a redacted report), only the line tells secrets apart.
 */
export const secretTwinKey = (finding: NormalizedFinding): string =>
  [
    finding.ruleId,
    finding.filePath,
    ...(finding.secretHash !== null ? [finding.secretHash] : [finding.line, finding.snippet]),
  ].join('\u0000');

/** "Label: value" lines for the values that are present, or null when none is. */
export const labelledLines = (entries: [string, string | null][]): string | null =>
  entries
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([label, value]) => `${label}: ${value}`)
    .join('\n') || null;
