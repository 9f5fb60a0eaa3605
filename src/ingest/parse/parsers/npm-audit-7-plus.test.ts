import { describe, expect, it } from 'vitest';
import { inputFromText } from '../../../../test/support/corpus-manifest.ts';
import { corpusPath, parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  collectFindings,
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
} from '../../../../test/support/parser-suite.ts';
import { inputFromFile } from '../../upload-input.ts';
import { npmAudit7Plus } from './npm-audit-7-plus.ts';

/** An npm 7 report filed under npm_audit to show the v6 parser refusing it; it is ours to read. */
const NPM7_IN_V6_FOLDER = 'npm_audit/many_vuln_npm7.json';

describe('npm_audit_7_plus parser', () => {
  manifestCountTests(npmAudit7Plus, 'npm_audit_7_plus', {}, { minRows: 3 });
  foreignFileTests(npmAudit7Plus, 'npm_audit_7_plus');
  detectionIsolationTests(npmAudit7Plus, 'npm_audit_7_plus', {
    claims: (file) => file === NPM7_IN_V6_FOLDER,
  });

  it('reads the npm 7 sample that the v6 parser refuses, one finding per package', async () => {
    const input = await inputFromFile(corpusPath(NPM7_IN_V6_FOLDER));
    expect(npmAudit7Plus.detect(input.sniff)).toBe(true);
    // DefectDojo merges findings with equal title+severity here (three unrelated "Prototype
    // Pollution" packages become one); scanhub keeps one finding per vulnerable package.
    expect(await parseCorpusFile(npmAudit7Plus, NPM7_IN_V6_FOLDER)).toHaveLength(15);
  });

  it('maps a package with advisories', async () => {
    const [finding] = await parseCorpusFile(npmAudit7Plus, 'npm_audit_7_plus/one_vuln.json');
    expect(finding).toMatchObject({
      kind: 'dependency',
      title: 'Regular Expression Denial of Service in debug (debug)',
      severity: 'high',
      ruleId: 'GHSA-gxpj-cx7g-858c',
      cweIds: [400, 1333],
      // DefectDojo reports the first advisory's vector (CVSS:3.0 … A:L, 5.3). The package is "high"
      // because of its second advisory (7.5), so scanhub reports the score behind the severity.
      cvssScore: 7.5,
      cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
      packageName: 'debug',
      filePath: 'node_modules/debug',
      remediation: 'Upgrade express to 4.18.3',
      fixedVersion: null,
      references: [
        'https://github.com/advisories/GHSA-gxpj-cx7g-858c',
        'https://github.com/advisories/GHSA-9vvw-cc9w-f27h',
      ],
    });
  });

  it('maps a package vulnerable only through its dependencies', async () => {
    const findings = await parseCorpusFile(npmAudit7Plus, 'npm_audit_7_plus/many_vulns.json');
    // DefectDojo's title is the bare package name "@vercel/fun"; scanhub says why it is listed.
    expect(findings[0]).toMatchObject({
      title: '@vercel/fun: depends on vulnerable debug, semver',
      severity: 'medium',
      cweIds: [1035],
      ruleId: null,
      packageName: '@vercel/fun',
      remediation: 'Upgrade vercel to 32.3.0 (a semver-major upgrade)',
    });
    expect(findings.find((f) => f.packageName === 'vercel')?.fixedVersion).toBe('32.3.0');
  });

  it('reads the `npm audit fix --dry-run --json` wrapper', async () => {
    const report = {
      audit: {
        auditReportVersion: 2,
        vulnerabilities: { x: { name: 'x', severity: 'critical', via: ['y'] } },
      },
    };
    const input = inputFromText(JSON.stringify(report));
    expect(npmAudit7Plus.detect(input.sniff)).toBe(true);
    expect(await collectFindings(npmAudit7Plus, input)).toEqual([
      expect.objectContaining({ severity: 'critical', packageName: 'x' }),
    ]);
  });

  hostileInputTests(npmAudit7Plus, [
    ['an empty file', ''],
    ['a wrong root type', '[]'],
    ['an npm 6 report', '{"actions": [], "advisories": {}}'],
    ['a truncated report', '{"auditReportVersion": 2, "vulnerabilities": {"x": {"name": "x"'],
  ]);
});
