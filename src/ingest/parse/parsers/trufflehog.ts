import { isRecord, type JsonRecord, nonBlank, positiveInt } from './json-value.ts';
import { streamJsonValues } from './json-stream.ts';
import { labelledLines, redactSecrets, SECRET_REMEDIATION, secretTwinKey, sha256Hex } from './secrets.ts';
import { legacyRecords } from './trufflehog-legacy.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Sniff } from './types.ts';
import { readBytes } from './json-input.ts';

/**
 * TruffleHog `--json` output: JSON Lines, one record per secret.
 * - v3: `{ SourceMetadata: { Data: { Git|Github|Filesystem|...: { file, line, commit, ... } } },
 *   DetectorName, Verified, Raw, RawV2?, Redacted, ExtraData, ... }`;
 * - v2: `{ path, reason, stringsFound: [...], commitHash, commit (the message), branch, date, diff, printDiff }`.
 */

const isV3 = (keys: string[]): boolean => keys.includes('SourceMetadata') && keys.includes('DetectorName');
const isV2 = (keys: string[]): boolean =>
  keys.includes('stringsFound') &&
  keys.includes('reason') &&
  (keys.includes('commitHash') || keys.includes('printDiff'));

function detect(sniff: Sniff): boolean {
  // One secret is one line, which the sniff calls a JSON object rather than JSON Lines.
  if (sniff.shape !== 'jsonl' && sniff.shape !== 'json-object') return false;
  return isV3(sniff.topKeys) || isV2(sniff.topKeys);
}

/**
 * Early v3 releases marshalled `Raw` as Go `[]byte`, i.e. base64; later ones write the text. Decode only
 * when the value round-trips as base64 and decodes to printable nonBlank, so a plain key stays itself.
 */
function decodeRaw(raw: string): string {
  if (raw.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(raw)) return raw;
  const decoded = Buffer.from(raw, 'base64').toString('utf8');
  if (Buffer.from(decoded, 'utf8').toString('base64') !== raw) return raw;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what marks binary
  return /[\u0000-\u0008\u000e-\u001f\u007f\ufffd]/.test(decoded) ? raw : decoded;
}

function v3Record(record: JsonRecord): NormalizedFinding {
  const data = isRecord(record['SourceMetadata']) ? record['SourceMetadata']['Data'] : null;
  // Data has one key naming the source (Git, Github, Filesystem, S3, ...) over that source's fields.
  const source = isRecord(data) ? (Object.values(data).find(isRecord) ?? {}) : {};
  const detector = nonBlank(record['DetectorName']) ?? `Detector ${String(record['DetectorType'] ?? '?')}`;
  const file = nonBlank(source['file']) ?? nonBlank(source['path']);
  const rawText = nonBlank(record['Raw']);
  const rawV2Text = nonBlank(record['RawV2']);
  // RawV2 carries the whole credential for multi-part secrets (e.g. user and password).
  const secret = rawV2Text !== null ? decodeRaw(rawV2Text) : rawText !== null ? decodeRaw(rawText) : null;
  const verified = record['Verified'] === true;
  const redacted = nonBlank(record['Redacted']);
  // Some detectors "redact" to the secret itself or a prefix of it (AWS key ids, private keys).
  const safeRedacted =
    redacted !== null && [rawText, rawV2Text, secret].every((raw) => raw === null || !raw.includes(redacted))
      ? redacted
      : null;
  const extra = isRecord(record['ExtraData']) ? record['ExtraData'] : {};
  const extraLines = Object.entries(extra)
    .filter((entry): entry is [string, string | number | boolean] =>
      ['string', 'number', 'boolean'].includes(typeof entry[1]),
    )
    .map(([key, value]): [string, string] => [key, String(value)]);
  const link = nonBlank(source['link']);
  const finding: NormalizedFinding = {
    ...emptyFinding({
      kind: 'secret',
      title: `${detector} secret found in ${file ?? nonBlank(record['SourceName']) ?? 'unknown location'}`,
      // A verified secret was tried against its service and works: exploitable today.
      severity: verified ? 'critical' : 'high',
      toolName: 'TruffleHog',
    }),
    description: labelledLines([
      ['Detector', detector],
      ['Verified', verified ? 'yes' : 'no'],
      ['Source', nonBlank(record['SourceName'])],
      ['Repository', nonBlank(source['repository'])],
      ['Commit', nonBlank(source['commit'])],
      ['Timestamp', nonBlank(source['timestamp'])],
      ['Redacted secret', safeRedacted],
      ...extraLines,
    ]),
    remediation: SECRET_REMEDIATION,
    ruleId: detector,
    filePath: file,
    line: positiveInt(source['line']),
    snippet: safeRedacted,
    cweIds: [798],
    references: link !== null ? [link] : [],
    secretHash: secret !== null ? sha256Hex(secret) : null,
  };
  return redactSecrets(finding, [secret, rawText, rawV2Text]);
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const { sniff } = input;
  // TruffleHog prints nothing when it finds nothing: an empty JSON Lines file is a clean scan.
  if (sniff.shape === 'empty') return;
  if (sniff.shape !== 'jsonl' && sniff.shape !== 'json-object') {
    throw new ParseError('TruffleHog output must be JSON Lines (one object per line)');
  }
  const seen = new Set<string>();
  for await (const { value } of streamJsonValues(readBytes(input), { paths: ['$'], separator: '' })) {
    if (!isRecord(value)) throw new ParseError('TruffleHog record must be a JSON object');
    const keys = Object.keys(value);
    let findings: NormalizedFinding[];
    if ('SourceMetadata' in value || 'DetectorName' in value) findings = [v3Record(value)];
    else if (isV2(keys)) findings = legacyRecords(value, { toolName: 'TruffleHog', diffLines: false });
    else throw new ParseError('Not a TruffleHog record (no SourceMetadata/DetectorName or stringsFound)');
    for (const finding of findings) {
      const key = secretTwinKey(finding);
      if (seen.has(key)) continue;
      seen.add(key);
      yield finding;
    }
  }
}

export const trufflehog: ParserModule = { name: 'trufflehog', displayName: 'TruffleHog', detect, parse };
