import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsLintConcern, sarifConcern } from '../../src/domain/findings/concern.ts';
import { findParser } from '../../src/ingest/parse/parsers/index.ts';
import type { NormalizedFinding, ParserModule } from '../../src/ingest/parse/parsers/types.ts';
import { parseFixture } from '../support/format-fixtures.ts';
import { liveReport } from '../support/live-fixtures.ts';
import { parseCorpusFile } from '../support/parse-corpus.ts';
import { parseText } from '../support/parser-suite.ts';

/**
 * Security versus quality (issue 45 item 7; domain/findings/concern.ts): each parser's classification
 * on real tool output, and one tool's severities agreeing across its formats.
 */

const parser = (name: string): ParserModule => {
  const found = findParser(name);
  if (!found) throw new Error(`no parser ${name}`);
  return found;
};
const live = (name: string) =>
  parseText(
    parser(name.endsWith('.sarif') ? 'sarif' : (name.split('.')[0] ?? '')),
    liveReport('v1', name).toString('utf8'),
  );
const byRule = (findings: NormalizedFinding[]) =>
  Object.fromEntries(findings.map((finding) => [finding.ruleId ?? '(none)', finding.concern]));

describe('classification per parser', () => {
  it('ESLint: eqeqeq and no-unused-vars are quality, the eval family security, in JSON and SARIF alike', async () => {
    const json = byRule(await live('eslint.json'));
    const sarif = byRule(await parseText(parser('sarif'), liveReport('v1', 'eslint.sarif').toString('utf8')));
    expect(json).toEqual({ eqeqeq: 'quality', 'no-unused-vars': 'quality', 'no-eval': 'security' });
    expect(sarif).toEqual(json);
  });

  it('Biome and oxlint (SARIF): their security group and the eval rule are security, the rest quality', async () => {
    const sarif = parser('sarif');
    expect(byRule(await parseText(sarif, liveReport('v1', 'biome.sarif').toString('utf8')))).toEqual({
      'lint/correctness/noUnusedVariables': 'quality',
      'lint/suspicious/noDoubleEquals': 'quality',
      'lint/security/noGlobalEval': 'security',
    });
    expect(byRule(await parseText(sarif, liveReport('v1', 'oxlint.sarif').toString('utf8')))).toEqual({
      'eslint(no-eval)': 'security',
      'eslint(no-unused-vars)': 'quality',
    });
  });

  it('Clang analyzer and Spectral (SARIF) are quality tools; Flawfinder, gitleaks and secretlint security', async () => {
    const sarif = parser('sarif');
    const concerns = async (name: string) =>
      new Set((await parseText(sarif, liveReport('v1', name).toString('utf8'))).map((f) => f.concern));
    expect(await concerns('clang-copy.sarif')).toEqual(new Set(['quality']));
    expect(await concerns('spectral.sarif')).toEqual(new Set(['quality']));
    expect(await concerns('flawfinder.sarif')).toEqual(new Set(['security']));
    expect(await concerns('gitleaks.sarif')).toEqual(new Set(['security']));
    expect(await concerns('secretlint.sarif')).toEqual(new Set(['security']));
  });

  it('CodeQL/LGTM (corpus): tagged `security` is security, maintainability queries are quality', async () => {
    const findings = await parseCorpusFile(
      parser('sarif'),
      'sarif/DefectDojo_django-DefectDojo__2020-12-11_13 42 10__export.sarif',
    );
    const concerns = new Set(findings.map((finding) => finding.concern));
    expect(concerns).toEqual(new Set(['security', 'quality']));
    // py/unused-import is tagged maintainability only; js/unsafe-external-link is tagged security.
    const rule = (id: string) => `com.lgtm/${id.startsWith('py') ? 'python' : 'javascript'}-queries:${id}`;
    expect(findings.find((f) => f.ruleId === rule('py/unused-import'))?.concern).toBe('quality');
    expect(
      findings.filter((f) => f.ruleId === 'py/stack-trace-exposure').map((f) => f.concern),
    ).not.toContain('quality');
  });

  it('Semgrep SARIF with security-severity and an unknown tool (Dockle) are security; SpotBugs without SECURITY is quality', async () => {
    const sarif = parser('sarif');
    const concerns = async (file: string) =>
      new Set((await parseCorpusFile(sarif, file)).map((finding) => finding.concern));
    expect(await concerns('sarif/issue_10191.json')).toEqual(new Set(['security']));
    expect(await concerns('sarif/dockle_0_3_15.sarif')).toEqual(new Set(['security']));
    const spotbugs = await parseCorpusFile(sarif, 'sarif/spotbugs.sarif');
    expect(new Set(spotbugs.map((finding) => finding.concern))).toEqual(new Set(['quality', 'security']));
  });

  it('native security scanners are security (corpus: bandit, gosec, trivy, semgrep, gitleaks, checkov)', async () => {
    for (const [name, file] of [
      ['bandit', 'bandit/many_vulns.json'],
      ['gosec', 'gosec/many_vulns.json'],
      ['trivy', 'trivy/misconfigurations_and_secrets.json'],
      ['semgrep', 'semgrep/fingerprint_test.json'],
      ['checkov', 'checkov/checkov-report-many-vuln.json'],
      ['npm_audit_7_plus', 'npm_audit_7_plus/many_vulns.json'],
    ] as const) {
      const findings = await parseCorpusFile(parser(name), file).catch(() => [] as NormalizedFinding[]);
      if (findings.length === 0) continue; // a sample this parser reads elsewhere
      expect(new Set(findings.map((finding) => finding.concern)), file).toEqual(new Set(['security']));
    }
  });

  it('SonarQube (corpus, web API): BUG and CODE_SMELL are quality, VULNERABILITY security', async () => {
    const findings = await parseCorpusFile(parser('sonarqube'), 'sonarqube/findings_over_api.json');
    const byType = findings.map((finding) => [
      /Type: (\w+)/.exec(finding.description ?? '')?.[1],
      finding.concern,
    ]);
    expect(byType).toEqual(
      expect.arrayContaining([
        ['VULNERABILITY', 'security'],
        ['BUG', 'quality'],
        ['CODE_SMELL', 'quality'],
      ]),
    );
    expect(byType.every(([type, concern]) => (type === 'VULNERABILITY') === (concern === 'security'))).toBe(
      true,
    );
  });

  it('linters: Pylint, ShellCheck and GitLab Code Quality (ESLint) quality but their security rules; Cppcheck by memory-safety CWE', async () => {
    const pylint = await parseFixture(parser('pylint'), 'pylint/pylint.json');
    expect(pylint.length).toBeGreaterThan(0);
    for (const finding of pylint) {
      expect(finding.concern).toBe(
        ['eval-used', 'exec-used'].includes(finding.ruleId ?? '') ? 'security' : 'quality',
      );
    }
    const shellcheck = await parseFixture(parser('shellcheck'), 'shellcheck/shellcheck.json');
    expect(new Set(shellcheck.map((finding) => finding.concern))).toEqual(new Set(['quality']));
    const quality = byRule(
      await parseFixture(parser('gitlab_code_quality'), 'gitlab_code_quality/gl-code-quality-report.json'),
    );
    expect(quality).toMatchObject({ eqeqeq: 'quality', 'no-eval': 'security', 'no-unused-vars': 'quality' });
    const cppcheck = await parseFixture(parser('cppcheck'), 'cppcheck/cppcheck.xml');
    const memory = cppcheck.filter((finding) =>
      finding.cweIds.some((id) => [119, 125, 476, 787, 788, 416, 415].includes(id)),
    );
    expect(memory.length).toBeGreaterThan(0);
    expect(new Set(memory.map((finding) => finding.concern))).toEqual(new Set(['security']));
    expect(cppcheck.some((finding) => finding.concern === 'quality')).toBe(true);
  });
});

