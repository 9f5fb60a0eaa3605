import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
} from '../../../../test/support/parser-suite.ts';
import { gitlabContainerScan, imageRepository } from './gitlab-container-scan.ts';

describe('gitlab_container_scan parser', () => {
  manifestCountTests(gitlabContainerScan, 'gitlab_container_scan');
  foreignFileTests(gitlabContainerScan, 'gitlab_container_scan');
  detectionIsolationTests(gitlabContainerScan, 'gitlab_container_scan');

  it('maps an image package vulnerability', async () => {
    const [finding] = await parseCorpusFile(
      gitlabContainerScan,
      'gitlab_container_scan/gl-container-scanning-report-1-vuln_v15.json',
    );
    expect(finding).toMatchObject({
      kind: 'dependency',
      title: 'CVE-2019-3462 in apt-1.4.8',
      severity: 'high',
      ruleId: 'CVE-2019-3462',
      cveIds: ['CVE-2019-3462'],
      packageName: 'apt',
      packageVersion: '1.4.8',
      fixedVersion: '1.4.9',
      remediation: 'Upgrade apt from 1.4.8 to 1.4.9',
      filePath: 'registry.gitlab.com/gitlab-org/security-products/dast/webgoat-8.0',
      // The report's own vulnerability id (DefectDojo's unique_id_from_tool).
      toolFingerprint: 'df52bc8ce9a2ae56bbcb0c4ecda62123fbd6f69b',
      toolName: 'Trivy',
      toolVersion: '0.16.0',
    });
    expect(finding?.description).toContain('Operating system: debian:9.4');
    expect(finding?.references).toHaveLength(11);
  });

  it('keeps one CVE in several packages apart and ignores ids that are only the CVE', async () => {
    const findings = await parseCorpusFile(gitlabContainerScan, 'gitlab_container_scan/issue6639_v15.json');
    const openssl = findings.filter((f) => f.ruleId === 'CVE-2022-0778');
    expect(openssl.map((f) => f.packageName)).toEqual([
      'libcrypto1.1',
      'libretls',
      'libssl1.1',
      'openssl',
      'openssl-dev',
    ]);
    expect(openssl.every((f) => f.toolFingerprint === null)).toBe(true);
    expect(findings[0]).toMatchObject({
      title: 'CVE-2022-28391 in busybox-1.34.1-r4',
      severity: 'critical',
      fixedVersion: '1.34.1-r5',
      filePath: 'XXXXXX.dkr.ecr.eu-west-3.amazonaws.com/XXX/admintools/tools',
    });
  });

  it('strips tags and digests from image names', () => {
    expect(imageRepository('registry:5000/group/app:1.2@sha256:abc123')).toBe('registry:5000/group/app');
    expect(imageRepository('registry:5000/group/app')).toBe('registry:5000/group/app');
    expect(imageRepository('alpine:3.19')).toBe('alpine');
  });

  hostileInputTests(gitlabContainerScan, [
    ['an empty file', ''],
    ['a wrong root type', '[{"vulnerabilities": []}]'],
    ['a truncated document', '{"version": "15.0.0", "vulnerabilities": [{"id": "a", "severity": "High"'],
    ['vulnerabilities that are not an array', '{"version": "15.0.0", "vulnerabilities": {"a": {}}}'],
    ['a vulnerability that is not an object', '{"version": "15.0.0", "vulnerabilities": [7]}'],
    [
      'a report of another scan type',
      '{"version": "15.0.0", "vulnerabilities": [], "scan": {"type": "dependency_scanning"}}',
    ],
  ]);
});
