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
import { sha256Hex } from './secrets.ts';
import { trufflehog } from './trufflehog.ts';

/**
 * DefectDojo merges v2 records by file and reason (18). docs/architecture.md ("Finding identity") makes a
 * secret's identity its rule, path and a hash of the match, so the two different secrets TruffleHog found in
 * test_all.py stay two findings: 19.
 */
const DELIBERATE: Record<string, number> = { 'trufflehog/v2_many_vulns.json': 19 };

/** Raw secrets of a corpus file: v3 `Raw` (as written, and base64-decoded), v2 `stringsFound`. */
function corpusSecrets(file: string): string[] {
  return readFileSync(corpusPath(file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      const raw = typeof record['Raw'] === 'string' ? record['Raw'] : null;
      const found = Array.isArray(record['stringsFound']) ? record['stringsFound'].map(String) : [];
      return [...(raw ? [raw, Buffer.from(raw, 'base64').toString('utf8')] : []), ...found];
    });
}

describe('trufflehog parser', () => {
  manifestCountTests(trufflehog, 'trufflehog', DELIBERATE);
  foreignFileTests(trufflehog, 'trufflehog');
  detectionIsolationTests(trufflehog, 'trufflehog');

  it('maps v3 git records, decoding base64 Raw values and merging commit twins', async () => {
    const findings = await parseCorpusFile(trufflehog, 'trufflehog/v3_git.json');
    expect(findings.map((f) => [f.ruleId, f.filePath, f.line, f.severity])).toEqual([
      ['AWS', 'keys', 4, 'critical'],
      ['URI', 'keys', 3, 'critical'],
      ['PrivateKey', 'keys', 1, 'critical'],
    ]);
    expect(findings[0]).toMatchObject({
      kind: 'secret',
      title: 'AWS secret found in keys',
      cweIds: [798],
      secretHash: sha256Hex('AKIAYVP4CIPPERUVIFXG'),
      // Redacted is the key id itself for AWS, so it is not shown.
      snippet: null,
      toolName: 'TruffleHog',
    });
    expect(findings[0]?.description).toContain('arn: arn:aws:iam::595918472158:user/');
    expect(findings[1]).toMatchObject({
      secretHash: sha256Hex('https://admin:admin@the-internet.herokuapp.com/basic_auth'),
      snippet: 'https://*****:*****@the-internet.herokuapp.com/basic_auth',
    });
    expect(findings[2]?.snippet).toBeNull();
  });

  it('maps v3 GitHub records with their link', async () => {
    const findings = await parseCorpusFile(trufflehog, 'trufflehog/v3_github.json');
    expect(findings[0]?.references).toEqual([
      'https://github.com/trufflesecurity/test_keys/blob/fbc14303ffbf8fb1c2c1914e8dda7d0121633aca/keys',
    ]);
  });

  it('hashes a plain-text Raw value as it is', async () => {
    const record = {
      SourceMetadata: { Data: { Filesystem: { file: 'app/.env', line: 2 } } },
      DetectorName: 'Stripe',
      Verified: false,
      Raw: 'sk_live_abcdefghijklmnopqrstuvwx',
      Redacted: '',
    };
    const [finding] = await parseText(trufflehog, `${JSON.stringify(record)}\n`);
    expect(finding).toMatchObject({
      filePath: 'app/.env',
      line: 2,
      severity: 'high',
      secretHash: sha256Hex('sk_live_abcdefghijklmnopqrstuvwx'),
    });
  });

  it('maps v2 records, one finding per secret', async () => {
    const findings = await parseCorpusFile(trufflehog, 'trufflehog/v2_many_vulns.json');
    expect(findings[0]).toMatchObject({
      title: 'Generic Secret found in test_all.py',
      severity: 'medium',
      cweIds: [798],
      filePath: 'test_all.py',
      secretHash: sha256Hex("secret = 'd15627104d07846ac2914a976e8e347a663bbd9b'"),
    });
    expect(findings[1]?.secretHash).toBe(sha256Hex("secret = '9ed54617547cfca783e0f81f8dc5c927e3d1e345'"));
  });

  noRawSecretTests(
    trufflehog,
    'trufflehog',
    (file) => [...corpusSecrets(file), 'd15627104d07846ac2914a976e8e347a663bbd9b'],
    2,
  );

  // TruffleHog prints nothing when it finds nothing, so an empty file is a clean scan, not an error.
  it('reads an empty output as no findings', async () => {
    expect(await parseText(trufflehog, '')).toEqual([]);
  });

  hostileInputTests(trufflehog, [
    ['a wrong root type', '[{"DetectorName": "AWS"}]'],
    ['a truncated record', '{"SourceMetadata": {"Data": {}}, "DetectorName": "AWS"}\n{"SourceMetadata": {'],
    ['a line that is not an object', '{"SourceMetadata": {}, "DetectorName": "AWS"}\n42\n'],
    ['records of another tool', '{"a": 1}\n{"b": 2}\n'],
  ]);
});