describe("one tool's severities agree across its formats", () => {
  /** Severity by rule and line: the same problem in both reports of one run. */
  const severities = (findings: NormalizedFinding[]) =>
    new Map(
      findings.map((finding) => [
        `${finding.ruleId} ${finding.filePath?.split('/').pop()}:${finding.line}`,
        finding.severity,
      ]),
    );

  it('ESLint JSON and ESLint SARIF of the same run (error → medium, warning → low)', async () => {
    const json = severities(await live('eslint.json'));
    const sarif = severities(
      await parseText(parser('sarif'), liveReport('v1', 'eslint.sarif').toString('utf8')),
    );
    expect(json.size).toBe(8);
    expect([...sarif.entries()].sort()).toEqual([...json.entries()].sort());
    expect(
      json.get('eqeqeq app.js:5') ?? [...json.entries()].find(([key]) => key.startsWith('eqeqeq'))?.[1],
    ).toBe('medium');
  });

  it('ESLint JSON and the same run through eslint-formatter-gitlab (GitLab Code Quality)', async () => {
    const json = await parseFixture(parser('eslint'), 'eslint/eslint.json');
    const quality = await parseFixture(
      parser('gitlab_code_quality'),
      'gitlab_code_quality/gl-code-quality-report.json',
    );
    const key = (finding: NormalizedFinding) =>
      `${finding.ruleId} ${finding.filePath?.split('/').pop()}:${finding.line}`;
    const rules = new Map(
      json.filter((finding) => finding.ruleId !== null).map((finding) => [key(finding), finding.severity]),
    );
    const compared = quality.filter((finding) => rules.has(key(finding)));
    expect(compared.length).toBe(rules.size);
    for (const finding of compared) expect(finding.severity, key(finding)).toBe(rules.get(key(finding)));
  });

  it('Gitleaks JSON and Gitleaks SARIF of the same run', async () => {
    const json = await parseText(parser('gitleaks'), liveReport('v1', 'gitleaks.json').toString('utf8'));
    const sarif = await parseText(parser('sarif'), liveReport('v1', 'gitleaks.sarif').toString('utf8'));
    expect(json.length).toBe(sarif.length);
    expect(new Set(sarif.map((finding) => finding.severity))).toEqual(
      new Set(json.map((finding) => finding.severity)),
    );
  });
});

