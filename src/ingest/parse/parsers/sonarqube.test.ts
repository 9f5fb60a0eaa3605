import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  parseText,
  truncatedGzipTest,
} from '../../../../test/support/parser-suite.ts';
import { sonarqube } from './sonarqube.ts';

describe('sonarqube parser', () => {
  manifestCountTests(sonarqube, 'sonarqube');
  foreignFileTests(sonarqube, 'sonarqube');
  detectionIsolationTests(sonarqube, 'sonarqube');

  it('maps the sonar-report export (sonar-6-findings.json)', async () => {
    const findings = await parseCorpusFile(sonarqube, 'sonarqube/sonar-6-findings.json');
    expect(findings[0]).toMatchObject({
      kind: 'code',
      title: 'Disabling CSRF protections is security-sensitive',
      severity: 'high',
      ruleId: 'python:S4502',
      filePath: 'vulnerable-flask-app.py',
      line: 8,
      cweIds: [352],
      toolFingerprint: 'AYvNd32RyD1npIoQXyT1',
      toolName: 'SonarQube',
    });
    expect(findings[0]?.description).toMatch(
      /^Make sure disabling CSRF protection is safe here\.\n\nA cross-site/,
    );
    expect(findings[0]?.description).not.toContain('<p>');
    expect(findings[0]?.remediation).toContain('Protection against CSRF attacks is strongly recommended');
    expect(findings[0]?.references).toContain('https://owasp.org/www-community/attacks/csrf');
    expect(findings[1]).toMatchObject({
      ruleId: 'python:S4792',
      severity: 'low',
      line: 24,
      cweIds: [117, 532],
    });
  });

  it('maps the newer HIGH/MEDIUM scale (issue_10150.json)', async () => {
    const findings = await parseCorpusFile(sonarqube, 'sonarqube/issue_10150.json');
    expect(findings.map((f) => [f.ruleId, f.severity, f.filePath, f.line])).toEqual([
      ['python:S3752', 'high', 'app.py', 90],
      ['python:S4502', 'high', 'app.py', 27],
      ['docker:S6471', 'medium', 'Dockerfile', 1],
    ]);
  });

  it('maps Web API issues (findings_over_api.json)', async () => {
    const findings = await parseCorpusFile(sonarqube, 'sonarqube/findings_over_api.json');
    expect(findings[0]).toMatchObject({
      severity: 'medium',
      ruleId: 'OWASP:UsingComponentWithKnownVulnerability',
      cveIds: ['CVE-2024-2529'],
      cweIds: [120],
      cvssScore: 6.4,
      // The component is the project itself, not a file.
      filePath: null,
      toolFingerprint: 'fjioefjwoefijo',
    });
    expect(findings[1]).toMatchObject({
      title: 'Add a description to this table.',
      severity: 'low',
      filePath: 'src/app/pages/fjiowefjewio/fjwieof/fjiwoe/details.html',
      line: 59,
      endLine: 59,
    });
    expect(findings[3]?.references).toEqual(['https://github.com/advisories/GHSA-frr2-c345-p7c2']);
    expect(findings[4]).toMatchObject({ severity: 'high', cveIds: ['CVE-2023-52428'], cvssScore: 7.5 });
  });

  it('maps Web API security hotspots (findings_over_api_hotspots.json)', async () => {
    const findings = await parseCorpusFile(sonarqube, 'sonarqube/findings_over_api_hotspots.json');
    expect(findings[0]).toMatchObject({
      title: 'Make sure disabling asdfbuilt-in sanitization is safe here.',
      severity: 'high',
      ruleId: 'typescript:7777',
      filePath: 'src/app/component.asdf',
      line: 47,
    });
    // The component table maps an opaque key to the real path.
    expect(findings[1]).toMatchObject({
      severity: 'low',
      filePath: 'src/app/2389479284379021-footer.component.html',
    });
  });

  it('honours SonarQube dismissals and skips closed issues', async () => {
    const doc = {
      paging: { pageIndex: 1, pageSize: 100, total: 3 },
      issues: [
        {
          key: 'a',
          rule: 'java:S1',
          severity: 'MAJOR',
          component: 'p:A.java',
          status: 'RESOLVED',
          resolution: 'FALSE-POSITIVE',
          message: 'x',
        },
        {
          key: 'b',
          rule: 'java:S1',
          severity: 'MAJOR',
          component: 'p:A.java',
          status: 'CLOSED',
          resolution: 'FIXED',
          message: 'y',
        },
        {
          key: 'c',
          rule: 'java:S2',
          component: 'p:B.java',
          impacts: [{ softwareQuality: 'SECURITY', severity: 'BLOCKER' }],
          message: 'z',
          tags: ['cwe-89'],
        },
      ],
      components: [],
    };
    const findings = await parseText(sonarqube, JSON.stringify(doc));
    expect(findings.map((f) => [f.toolFingerprint, f.initialStatus, f.severity, f.filePath])).toEqual([
      ['a', 'false_positive', 'medium', 'A.java'],
      ['c', null, 'critical', 'B.java'],
    ]);
    expect(findings[1]?.cweIds).toEqual([89]);
  });

  truncatedGzipTest(sonarqube, 'sonarqube/sonar-6-findings.json');

  hostileInputTests(sonarqube, [
    ['empty file', ''],
    ['wrong root type', '[{"rule": "python:S4502"}]'],
    ['object without issues', '{"paging": {}}'],
    ['truncated', '{"sonarComponent": "x", "rules": {}, "issues": [{"rule": "python:S4502"'],
    ['non-object issue', '{"paging": {}, "issues": ["python:S4502"]}'],
  ]);
});
