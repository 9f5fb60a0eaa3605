import { describe, expect, it } from 'vitest';
import { parseFixture, readFixtureJson } from '../../../../test/support/format-fixtures.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { gitlabCodeQuality } from './gitlab-code-quality.ts';

const REPORT = 'gitlab_code_quality/gl-code-quality-report.json';

describe('gitlab_code_quality parser', () => {
  detectionIsolationTests(gitlabCodeQuality, 'gitlab_code_quality');
  foreignFileTests(gitlabCodeQuality, 'gitlab_code_quality');

  it("yields the report's own issue count", async () => {
    const issues = readFixtureJson(REPORT) as unknown[];
    expect(issues.length).toBeGreaterThan(10);
    expect(await parseFixture(gitlabCodeQuality, REPORT)).toHaveLength(issues.length);
  });

  it('maps an issue with its relative path and position, not its report-order fingerprint', async () => {
    const findings = await parseFixture(gitlabCodeQuality, REPORT);
    const evalCall = findings.find((finding) => finding.ruleId === 'no-eval');
    expect(evalCall).toMatchObject({
      kind: 'code',
      title: 'eval can be harmful.',
      severity: 'medium',
      filePath: 'app.js',
      line: 7,
      column: 16,
      endLine: 7,
      toolName: 'GitLab Code Quality',
    });
    // Report-order fingerprints are not identity: twins are matched by nearest line instead.
    expect(findings.every((finding) => finding.toolFingerprint === null)).toBe(true);
    // eslint-formatter-gitlab reports a parse error as critical, with an empty check name.
    expect(findings.find((finding) => finding.ruleId === null)).toMatchObject({ severity: 'high' });
  });

  it('reads line-based locations and every Code Climate severity', async () => {
    const issue = {
      description: 'd',
      check_name: 'c',
      fingerprint: 'f',
      location: { path: './a.py', lines: { begin: 4 } },
    };
    const findings = await parseText(
      gitlabCodeQuality,
      JSON.stringify(
        ['blocker', 'critical', 'major', 'minor', 'info'].map((severity, index) => ({
          ...issue,
          fingerprint: `f${index}`,
          severity,
        })),
      ),
    );
    expect(findings.map((finding) => finding.severity)).toEqual([
      'critical',
      'high',
      'medium',
      'low',
      'info',
    ]);
    expect(findings[0]).toMatchObject({ filePath: 'a.py', line: 4, column: null, toolFingerprint: null });
  });

  hostileInputTests(gitlabCodeQuality, [
    ['empty file', ''],
    ['wrong root type', '{"description": "d", "fingerprint": "f", "location": {}}'],
    ['truncated', '[{"description": "d", "fingerprint": "f", "location": {"path": "a'],
    ['non-object issue', '["f"]'],
    ['hostile nesting', `[{"x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]`],
  ]);
});