describe('classification does not depend on result order', () => {
  it('a SARIF run gives each result the same concern whatever the order of its results', async () => {
    const report = JSON.parse(liveReport('v1', 'biome.sarif').toString('utf8')) as {
      runs: { results: unknown[] }[];
    };
    const results = report.runs[0]?.results ?? [];
    const key = (finding: NormalizedFinding) =>
      `${finding.ruleId} ${finding.filePath}:${finding.line}:${finding.column}`;
    const expected = new Map(
      (await parseText(parser('sarif'), JSON.stringify(report))).map((f) => [key(f), f.concern]),
    );
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(results, { minLength: results.length }), async (shuffled) => {
        const copy = { ...report, runs: [{ ...report.runs[0], results: shuffled }] };
        const findings = await parseText(parser('sarif'), JSON.stringify(copy));
        for (const finding of findings) expect(finding.concern).toBe(expected.get(key(finding)));
      }),
      { numRuns: 25 },
    );
  });

  it('the rule table is a function of the rule and its marks alone', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('ESLint', 'Biome', 'CodeQL', 'Semgrep OSS', 'clang', 'SpotBugs', 'anything'),
        fc.option(
          fc.constantFrom('no-eval', 'eqeqeq', 'security/detect-eval-with-expression', 'lint/security/x'),
          { nil: null },
        ),
        fc.array(
          fc.constantFrom('security', 'maintainability', 'Security', 'correctness', 'external/cwe/cwe-79'),
        ),
        fc.boolean(),
        (toolName, ruleId, tags, hasSecuritySeverity) => {
          const input = { toolName, ruleId, tags, cweIds: [], hasSecuritySeverity };
          const concern = sarifConcern(input);
          expect(sarifConcern({ ...input, tags: [...tags].reverse() })).toBe(concern);
          if (hasSecuritySeverity || tags.some((tag) => tag.toLowerCase() === 'security'))
            expect(concern).toBe('security');
          if (toolName === 'anything') expect(concern).toBe('security');
        },
      ),
    );
    expect(jsLintConcern('security/detect-object-injection')).toBe('security');
    expect(jsLintConcern('react/jsx-key')).toBe('quality');
  });
});
