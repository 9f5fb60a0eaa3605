import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { corpusPath, parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  noRawSecretTests,
} from '../../../../test/support/parser-suite.ts';
import { inputFromFile } from '../../upload-input.ts';
import { sha256Hex } from './secrets.ts';
import { trufflehog3 } from './trufflehog3.ts';

/**
 * DefectDojo merges legacy issues by file and reason (7). docs/architecture.md ("Finding identity") makes a
 * secret's identity its rule, path and a hash of the match, so each distinct high-entropy line (diff marker
 * dropped, so an added line and its later removal are one) is its own finding: 21.
 */
const DELIBERATE: Record<string, number> = { 'trufflehog3/many_vulns_legacy.json': 21 };

/** Raw secrets of a corpus file: current `secret`s, legacy `stringsFound` lines without diff marker. */
function corpusSecrets(file: string): string[] {
  const issues: unknown = JSON.parse(readFileSync(corpusPath(file), 'utf8'));
  if (!Array.isArray(issues)) return [];
  return issues.flatMap((issue: Record<string, unknown>) => [
    ...(typeof issue['secret'] === 'string' ? [issue['secret']] : []),
    ...(Array.isArray(issue['stringsFound'])
      ? issue['stringsFound'].map((line) =>
          String(line)
            .replace(/^[+\- ]/, '')
            .trim(),
        )
      : []),
  ]);
}

/** A bare `[]` (zero_vulns.json) is any array-shaped tool's empty report: nobody claims it. */
const isBareEmptyArray = (file: string): boolean => readFileSync(corpusPath(file), 'utf8').trim() === '[]';

describe('trufflehog3 parser', () => {
  manifestCountTests(trufflehog3, 'trufflehog3', DELIBERATE);
  foreignFileTests(trufflehog3, 'trufflehog3');
  detectionIsolationTests(trufflehog3, 'trufflehog3', { disclaims: isBareEmptyArray });

  it('leaves the ambiguous empty array to an explicit scanner type', async () => {
    const { sniff } = await inputFromFile(corpusPath('trufflehog3/zero_vulns.json'));
    expect(trufflehog3.detect(sniff)).toBe(false);
    expect(await parseCorpusFile(trufflehog3, 'trufflehog3/zero_vulns.json')).toEqual([]);
  });

  it('maps current issues and merges one secret seen in two commits', async () => {
    const findings = await parseCorpusFile(trufflehog3, 'trufflehog3/many_vulns_current.json');
    expect(findings[0]).toMatchObject({
      kind: 'secret',
      title: 'High Entropy found in docker/Dockerfile',
      severity: 'high',
      ruleId: 'high-entropy',
      filePath: 'docker/Dockerfile',
      line: 3,
      cweIds: [798],
      toolFingerprint: null,
      secretHash: sha256Hex('964a1afa20dd4a3723002560124dd96f2a9e853f7ef5b86f5c2354af336fca37'),
      snippet: '+FROM python:3.9.7-alpine@sha256:964a[REDACTED]',
      toolName: 'trufflehog3',
    });
    expect(findings.map((f) => f.severity)).toEqual(['high', 'medium', 'low']);
    expect(findings[2]?.snippet).toBe('DD_API_KEY=44c4[REDACTED]\nsecond line of context');
  });

  it('maps legacy issues, one finding per secret line', async () => {
    const findings = await parseCorpusFile(trufflehog3, 'trufflehog3/many_vulns_legacy.json');
    // DefectDojo says High only because it compares "High Entropy" case-sensitively with this file's
    // "High entropy" and falls through to its default; entropy hits rank low here.
    expect(findings[0]).toMatchObject({
      title: 'High entropy found in fixtures/users.json',
      severity: 'low',
      filePath: 'fixtures/users.json',
      line: null,
      secretHash: sha256Hex('"password": "md5$c77N8n6nJPb1$3b35343aac5e46740f6e673521aa53dc",'),
    });
    expect(findings.filter((f) => f.filePath === 'fixtures/users.json')).toHaveLength(11);
  });

  noRawSecretTests(trufflehog3, 'trufflehog3', corpusSecrets);

  hostileInputTests(trufflehog3, [
    ['an empty file', ''],
    ['a wrong root type', '{"rule": {"id": "x"}}'],
    ['a truncated document', '[{"rule": {"id": "high-entropy", "message": "High Entropy"'],
    ['an issue that is not an object', '["x"]'],
    ['an issue of another tool', '[{"Description": "AWS", "StartLine": 2}]'],
  ]);
});
