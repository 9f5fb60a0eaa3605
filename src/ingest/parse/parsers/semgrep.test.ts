import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { semgrep } from './semgrep.ts';

describe('semgrep parser', () => {
  manifestCountTests(semgrep, 'semgrep');
  foreignFileTests(semgrep, 'semgrep');
  detectionIsolationTests(semgrep, 'semgrep');

  it('maps CLI results: severity, location, rule and CWE', async () => {
    const findings = await parseCorpusFile(semgrep, 'semgrep/many_vulns.json');
    expect(findings[0]).toMatchObject({
      kind: 'code',
      severity: 'high',
      filePath: 'tasks.py',
      line: 186,
      column: 39,
      endLine: 186,
      ruleId: 'python.lang.correctness.tempfile.flush.tempfile-without-flush',
      snippet: "                   'xsl-style-sheet': temp.name}",
      toolName: 'Semgrep',
    });
    expect(findings[0]?.title).toBe(
      "Using 'temp.name' without '.flush()' or '.close()' may cause an error because the file may not exist when 'temp.name' is used.",
    );
    expect(findings[4]).toMatchObject({ severity: 'medium', cweIds: [327], line: 124 });
    expect(findings[37]).toMatchObject({ severity: 'high', cweIds: [1236] });
  });

  it('merges an exact twin into one finding', async () => {
    const [finding] = await parseCorpusFile(semgrep, 'semgrep/repeated_findings.json');
    expect(finding).toMatchObject({
      severity: 'medium',
      cweIds: [696],
      line: 66,
      remediation: 'javax crypto Cipher.getInstance("AES/GCM/NoPadding");',
      references: [
        'https://capec.mitre.org/data/definitions/463.html',
        'https://find-sec-bugs.github.io/bugs.htm#PADDING_ORACLE',
      ],
    });
  });

  it('treats the "requires login" placeholders as absent and prefers metadata impact', async () => {
    const findings = await parseCorpusFile(semgrep, 'semgrep/fingerprint_test.json');
    expect(findings.map((f) => f.toolFingerprint)).toEqual([null, null]);
    expect(findings[0]).toMatchObject({ filePath: 'sample/brute.py', line: 31, snippet: null, cweIds: [78] });
    // ERROR with impact MEDIUM, WARNING with impact HIGH.
    expect(findings.map((f) => f.severity)).toEqual(['medium', 'high']);
    expect(findings[0]?.toolVersion).toBe('1.100.0');
  });

  it('keeps the fingerprint when the finding moves', async () => {
    const [first] = await parseCorpusFile(semgrep, 'semgrep/close_old_findings_report_line31.json');
    const [second] = await parseCorpusFile(
      semgrep,
      'semgrep/close_old_findings_report_second_run_line24.json',
    );
    expect(first?.line).toBe(31);
    expect(second?.line).toBe(24);
    expect(first?.toolFingerprint).toMatch(/^1d0cfd65/);
    expect(second?.toolFingerprint).toBe(first?.toolFingerprint);
  });

  it('maps the supply-chain export to dependency findings', async () => {
    const findings = await parseCorpusFile(semgrep, 'semgrep/sca-deployments-vulns.json');
    expect(findings[0]).toMatchObject({
      kind: 'dependency',
      title: 'Reachable Assertion in grpc',
      severity: 'high',
      filePath: 'requirements3.txt',
      line: 222,
      cweIds: [617],
      cveIds: ['CVE-2023-1428'],
      packageName: 'grpcio',
      packageVersion: '1.47.0',
      fixedVersion: '1.53.0',
      ruleId: 'ssc-82207871-bbda-49be-b1af-49fd927a2f93',
      remediation: 'Upgrade grpcio to 1.53.0',
    });
    expect(findings.at(-1)).toMatchObject({ severity: 'critical', packageName: 'url-parse' });
  });

  it('keeps only a hash of what a secrets rule matched', async () => {
    const line = 'aws_key = "AKIAZZZZZZZZZZZZZZZZ"';
    const result = {
      check_id: 'generic.secrets.security.detected-aws-access-key-id-value.detected-aws-access-key-id-value',
      path: 'config.py',
      start: { line: 3, col: 12 },
      end: { line: 3, col: 32 },
      extra: { message: 'AWS Access Key ID Value detected.', severity: 'ERROR', metadata: {}, lines: line },
    };
    const [finding] = await parseText(semgrep, JSON.stringify({ results: [result], errors: [] }));
    expect(finding).toMatchObject({ kind: 'secret', snippet: null, line: 3 });
    expect(finding?.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(finding)).not.toContain('AKIAZZZZZZZZZZZZZZZZ');
  });

  hostileInputTests(semgrep, [
    ['an empty file', ''],
    ['a wrong root type', '[{"check_id": "x"}]'],
    ['a truncated document', '{"results": [{"check_id": "a", "path": "x.py"'],
    ['results that are not an array', '{"results": {"a": {}}, "errors": []}'],
    ['a result that is not an object', '{"results": [42], "errors": []}'],
    ['a document without results', '{"errors": []}'],
  ]);
});
