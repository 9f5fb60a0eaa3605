import { isRecord, type JsonRecord, nonBlank, positiveInt } from './json-value.ts';
import { streamJsonValues } from './json-stream.ts';
import { labelledLines, redactSecrets, SECRET_REMEDIATION, secretTwinKey, sha256Hex } from './secrets.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Sniff } from './types.ts';
import { readBytes } from './json-input.ts';

/**
 * Gitleaks JSON report, an array of leaks in one of two shapes:
 * - v8: `{ Description, StartLine, EndLine, StartColumn, Match, Secret, File, Commit, RuleID, Fingerprint?, ... }`;
 * - v7 and earlier: `{ line, lineNumber?, offender, commit, rule, commitMessage, file, tags, ... }`.
 * Gitleaks 7 writes `null` when it finds nothing (a nil Go slice); v8 writes `[]`.
 */

/** `gitleaks --redact` replaces secrets by this word; its hash would name every redacted secret alike. */
const isRedacted = (secret: string | null): boolean => secret === null || /^REDACTED$/.test(secret.trim());

const headIsNull = (sniff: Sniff): boolean => sniff.head.trim() === 'null';

function detect(sniff: Sniff): boolean {
  // `[]` is every array-shaped tool's empty report; it is left to an explicit scannerType.
  if (headIsNull(sniff)) return true;
  if (sniff.shape !== 'json-array') return false;
  // The first leak's keys, in any order (a `jq -S` report sorts them).
  const keys = new Set(sniff.itemKeys);
  const v8 = (keys.has('Description') || keys.has('RuleID')) && keys.has('StartLine');
  const legacy = keys.has('line') && keys.has('offender');
  return v8 || legacy;
}

function currentLeak(leak: JsonRecord): NormalizedFinding {
  const description = nonBlank(leak['Description']) ?? nonBlank(leak['RuleID']) ?? 'secret';
  const file = nonBlank(leak['File']);
  const secret = nonBlank(leak['Secret']) ?? nonBlank(leak['Match']);
  const match = nonBlank(leak['Match']);
  const tags = Array.isArray(leak['Tags']) ? leak['Tags'].map(nonBlank).filter(Boolean).join(', ') : null;
  const link = nonBlank(leak['Link']);
  const finding: NormalizedFinding = {
    ...emptyFinding({
      kind: 'secret',
      // DefectDojo's wording, kept so imported histories read the same.
      title: `Hard coded ${description} found in ${file ?? 'unknown file'}`,
      // Gitleaks has no severity scale; an exposed credential is high until someone triages it.
      severity: 'high',
      toolName: 'Gitleaks',
    }),
    description: labelledLines([
      ['Rule', nonBlank(leak['RuleID'])],
      ['Commit', nonBlank(leak['Commit'])],
      ['Date', nonBlank(leak['Date'])],
      ['Commit message', nonBlank(leak['Message'])],
      ['Entropy', typeof leak['Entropy'] === 'number' ? String(leak['Entropy']) : null],
      ['Tags', tags || null],
    ]),
    remediation: SECRET_REMEDIATION,
    ruleId: nonBlank(leak['RuleID']),
    filePath: file,
    line: positiveInt(leak['StartLine']),
    column: positiveInt(leak['StartColumn']),
    endLine: positiveInt(leak['EndLine']),
    snippet: match,
    cweIds: [798],
    references: link !== null ? [link] : [],
    // No toolFingerprint: Gitleaks' `Fingerprint` is "[commit:]file:rule:line", and without its line
    // (never identity) it names every secret of one rule in one file alike: 65 leaks became 24 findings.
    // The secret's hash tells them apart; a redacted report falls back to the line (fingerprint.ts).
    secretHash: isRedacted(secret) ? null : sha256Hex(secret ?? ''),
  };
  return isRedacted(secret) ? finding : redactSecrets(finding, [secret]);
}

function legacyLeak(leak: JsonRecord): NormalizedFinding {
  const rule = nonBlank(leak['rule']) ?? 'secret';
  const offender = nonBlank(leak['offender']);
  const leakUrl = nonBlank(leak['leakURL']);
  const finding: NormalizedFinding = {
    ...emptyFinding({ kind: 'secret', title: `Hard Coded ${rule}`, severity: 'high', toolName: 'Gitleaks' }),
    description: labelledLines([
      ['Rule', rule],
      ['Commit', nonBlank(leak['commit'])],
      ['Date', nonBlank(leak['date'])],
      ['Commit message', nonBlank(leak['commitMessage'])],
      ['Repository', nonBlank(leak['repo'])],
      ['Tags', nonBlank(leak['tags'])],
    ]),
    remediation: SECRET_REMEDIATION,
    ruleId: rule,
    filePath: nonBlank(leak['file']),
    line: positiveInt(leak['lineNumber']),
    snippet: nonBlank(leak['line'])?.trim() ?? null,
    cweIds: [798],
    references: leakUrl !== null ? [leakUrl] : [],
    secretHash: isRedacted(offender) ? null : sha256Hex(offender ?? ''),
  };
  return isRedacted(offender) ? finding : redactSecrets(finding, [offender]);
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const { sniff } = input;
  if (headIsNull(sniff)) return;
  if (sniff.shape === 'empty') throw new ParseError('Gitleaks report is empty');
  if (sniff.shape !== 'json-array') throw new ParseError('Gitleaks report must be a JSON array (or null)');
  const seen = new Set<string>();
  for await (const { value } of streamJsonValues(readBytes(input), { paths: ['$.*'] })) {
    if (!isRecord(value)) throw new ParseError('Gitleaks leak must be a JSON object');
    const isLegacy = 'offender' in value || 'rule' in value;
    const finding = isLegacy ? legacyLeak(value) : currentLeak(value);
    const key = secretTwinKey(finding);
    if (seen.has(key)) continue;
    seen.add(key);
    yield finding;
  }
}

export const gitleaks: ParserModule = { name: 'gitleaks', displayName: 'Gitleaks', detect, parse };
