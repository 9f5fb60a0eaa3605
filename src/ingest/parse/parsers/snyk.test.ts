import { describe, expect, it } from 'vitest';
import { inputFromText } from '../../../../test/support/corpus-manifest.ts';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  collectFindings,
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
} from '../../../../test/support/parser-suite.ts';
import { severityFromPriority } from './snyk-code.ts';
import { snyk } from './snyk.ts';

describe('snyk parser', () => {
  manifestCountTests(snyk, 'snyk', {}, { minRows: 6 });
  foreignFileTests(snyk, 'snyk');
  detectionIsolationTests(snyk, 'snyk');

  it('maps an Open Source vulnerability', async () => {
    const [finding] = await parseCorpusFile(snyk, 'snyk/single_project_one_vuln.json');
    expect(finding).toMatchObject({
      kind: 'dependency',
      // DefectDojo: "com.test:myframework@1.0.0-SNAPSHOT: XML External Entity (XXE) Injection".
      title: 'XML External Entity (XXE) Injection in org.apache.santuario:xmlsec 2.1.1',
      severity: 'medium',
      ruleId: 'SNYK-JAVA-ORGAPACHESANTUARIO-460281',
      cveIds: ['CVE-2019-12400'],
      cweIds: [611],
      cvssScore: 6.5,
      packageName: 'org.apache.santuario:xmlsec',
      packageVersion: '2.1.1',
      fixedVersion: '2.1.4',
      remediation: 'Upgrade org.apache.santuario:xmlsec to 2.1.4',
      // DefectDojo puts the dependency chain in file_path; scanhub keeps the manifest there (the
      // fingerprint's "manifest path") and the chain in the description.
      filePath: 'pom.xml',
      toolName: 'Snyk',
    });
    expect(finding?.description).toContain(
      'Introduced through: com.test:myframework@1.0.0-SNAPSHOT > org.apache.santuario:xmlsec@2.1.1',
    );
    expect(finding?.references[0]).toBe('https://security.snyk.io/vuln/SNYK-JAVA-ORGAPACHESANTUARIO-460281');
  });

  it('reads --all-projects arrays with each project’s manifest', async () => {
    const findings = await parseCorpusFile(snyk, 'snyk/all-projects_many_vulns.json');
    expect(findings.map((f) => f.filePath)).toEqual([
      'pom.xml',
      'project-a\\pom.xml',
      'project-a\\pom.xml',
      'project-b\\pom.xml',
    ]);
  });

  it('maps container and multi-CWE vulnerabilities', async () => {
    const findings = await parseCorpusFile(snyk, 'snyk/all_containers_target_output.json');
    expect(findings[0]).toMatchObject({
      severity: 'critical',
      title: 'SQL Injection in django 4.0.5',
      filePath: 'Mobile-Security-Framework-MobSF/requirements.txt',
    });
    expect(findings.some((f) => f.cweIds.length > 1)).toBe(true);
    expect(findings.find((f) => f.cweIds.includes(119))?.cweIds).toEqual([119, 120]);
  });

  it('reads Snyk Code SARIF with severity from priorityScore bands', async () => {
    const findings = await parseCorpusFile(snyk, 'snyk/snykcode_issue_9270.json');
    expect(findings[0]).toMatchObject({
      kind: 'code',
      severity: 'medium', // priorityScore 504
      ruleId: 'javascript/XSS',
      cweIds: [79],
      filePath: 'frontend/src/app/score-board/score-board.component.ts',
      line: 216,
    });
    expect(findings[7]?.severity).toBe('high'); // 804
    expect(findings.find((f) => f.ruleId === 'javascript/JwtDecodeMethod')?.severity).toBe('low'); // 301
    expect([399, 400, 699, 700, 899, 900].map(severityFromPriority)).toEqual([
      'low',
      'medium',
      'medium',
      'high',
      'high',
      'critical',
    ]);
  });

  it('reports Snyk’s own error instead of an empty result', async () => {
    const input = inputFromText(
      '{"ok": false, "error": "Could not detect supported target files", "path": "."}',
    );
    await expect(collectFindings(snyk, input)).rejects.toThrow(/Could not detect supported target files/);
  });

  hostileInputTests(snyk, [
    ['an empty file', ''],
    ['a wrong root type', '"vulnerabilities"'],
    ['an object that is not a Snyk report', '{"results": []}'],
    ['a truncated report', '{"vulnerabilities": [{"id": "SNYK-JS-X-1", "title": "x"'],
    ['a truncated project list', '[{"vulnerabilities": [], "displayTargetFile": "package.json"'],
  ]);
});
