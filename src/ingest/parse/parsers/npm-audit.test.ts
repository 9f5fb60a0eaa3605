import { describe, expect, it } from 'vitest';
import { corpusPath, parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  collectFindings,
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
} from '../../../../test/support/parser-suite.ts';
import { inputFromFile } from '../../upload-input.ts';
import { ParseError } from './types.ts';
import { censorPathHashes, npmAudit } from './npm-audit.ts';

/** The npm 7 sample sits in this folder only to show that the v6 parser refuses it. */
const NPM7_SAMPLE = 'npm_audit/many_vuln_npm7.json';
/** An ENOAUDIT error report: DefectDojo raises (no count in the MANIFEST); tested below. */
const ERROR_SAMPLE = 'npm_audit/empty_with_error.json';

describe('npm_audit parser', () => {
  manifestCountTests(npmAudit, 'npm_audit', {}, { minRows: 6, skip: [ERROR_SAMPLE, NPM7_SAMPLE] });
  foreignFileTests(npmAudit, 'npm_audit');
  detectionIsolationTests(npmAudit, 'npm_audit', { disclaims: (file) => file === NPM7_SAMPLE });

  it('reports npm’s own reason for a failed audit, as DefectDojo raises', async () => {
    const input = await inputFromFile(corpusPath(ERROR_SAMPLE));
    // Claimed on purpose: "npm audit failed: ENOAUDIT" helps more than "unknown format".
    expect(npmAudit.detect(input.sniff)).toBe(true);
    await expect(collectFindings(npmAudit, input)).rejects.toThrow(/ENOAUDIT/);
    await expect(collectFindings(npmAudit, input)).rejects.toBeInstanceOf(ParseError);
  });

  it('leaves an npm 7+ report to npm_audit_7_plus', async () => {
    const input = await inputFromFile(corpusPath(NPM7_SAMPLE));
    expect(npmAudit.detect(input.sniff)).toBe(false);
    await expect(collectFindings(npmAudit, input)).rejects.toThrow(/npm_audit_7_plus/);
  });

  it('maps one advisory', async () => {
    const [finding] = await parseCorpusFile(npmAudit, 'npm_audit/one_vuln.json');
    expect(finding).toMatchObject({
      kind: 'dependency',
      title: 'Command Injection (growl 1.9.2)',
      severity: 'critical',
      ruleId: '146',
      packageName: 'growl',
      packageVersion: '1.9.2',
      fixedVersion: '>=1.10.2',
      remediation: 'Update to version 1.10.2 or later.',
      cveIds: ['CVE-2017-16042'],
      cweIds: [94],
      filePath: 'mocha-jenkins-reporter>mocha>growl',
      references: [
        'https://www.npmjs.com/advisories/146',
        'https://github.com/tj/node-growl/issues/60',
        'https://github.com/tj/node-growl/pull/61',
      ],
      toolName: 'npm audit',
    });
  });

  it('censors git-hash path segments', async () => {
    const findings = await parseCorpusFile(npmAudit, 'npm_audit/many_vuln.json');
    const mime = findings.find((f) => f.filePath === 'censored_by_npm_audit>send>mime');
    expect(mime).toMatchObject({ cveIds: ['CVE-2017-16138'], packageVersion: '1.3.4', severity: 'medium' });
    expect(findings[4]?.packageName).toBe('mime');
    expect(censorPathHashes(`${'ab'.repeat(32)}>x`)).toBe('censored_by_npm_audit>x');
  });

  it('reads CWEs given as a JSON list inside a string, and CVSS', async () => {
    const findings = await parseCorpusFile(npmAudit, 'npm_audit/multiple_cwes.json');
    expect(findings[0]).toMatchObject({
      cweIds: [400],
      ruleId: 'GHSA-whgm-jr23-g3j9',
      cvssScore: 7.5,
      cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
    });
    expect(findings[12]?.cweIds).toEqual([359]);
    expect(findings.find((f) => f.packageName === 'ansi-regex')?.cweIds).toEqual([918, 1333]);
  });

  hostileInputTests(npmAudit, [
    ['an empty file', ''],
    ['a wrong root type', '[]'],
    ['an object that is not an npm report', '{"results": []}'],
    ['a truncated report', '{"actions": [], "advisories": {"1": {"id": 1, "module_name": "x"'],
  ]);
});
