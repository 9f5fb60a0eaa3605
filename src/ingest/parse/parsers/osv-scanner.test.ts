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
import { compareVersions, osvScanner } from './osv-scanner.ts';

/** DefectDojo expects 0 findings from this zero-byte file; scanhub refuses it (see below). */
const ZERO_BYTE_SAMPLE = 'osv_scanner/no_findings.json';

describe('osv_scanner parser', () => {
  manifestCountTests(osvScanner, 'osv_scanner', {}, { minRows: 3, skip: [ZERO_BYTE_SAMPLE] });
  foreignFileTests(osvScanner, 'osv_scanner');
  detectionIsolationTests(osvScanner, 'osv_scanner', { disclaims: (file) => file === ZERO_BYTE_SAMPLE });

  it('refuses the zero-byte sample instead of reading it as "no findings"', async () => {
    // Deliberate difference from DefectDojo (0 findings): an empty upload is what a crashed scan
    // leaves behind, and accepting it would mark every open OSV finding of the version fixed.
    const input = await inputFromFile(corpusPath(ZERO_BYTE_SAMPLE));
    expect(osvScanner.detect(input.sniff)).toBe(false);
    await expect(collectFindings(osvScanner, input)).rejects.toBeInstanceOf(ParseError);
  });

  it('maps a malicious-package entry without a severity', async () => {
    const [finding] = await parseCorpusFile(osvScanner, 'osv_scanner/some_findings.json');
    // DefectDojo titles it "MAL-2023-1035_flot-axis"; scanhub uses its common dependency title.
    expect(finding).toMatchObject({
      kind: 'dependency',
      title: 'MAL-2023-1035 in flot-axis 0.0.0',
      severity: 'low', // no severity anywhere: Low, as in DefectDojo
      ruleId: 'MAL-2023-1035',
      cweIds: [506],
      packageName: 'flot-axis',
      filePath: '/tmp/components/yarn.lock',
      references: ['https://github.com/advisories/GHSA-8348-2q94-ffjx'],
      toolName: 'OSV-Scanner',
    });
  });

  it('maps GHSA entries of a composer.lock', async () => {
    const findings = await parseCorpusFile(osvScanner, 'osv_scanner/many_findings.json');
    expect(findings[0]).toMatchObject({
      title: 'GHSA-25mq-v84q-4j7r in guzzlehttp/guzzle 6.3.3',
      severity: 'high',
      cveIds: ['CVE-2022-31090'],
      cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:N/A:N',
      cvssScore: 7.7,
      fixedVersion: '6.5.8',
      remediation: 'Upgrade guzzlehttp/guzzle to 6.5.8',
      filePath: '/tmpcardmarket-api/composer.lock',
    });
    const guzzle = findings.filter((f) => f.packageName === 'guzzlehttp/guzzle');
    expect(guzzle.map((f) => f.ruleId)).toHaveLength(5);
  });

  it('picks the fixed version of the range holding the installed version', async () => {
    const findings = await parseCorpusFile(osvScanner, 'osv_scanner/many_findings.json');
    // Django 3.2.4: ranges 2.2→2.2.28, 3.2→3.2.13 and 4.0→4.0.4.
    expect(findings.find((f) => f.ruleId === 'PYSEC-2022-190')?.fixedVersion).toBe('3.2.13');
    // Severity from the CVSS vector when the database gives no word (PYSEC entries).
    expect(findings.find((f) => f.ruleId === 'PYSEC-2023-221')).toMatchObject({
      severity: 'high',
      cvssScore: 7.5,
    });
    expect(compareVersions('3.2.4', '3.2a1')).toBeGreaterThan(0);
    expect(compareVersions('1.26.17', '1.26.18')).toBeLessThan(0);
  });

  hostileInputTests(osvScanner, [
    ['a wrong root type', '[]'],
    ['an object without results', '{"vulns": []}'],
    ['a truncated report', '{"results": [{"source": {"path": "a"}, "packages": [{"package": {"name": "x"'],
  ]);
});
