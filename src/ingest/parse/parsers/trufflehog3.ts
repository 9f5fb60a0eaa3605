import { isRecord, type JsonRecord, nonBlank, positiveIntOrDigits } from './json-value.ts';
import { streamJsonValues } from './json-stream.ts';
import { severityIn, STANDARD_SEVERITIES } from './severity.ts';
import { labelledLines, redactSecrets, SECRET_REMEDIATION, secretTwinKey, sha256Hex } from './secrets.ts';
import { legacyRecords } from './trufflehog-legacy.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Sniff } from './types.ts';
import { readBytes } from './json-input.ts';

/**
 * trufflehog3 (feeltheajf/trufflehog3) `--format json`: an array of issues.
 * - 3.x: `{ rule: { id, message, severity }, path, line, secret, context: { "<line>": "..." }, id,
 *   branch, message, commit, date, ... }`;
 * - before 3.0: TruffleHog 2's record `{ path, reason, stringsFound: [diff lines], commitHash, ... }`.
 */

function detect(sniff: Sniff): boolean {
  // A bare `[]` is every array-shaped tool's empty report; it is left to an explicit scannerType.
  if (sniff.shape !== 'json-array') return false;
  // The first record's keys, in any order.
  const keys = new Set(sniff.itemKeys);
  const current = keys.has('rule') && keys.has('secret') && keys.has('path');
  const legacy = keys.has('stringsFound') && keys.has('reason') && keys.has('commitHash');
  return current || legacy;
}

/** `context` maps line numbers to source lines around the secret; keep them in line order. */
function contextSnippet(context: unknown): string | null {
  if (!isRecord(context)) return null;
  const lines = Object.entries(context)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([, line]) => line);
  return lines.length > 0 ? lines.join('\n') : null;
}

function currentIssue(issue: JsonRecord): NormalizedFinding {
  const rule = isRecord(issue['rule']) ? issue['rule'] : {};
  const message = nonBlank(rule['message']) ?? nonBlank(rule['id']) ?? 'Secret';
  const path = nonBlank(issue['path']);
  const secret = nonBlank(issue['secret']);
  const finding: NormalizedFinding = {
    ...emptyFinding({
      kind: 'secret',
      title: `${message} found in ${path ?? 'unknown file'}`,
      severity: severityIn(STANDARD_SEVERITIES, nonBlank(rule['severity'])) ?? 'info',
      toolName: 'trufflehog3',
    }),
    description: labelledLines([
      ['Rule', nonBlank(rule['id'])],
      ['Branch', nonBlank(issue['branch'])],
      ['Commit', nonBlank(issue['commit'])],
      ['Commit message', nonBlank(issue['message'])?.split('\n')[0] ?? null],
      ['Date', nonBlank(issue['date'])],
    ]),
    remediation: SECRET_REMEDIATION,
    ruleId: nonBlank(rule['id']),
    filePath: path,
    line: positiveIntOrDigits(issue['line']),
    snippet: contextSnippet(issue['context']),
    cweIds: [798],
    // trufflehog3's issue id is a name-based UUID of rule, path, line and secret: stable across commits.
    // trufflehog3's issue id hashes the line among other things: moving code would change it. The
    // secret's hash is the identity; the id stands in only when the report has no secret.
    toolFingerprint: secret === null ? nonBlank(issue['id']) : null,
    secretHash: secret !== null ? sha256Hex(secret) : null,
  };
  return redactSecrets(finding, [secret]);
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const { sniff } = input;
  if (sniff.shape === 'empty') throw new ParseError('trufflehog3 report is empty');
  if (sniff.shape !== 'json-array') throw new ParseError('trufflehog3 report must be a JSON array');
  const seen = new Set<string>();
  for await (const { value } of streamJsonValues(readBytes(input), { paths: ['$.*'] })) {
    if (!isRecord(value)) throw new ParseError('trufflehog3 issue must be a JSON object');
    let findings: NormalizedFinding[];
    if (isRecord(value['rule'])) findings = [currentIssue(value)];
    else if (Array.isArray(value['stringsFound'])) {
      findings = legacyRecords(value, { toolName: 'trufflehog3', diffLines: true });
    } else throw new ParseError('Not a trufflehog3 issue (no rule or stringsFound)');
    for (const finding of findings) {
      // The same secret seen again in another commit is the same exposure.
      const key = secretTwinKey(finding);
      if (seen.has(key)) continue;
      seen.add(key);
      yield finding;
    }
  }
}

export const trufflehog3: ParserModule = { name: 'trufflehog3', displayName: 'trufflehog3', detect, parse };
