import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { gitlabSast } from './gitlab-sast.ts';

describe('gitlab_sast parser', () => {
  manifestCountTests(gitlabSast, 'gitlab_sast');
  foreignFileTests(gitlabSast, 'gitlab_sast');
  detectionIsolationTests(gitlabSast, 'gitlab_sast');

  it('maps a v14 report', async () => {
    const [finding] = await parseCorpusFile(gitlabSast, 'gitlab_sast/gl-sast-report-1-vuln_v14.json');
    expect(finding).toMatchObject({
      kind: 'code',
      title: 'Password in URL',
      severity: 'critical',
      filePath: 'docker-compose.override.unit_tests.yml',
      line: 19,
      endLine: 19,
      ruleId: 'Password in URL',
      toolName: 'TruffleHog',
      toolFingerprint:
        'docker-compose.override.unit_tests.yml:4dd25cfea7294af80c58a87f764286ce21ec612e78ae7a208c0a92887870963b:Password in URL',
    });
  });

  it('maps a v15 report the same way', async () => {
    const [finding] = await parseCorpusFile(gitlabSast, 'gitlab_sast/gl-sast-report-1-vuln_v15.json');
    expect(finding).toMatchObject({ title: 'Password in URL', severity: 'critical', line: 19 });
  });

  it('reads CWE from the identifier name, rule and scanner from the report', async () => {
    const findings = await parseCorpusFile(gitlabSast, 'gitlab_sast/gl-sast-report-confidence_v15.json');
    expect(findings[0]).toMatchObject({
      title: 'node_username',
      severity: 'high',
      filePath: 'data/datacreator.js',
      line: 246,
      ruleId: 'node_username',
      cweIds: [798],
      toolName: 'njsscan',
      toolVersion: '0.1.9',
    });
  });

  it("merges entries sharing GitLab's comparison key and maps Unknown to info", async () => {
    const findings = await parseCorpusFile(gitlabSast, 'gitlab_sast/gl-sast-report-many-vuln_v15.json');
    expect(new Set(findings.map((f) => f.toolFingerprint)).size).toBe(findings.length);
    const injection = findings.find((f) => f.ruleId === 'security/detect-object-injection');
    expect(injection).toMatchObject({ severity: 'info', title: 'Generic Object Injection Sink' });
    const bandit = findings.find((f) => f.ruleId === 'B501');
    expect(bandit).toMatchObject({ severity: 'high', filePath: 'tests/check_status.py', line: 61 });
  });

  it('refuses a report that declares another scan type', async () => {
    const report = '{"version": "15.0.0", "vulnerabilities": [], "scan": {"type": "container_scanning"}}';
    await expect(parseText(gitlabSast, report)).rejects.toThrow(/container_scanning report/);
  });

  hostileInputTests(gitlabSast, [
    ['an empty file', ''],
    ['a wrong root type', '[{"vulnerabilities": []}]'],
    ['a truncated document', '{"version": "15.0.0", "vulnerabilities": [{"id": "a", "severity": "High"'],
    ['vulnerabilities that are not an array', '{"version": "2.3", "vulnerabilities": {"a": {}}}'],
    ['a vulnerability that is not an object', '{"version": "2.3", "vulnerabilities": ["x"]}'],
    ['a document without vulnerabilities', '{"version": "2.3"}'],
  ]);
});
