import { asRecord, asText } from './json-value.ts';
import type { JsonRecord } from './json-value.ts';
import { redactSecrets, SECRET_REMEDIATION, sha256Hex } from './secrets.ts';
import type { NormalizedFinding } from './types.ts';

/**
 * Secret scanners writing SARIF. Their results carry the secret itself: Gitleaks puts it in the region
 * snippet, secretlint (with `--no-maskSecrets`) and others in the message. Such results become
 * `secret` findings whose values are redacted before storage and whose identity is the value's hash.
 */

/** Drivers whose every result is a secret. */
const SECRET_TOOL =
  /gitleaks|trufflehog|secretlint|detect[-_ ]?secrets|secret[-_ ]?detection|ggshield|gitguardian|nosey ?parker|kingfisher/i;

/** A tag or category that says "secret": `secret`, `secrets`, `security/secret`, `hardcoded-secret`. */
const SECRET_WORD = /(^|[\s/_:-])secrets?($|[\s/_:-])/i;

/**
 * A credential-looking token in free text: 16+ characters of the alphabets keys and tokens are written
 * in, with both a letter and a digit (so words, paths and masks such as `****` are left alone).
 */
const CREDENTIAL_TOKEN = /[A-Za-z0-9+/=_.~-]{16,}/g;
const looksLikeCredential = (token: string): boolean => /[A-Za-z]/.test(token) && /\d/.test(token);

const wordsOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((word): word is string => typeof word === 'string');

/** Whether a result reports a secret: by its tool's name, or by the tags and category of result or rule. */
export function isSecretResult(toolName: string, rule: JsonRecord | undefined, result: JsonRecord): boolean {
  if (SECRET_TOOL.test(toolName)) return true;
  return [asRecord(rule?.['properties']), asRecord(result['properties'])].some((properties) =>
    [
      ...wordsOf(properties?.['tags']),
      ...wordsOf(properties?.['category']),
      ...wordsOf(properties?.['kind']),
    ].some((word) => SECRET_WORD.test(word)),
  );
}

/** The raw message text of a result (before template rendering), where tools write the found value. */
const messageText = (result: JsonRecord): string => asText(asRecord(result['message'])?.['text']) ?? '';

/**
 * Turns a mapped SARIF finding into a secret finding: the secret values (the region snippet, which is
 * the match itself for Gitleaks, and credential-looking tokens of the message) are hashed for identity
 * and redacted from every text field. The tool's own fingerprint yields to the hash, because secret tools
 * fingerprint by line (Gitleaks) and lines are not identity.
 */
export function asSecretFinding(finding: NormalizedFinding, result: JsonRecord): NormalizedFinding {
  const tokens = [messageText(result), finding.title, finding.description ?? '']
    .flatMap((text) => text.match(CREDENTIAL_TOKEN) ?? [])
    .filter(looksLikeCredential);
  const fromMessage = [...new Set(tokens)];
  const snippet = finding.snippet?.trim() || null;
  const evidence = snippet ?? (fromMessage.length > 0 ? fromMessage.join('\n') : null);
  const secretHash = evidence === null ? null : sha256Hex(evidence);
  return redactSecrets(
    {
      ...finding,
      kind: 'secret',
      remediation: finding.remediation ?? SECRET_REMEDIATION,
      cweIds: finding.cweIds.length > 0 ? finding.cweIds : [798],
      toolFingerprint: secretHash !== null ? null : finding.toolFingerprint,
      secretHash,
    },
    [snippet, ...fromMessage],
  );
}
