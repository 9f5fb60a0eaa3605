import { describe, expect, it } from 'vitest';
import { liveReport, liveSecrets } from '../../../../test/support/live-fixtures.ts';
import { parseText } from '../../../../test/support/parser-suite.ts';
import { sarifParser } from './sarif.ts';
import { sha256Hex } from './secrets.ts';
import type { NormalizedFinding } from './types.ts';

const texts = (f: NormalizedFinding): string[] =>
  [
    f.title,
    f.description,
    f.remediation,
    f.snippet,
    f.ruleId,
    f.filePath,
    f.toolFingerprint,
    ...f.references,
  ].filter((text): text is string => text !== null);

const parseLive = (name: string) => parseText(sarifParser, liveReport('v1', name).toString('utf8'));

describe('secrets in SARIF', () => {
  it.each(['gitleaks.sarif', 'secretlint-unmasked.sarif', 'secretlint.sarif'])(
    'stores no secret of the real %s, and marks every result a secret',
    async (name) => {
      const findings = await parseLive(name);
      expect(findings.length).toBeGreaterThan(0);
      expect(findings.every((f) => f.kind === 'secret')).toBe(true);
      for (const finding of findings) {
        for (const text of texts(finding))
          for (const secret of liveSecrets()) expect(text).not.toContain(secret);
      }
    },
  );

  it('keeps the first 4 characters of a Gitleaks snippet and hashes the whole secret', async () => {
    const findings = await parseLive('gitleaks.sarif');
    const tokens = findings.filter((f) => f.ruleId === 'github-pat');
    expect(tokens.map((f) => [f.line, f.snippet, f.secretHash, f.toolFingerprint])).toEqual([
      [4, 'ghp_[REDACTED]', sha256Hex('ghp_2Kdbwo9EwMgyS17yGjJMKT2SAChhCrb8f0xe'), null],
      [5, 'ghp_[REDACTED]', sha256Hex('ghp_9OgliWmaFl4mkYswMLPNVDirzRzZveGPi92H'), null],
    ]);
  });

  it('redacts a secret secretlint wrote into the message, and tells two tokens apart by it', async () => {
    const findings = await parseLive('secretlint-unmasked.sarif');
    const tokens = findings.filter((f) => f.ruleId?.endsWith('secretlint-rule-github'));
    expect(tokens.map((f) => f.title)).toEqual([
      'found GitHub Token(GitHub personal access tokens): ghp_[REDACTED]',
      'found GitHub Token(GitHub personal access tokens): ghp_[REDACTED]',
    ]);
    expect(tokens.map((f) => f.secretHash)).toEqual([
      sha256Hex('ghp_2Kdbwo9EwMgyS17yGjJMKT2SAChhCrb8f0xe'),
      sha256Hex('ghp_9OgliWmaFl4mkYswMLPNVDirzRzZveGPi92H'),
    ]);
  });

  it('has no value to hash when secretlint masked it, and keeps the masked text', async () => {
    const findings = await parseLive('secretlint.sarif');
    expect(findings.every((f) => f.secretHash === null)).toBe(true);
    expect(findings[0]?.title).toMatch(/^found AWS Secret Access Key: \*+$/);
  });

  const taggedRun = (tags: string[], toolName = 'Semgrep OSS') =>
    JSON.stringify({
      version: '2.1.0',
      runs: [
        {
          tool: { driver: { name: toolName, rules: [{ id: 'r1', properties: { tags } }] } },
          results: [
            {
              ruleId: 'r1',
              message: { text: 'Hard-coded key sk_live_4eC39HqLyjWDarjtT1zdp7dc' },
              locations: [
                {
                  physicalLocation: {
                    artifactLocation: { uri: 'app.py' },
                    region: { startLine: 3, snippet: { text: 'KEY = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"' } },
                  },
                },
              ],
            },
          ],
        },
      ],
    });

  it('recognises a secret by its rule tag in any tool, and leaves other results as code', async () => {
    const [secret] = await parseText(sarifParser, taggedRun(['security', 'secrets']));
    expect(secret).toMatchObject({ kind: 'secret', snippet: 'KEY [REDACTED]', cweIds: [798] });
    expect(secret?.title).toBe('Hard-coded key sk_l[REDACTED]');
    expect(secret?.secretHash).toBe(sha256Hex('KEY = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"'));
    const [code] = await parseText(sarifParser, taggedRun(['security', 'secretary-tools']));
    expect(code?.kind).toBe('code');
  });

  it('recognises a secret scanner by its name even without tags', async () => {
    const [finding] = await parseText(sarifParser, taggedRun([], 'detect-secrets'));
    expect(finding?.kind).toBe('secret');
    expect(JSON.stringify(finding)).not.toContain('4eC39HqLyjWDarjtT1zdp7dc');
  });
});
