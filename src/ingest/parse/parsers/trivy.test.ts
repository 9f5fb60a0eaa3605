import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { trivy } from './trivy.ts';

describe('trivy parser', () => {
  manifestCountTests(trivy, 'trivy', {}, { minRows: 6 });
  foreignFileTests(trivy, 'trivy');
  detectionIsolationTests(trivy, 'trivy');

  it('maps a schema 2 image vulnerability', async () => {
    const [first, second] = await parseCorpusFile(trivy, 'trivy/scheme_2_many_vulns.json');
    expect(first).toMatchObject({
      kind: 'dependency',
      title: 'CVE-2020-15999 in freetype 2.9.1-r2',
      severity: 'medium',
      ruleId: 'CVE-2020-15999',
      cveIds: ['CVE-2020-15999'],
      cweIds: [787],
      packageName: 'freetype',
      packageVersion: '2.9.1-r2',
      fixedVersion: '2.9.1-r3',
      remediation: 'Upgrade freetype to 2.9.1-r3',
      filePath: 'app/libs/freetype-2.9.1-r2',
      toolName: 'Trivy',
    });
    expect(second).toMatchObject({ ruleId: 'CVE-2020-28196', severity: 'high' });
  });

  it('maps misconfigurations and secrets without keeping the secret', async () => {
    const findings = await parseCorpusFile(trivy, 'trivy/misconfigurations_and_secrets.json');
    expect(findings[0]).toMatchObject({
      severity: 'high',
      cvssScore: 7.5,
      cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
      filePath: 'requirements.txt',
    });
    expect(findings[2]).toMatchObject({
      kind: 'infrastructure',
      title: "DS002 - Image user should not be 'root'",
      severity: 'high',
      ruleId: 'DS002',
      filePath: 'Dockerfile',
      remediation: "Add 'USER <non root user name>' line to the Dockerfile",
    });
    const secret = findings[3];
    expect(secret).toMatchObject({
      kind: 'secret',
      severity: 'critical',
      ruleId: 'github-pat',
      filePath: 'Dockerfile',
      line: 24,
      secretHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(findings)).not.toContain('GITHUB_PAT=');
  });

  it('names the Kubernetes workload of cluster findings', async () => {
    const findings = await parseCorpusFile(trivy, 'trivy/kubernetes.json');
    expect(findings[0]?.filePath).toMatch(/^default \/ Deployment \/ redis-follower \/ gcr\.io/);
    expect(findings[10]).toMatchObject({
      kind: 'infrastructure',
      ruleId: 'KSV001',
      severity: 'medium',
      filePath: 'default / Deployment / redis-follower',
      line: 132,
    });
  });

  it('maps every Trivy status; only not_affected is a vendor-asserted false positive', async () => {
    const findings = await parseCorpusFile(trivy, 'trivy/all_statuses.json');
    expect(findings.map((f) => f.initialStatus)).toEqual([
      null,
      'false_positive',
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(findings[3]?.cweIds).toEqual([190, 787]);
  });

  it('reads the legacy top-level list', async () => {
    const [first] = await parseCorpusFile(trivy, 'trivy/legacy_many_vulns.json');
    expect(first).toMatchObject({
      title: 'CVE-2011-3374 in apt 1.8.2.2',
      severity: 'low',
      cweIds: [347],
      filePath: 'debian (debian 10.8)',
    });
  });

  it('treats UNKNOWN severity as info and skips passed checks', async () => {
    const report = {
      SchemaVersion: 2,
      Results: [
        {
          Target: 'x',
          Vulnerabilities: [{ VulnerabilityID: 'CVE-2024-1', PkgName: 'p', Severity: 'UNKNOWN' }],
        },
        { Target: 'Dockerfile', Misconfigurations: [{ ID: 'DS001', Status: 'PASS', Severity: 'LOW' }] },
      ],
    };
    const findings = await parseText(trivy, JSON.stringify(report));
    expect(findings).toEqual([expect.objectContaining({ severity: 'info', ruleId: 'CVE-2024-1' })]);
  });

  hostileInputTests(trivy, [
    ['an empty file', ''],
    ['a wrong root type', '"Results"'],
    ['an object that is not a Trivy report', '{"results": []}'],
    ['a truncated report', '{"SchemaVersion": 2, "Results": [{"Target": "a", "Vulnerabilities": [{"Vulnera'],
    ['malformed JSON', '{"SchemaVersion": 2, "Results": [}'],
    ['hostile nesting', `{"SchemaVersion": 2, "Results": ${'['.repeat(100_000)}`],
  ]);
});
