import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { gitlabDepScan } from './gitlab-dep-scan.ts';

/**
 * DefectDojo's test only asserts "more than 2" for this file, so the manifest has no number; it holds
 * 6 vulnerabilities (3 advisories, some for several locked versions) and each is a finding.
 */
const UNSTATED: Record<string, number> = {
  'gitlab_dep_scan/gl-dependency-scanning-report-many-vuln_v15.json': 6,
};

describe('gitlab_dep_scan parser', () => {
  manifestCountTests(gitlabDepScan, 'gitlab_dep_scan', UNSTATED);
  foreignFileTests(gitlabDepScan, 'gitlab_dep_scan');
  detectionIsolationTests(gitlabDepScan, 'gitlab_dep_scan');

  it('maps a dependency vulnerability', async () => {
    const [finding] = await parseCorpusFile(
      gitlabDepScan,
      'gitlab_dep_scan/gl-dependency-scanning-report-many-vuln_v15.json',
    );
    expect(finding).toMatchObject({
      kind: 'dependency',
      title: 'Nil Pointer Dereference in golang.org/x/crypto',
      severity: 'high',
      ruleId: 'CVE-2020-29652',
      cveIds: ['CVE-2020-29652'],
      filePath: 'service/go.sum',
      packageName: 'golang.org/x/crypto',
      packageVersion: 'v0.0.0-20190219172222-a4c6cb3142f2',
      fixedVersion: 'v0.0.0-20201216223049-8b5274cf687f',
      toolName: 'Gemnasium',
      toolVersion: '2.24.1',
    });
    expect(finding?.toolFingerprint).toMatch(/^8a562c9eec70/);
    expect(finding?.references).toContain('https://nvd.nist.gov/vuln/detail/CVE-2020-29652');
  });

  it('keeps a vulnerability whose component is missing', async () => {
    const findings = await parseCorpusFile(
      gitlabDepScan,
      'gitlab_dep_scan/gl-dependency-scanning-report-2-vuln-missing-component_v15.json',
    );
    expect(findings[0]).toMatchObject({
      title: 'XML Entity Expansion',
      packageName: null,
      packageVersion: null,
      severity: 'info',
      ruleId: '7368f513-0aa9-4e34-a08d-40ea81f48e0e',
      fixedVersion: '2.2.3',
      cveIds: [],
    });
    expect(findings[1]).toMatchObject({ packageName: 'golang.org/x/crypto', cveIds: ['CVE-2020-29652'] });
  });

  it('refuses a report that declares another scan type', async () => {
    const report = '{"version": "15.0.0", "vulnerabilities": [], "scan": {"type": "sast"}}';
    await expect(parseText(gitlabDepScan, report)).rejects.toThrow(/sast report/);
  });

  hostileInputTests(gitlabDepScan, [
    ['an empty file', ''],
    ['a wrong root type', '[{"vulnerabilities": []}]'],
    ['a truncated document', '{"version": "15.0.0", "vulnerabilities": [{"id": "a", "severity": "High"'],
    ['vulnerabilities that are not an array', '{"version": "15.0.0", "vulnerabilities": {"a": {}}}'],
    ['a vulnerability that is not an object', '{"version": "15.0.0", "vulnerabilities": [null]}'],
    ['a document without vulnerabilities', '{"version": "15.0.0", "dependency_files": []}'],
  ]);
});
