import { type JsonRecord, nonBlank } from './json-value.ts';
import { labelledLines, redactSecrets, SECRET_REMEDIATION, sha256Hex } from './secrets.ts';
import { emptyFinding } from './types.ts';
import type { NormalizedFinding, Severity } from './types.ts';

/**
 * The diff-era reports (TruffleHog 2, trufflehog3 before 3.0) carry no severity, only the reason. As in
 * DefectDojo: generic secrets medium, cloud and OAuth keys critical, other named keys high. Entropy
 * hits are mostly hashes and ids: DefectDojo means Info; low keeps them visible without alarm.
 */
function legacySeverity(reason: string): Severity {
  if (/high entropy/i.test(reason)) return 'low';
  if (/generic secret/i.test(reason)) return 'medium';
  return /aws|oauth|heroku/i.test(reason) ? 'critical' : 'high';
}

export interface LegacyOptions {
  toolName: string;
  /** trufflehog3 reports whole diff lines ("+  key = ..."); their first character is the diff marker. */
  diffLines: boolean;
}

/**
 * The TruffleHog 2 record (also trufflehog3's legacy output), one finding per string found: each is a
 * distinct secret to rotate (docs/architecture.md, "Finding identity"), whichever commit it was found in.
 */
export function legacyRecords(record: JsonRecord, options: LegacyOptions): NormalizedFinding[] {
  const reason = nonBlank(record['reason']) ?? 'Secret';
  const path = nonBlank(record['path']);
  const found = (Array.isArray(record['stringsFound']) ? record['stringsFound'] : [])
    .map(nonBlank)
    .filter((item): item is string => item !== null);
  const secretOf = (item: string): string => (options.diffLines ? item.replace(/^[+\- ]/, '') : item).trim();
  const secrets = [...new Set(found.map(secretOf))].filter((secret) => secret !== '');
  return secrets.map((secret) =>
    redactSecrets(
      {
        ...emptyFinding({
          kind: 'secret',
          title: `${reason} found in ${path ?? 'unknown file'}`,
          severity: legacySeverity(reason),
          toolName: options.toolName,
        }),
        // The diff fields are left out: they are mostly the secret itself.
        description: labelledLines([
          ['Reason', reason],
          ['Branch', nonBlank(record['branch'])],
          ['Commit', nonBlank(record['commitHash'])],
          ['Commit message', nonBlank(record['commit'])?.split('\n')[0] ?? null],
          ['Date', nonBlank(record['date'])],
        ]),
        remediation: SECRET_REMEDIATION,
        ruleId: reason,
        filePath: path,
        cweIds: [798],
        secretHash: sha256Hex(secret),
      },
      [...found, ...secrets],
    ),
  );
}
