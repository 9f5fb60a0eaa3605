import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { corpusPath, parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  noRawSecretTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { buildSniff } from '../sniff.ts';
import { inputFromFile } from '../../upload-input.ts';
import { findingIdentity } from '../../fingerprint.ts';
import { gitleaks } from './gitleaks.ts';
import { sha256Hex } from './secrets.ts';

/** The raw secrets of a corpus file: v8 `Secret`/`Match` secrets, legacy `offender`s (unless redacted). */
function corpusSecrets(file: string): string[] {
  const leaks: unknown = JSON.parse(readFileSync(corpusPath(file), 'utf8'));
  if (!Array.isArray(leaks)) return [];
  return leaks
    .flatMap((leak: Record<string, unknown>) => [leak['Secret'], leak['offender']])
    .filter((secret): secret is string => typeof secret === 'string' && secret !== 'REDACTED');
}

describe('gitleaks parser', () => {
  manifestCountTests(gitleaks, 'gitleaks');
  foreignFileTests(gitleaks, 'gitleaks');
  detectionIsolationTests(gitleaks, 'gitleaks');

  it('reads the Gitleaks 7 "nothing found" null report', async () => {
    const { sniff } = await inputFromFile(corpusPath('gitleaks/no_findings.json'));
    expect(gitleaks.detect(sniff)).toBe(true);
    expect(await parseCorpusFile(gitleaks, 'gitleaks/no_findings.json')).toEqual([]);
  });

  it('leaves the ambiguous empty array to an explicit scanner type', async () => {
    expect(gitleaks.detect(buildSniff(Buffer.from('[]\n')))).toBe(false);
    expect(await parseText(gitleaks, '[]')).toEqual([]);
  });

  it('maps legacy leaks without line numbers', async () => {
    const findings = await parseCorpusFile(gitleaks, 'gitleaks/data_many.json');
    expect(findings[0]).toMatchObject({
      kind: 'secret',
      title: 'Hard Coded Github',
      severity: 'high',
      ruleId: 'Github',
      filePath: '.bashrc',
      line: null,
      // The first 4 characters stay, like `gitleaks --redact`.
      snippet: 'export JEKYLL_GITH[REDACTED]',
      cweIds: [798],
      secretHash: sha256Hex('GITHUB_TOKEN="c77e01c1e89682e4d4b94a059a7fd2b37ab326ed"'),
      toolName: 'Gitleaks',
    });
  });

  it('maps 7.5 leaks and merges one secret seen in several commits', async () => {
    const findings = await parseCorpusFile(gitleaks, 'gitleaks/version_7.5.0.json');
    expect(findings[0]).toMatchObject({ title: 'Hard Coded AWS Access Key', line: 13 });
    expect(findings[3]).toMatchObject({
      filePath: 'dojo/unittests/tools/test_gitlab_secret_detection_report_parser.py',
      line: 37,
    });
  });

  it('does not hash the redaction placeholder', async () => {
    const findings = await parseCorpusFile(gitleaks, 'gitleaks/redacted_data_many.json');
    expect(findings.every((f) => f.secretHash === null)).toBe(true);
    expect(findings[0]).toMatchObject({ line: 224, snippet: 'access-key = "REDACTED"' });
  });

  it('maps Gitleaks 8 leaks', async () => {
    const findings = await parseCorpusFile(gitleaks, 'gitleaks/gitleaks8_many.json');
    expect(findings[0]).toMatchObject({
      title: 'Hard coded AWS found in /conf/aws.tf',
      ruleId: 'aws-access-token',
      filePath: '/conf/aws.tf',
      line: 2,
      endLine: 2,
      column: 24038,
      secretHash: sha256Hex('secretAWSsecret'),
    });
    expect(findings[2]).toMatchObject({
      ruleId: 'generic-api-key',
      filePath: 'tests/api.py',
      line: 21,
      snippet: 'apikey = "dfjk[REDACTED]"',
    });
  });

  it('keeps different secrets of one rule in one file apart, and one secret pasted twice as one', async () => {
    // Gitleaks' Fingerprint differs only by line ("file:rule:line"): it cannot be the identity.
    const leak = (line: number, secret: string) => ({
      Description: 'GitHub Personal Access Token',
      StartLine: line,
      EndLine: line,
      Secret: secret,
      Match: `TOKEN=${secret}`,
      File: 'config/credentials.env',
      RuleID: 'github-pat',
      Fingerprint: `config/credentials.env:github-pat:${line}`,
    });
    const first = `ghp_${'a1'.repeat(18)}`;
    const second = `ghp_${'b2'.repeat(18)}`;
    const findings = await parseText(
      gitleaks,
      JSON.stringify([leak(4, first), leak(5, second), leak(9, first)]),
    );
    expect(findings.map((f) => [f.line, f.secretHash, f.toolFingerprint])).toEqual([
      [4, sha256Hex(first), null],
      [5, sha256Hex(second), null],
    ]);
    const identities = findings.map((f) => findingIdentity('gitleaks', f).base);
    expect(new Set(identities).size).toBe(2);
  });

  noRawSecretTests(gitleaks, 'gitleaks', (file) => [
    ...corpusSecrets(file),
    // The credentials inside legacy offenders such as GITHUB_TOKEN="...".
    'c77e01c1e89682e4d4b94a059a7fd2b37ab326ed',
    '38c47f19e349153fa963bb3b3212fe8e-us11',
  ]);

  hostileInputTests(gitleaks, [
    ['an empty file', ''],
    ['a wrong root type', '{"Description": "AWS"}'],
    ['a truncated document', '[{"Description": "AWS", "StartLine": 2'],
    ['a leak that is not an object', '[1]'],
  ]);
});
