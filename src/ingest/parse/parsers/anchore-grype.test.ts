import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { anchoreGrype } from './anchore-grype.ts';

describe('anchore_grype parser', () => {
  manifestCountTests(anchoreGrype, 'anchore_grype', {}, { minRows: 6 });
  foreignFileTests(anchoreGrype, 'anchore_grype');
  detectionIsolationTests(anchoreGrype, 'anchore_grype');

  it('merges matches of the same vulnerability, package and version', async () => {
    const findings = await parseCorpusFile(anchoreGrype, 'anchore_grype/check_all_fields.json');
    // DefectDojo titles this "CVE-2004-0971 in libgssapi-krb5-2:1.17-3+deb10u3"; every scanhub
    // dependency parser uses "<id> in <package> <version>" so titles read the same across tools.
    expect(findings[0]).toMatchObject({
      kind: 'dependency',
      title: 'CVE-2004-0971 in libgssapi-krb5-2 1.17-3+deb10u3',
      severity: 'info', // Negligible
      ruleId: 'CVE-2004-0971',
      cveIds: ['CVE-2004-0971'], // listed twice in the report (vulnerability and related record)
      packageName: 'libgssapi-krb5-2',
      filePath: '/var/lib/dpkg/status',
      toolName: 'Grype',
      toolVersion: '0.28.0',
    });
    const keys = findings.map((f) => `${f.ruleId} ${f.packageName} ${f.packageVersion}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('maps CVSS and fixes from the current schema', async () => {
    const [first] = await parseCorpusFile(anchoreGrype, 'anchore_grype/many_vulns_with_epss_values.json');
    expect(first).toMatchObject({
      ruleId: 'CVE-2022-28391',
      severity: 'high',
      cvssScore: 8.8,
      cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H',
      toolVersion: '0.94.0',
    });
  });

  it("reads the report's own EPSS and percentile as the file states them", async () => {
    const findings = await parseCorpusFile(anchoreGrype, 'anchore_grype/many_vulns_with_epss_values.json');
    expect(findings).toHaveLength(15);
    expect(findings.slice(0, 3).map((f) => [f.ruleId, f.reportEpss, f.reportEpssPercentile])).toEqual([
      ['CVE-2022-28391', 0.0719, 0.91123],
      ['CVE-2021-28831', 0.00878, 0.74313],
      ['CVE-2022-48174', 0.00451, 0.62761],
    ]);
    for (const finding of findings) expect(finding.reportEpss).toEqual(expect.any(Number));
    // A GHSA match: the EPSS entry names the related CVE.
    const [ghsa] = await parseCorpusFile(anchoreGrype, 'anchore_grype/anchore_grype_epss_problem.json');
    expect(ghsa).toMatchObject({ reportEpss: 0.00163, reportEpssPercentile: 0.37957 });
    // A report without EPSS (older Grype) has none.
    const [old] = await parseCorpusFile(anchoreGrype, 'anchore_grype/many_vulns3.json');
    expect(old?.reportEpss ?? null).toBeNull();
  });

  it('keeps the highest EPSS of the entries naming its CVEs, and ignores values outside 0–1', async () => {
    const report = (epss: unknown[]) =>
      JSON.stringify({
        matches: [
          {
            vulnerability: { id: 'CVE-2024-0001', severity: 'High', epss },
            relatedVulnerabilities: [],
            matchDetails: [],
            artifact: { name: 'pkg', version: '1.0' },
          },
        ],
      });
    const parse = async (epss: unknown[]) => (await parseText(anchoreGrype, report(epss)))[0];
    expect(
      await parse([
        { cve: 'CVE-2024-0001', epss: 0.2, percentile: 0.8 },
        { cve: 'CVE-2024-0001', epss: 0.5, percentile: 0.9 },
        { cve: 'CVE-1999-9999', epss: 0.9, percentile: 0.99 },
        { cve: 'CVE-2024-0001', epss: 7, percentile: 1 },
        { cve: 'CVE-2024-0001', epss: 'high', percentile: 0.99 },
        { cve: 'CVE-2024-0001', epss: -0.1, percentile: 0.99 },
      ]),
    ).toMatchObject({ reportEpss: 0.5, reportEpssPercentile: 0.9 });
    expect(await parse([{ cve: 'CVE-2024-0001', epss: 0.3, percentile: 2 }])).toMatchObject({
      reportEpss: 0.3,
      reportEpssPercentile: null,
    });
    expect(await parse([])).toMatchObject({ reportEpss: null, reportEpssPercentile: null });
  });

  it('finds the CVE of a GHSA match among its related vulnerabilities', async () => {
    const [finding] = await parseCorpusFile(anchoreGrype, 'anchore_grype/anchore_grype_epss_problem.json');
    expect(finding).toMatchObject({
      ruleId: 'GHSA-4374-p667-p6c8',
      cveIds: ['CVE-2023-39325'],
      fixedVersion: '0.17.0',
      remediation: 'Upgrade golang.org/x/net to 0.17.0',
    });
  });

  it('leaves the fix empty when its state is unknown', async () => {
    const [finding] = await parseCorpusFile(anchoreGrype, 'anchore_grype/issue_9942.json');
    expect(finding).toMatchObject({ ruleId: 'CVE-2009-3882', fixedVersion: null, remediation: null });
  });

  it('reads the old (0.7.0) schema and finds the tool version at the end of a large file', async () => {
    const findings = await parseCorpusFile(anchoreGrype, 'anchore_grype/many_vulns3.json');
    expect(findings[0]).toMatchObject({
      title: 'CVE-2019-18276 in bash 5.0-4',
      cvssScore: 7.2,
      toolVersion: '0.7.0',
    });
    expect(new Set(findings.map((f) => f.severity))).toEqual(
      new Set(['info', 'low', 'medium', 'high', 'critical']),
    );
  });

  hostileInputTests(anchoreGrype, [
    ['an empty file', ''],
    ['a wrong root type', '[{"vulnerability": {}}]'],
    ['an object without matches', '{"results": []}'],
    ['a truncated report', '{"matches": [{"vulnerability": {"id": "CVE-2020-1"'],
  ]);
});
