import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath, parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
} from '../../../../test/support/parser-suite.ts';
import { inputFromFile } from '../../upload-input.ts';
import type { NormalizedFinding, ParserInput, Severity } from './types.ts';
import { sarifParser } from './sarif.ts';

const parse = (file: string): Promise<NormalizedFinding[]> => parseCorpusFile(sarifParser, `sarif/${file}`);

function countBy(
  findings: NormalizedFinding[],
  key: (f: NormalizedFinding) => string,
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const finding of findings) counts[key(finding)] = (counts[key(finding)] ?? 0) + 1;
  return counts;
}

describe('sarif parser: corpus counts (DefectDojo expectations from MANIFEST.tsv)', () => {
  manifestCountTests(sarifParser, 'sarif', {}, { minRows: 13 });
});

describe('sarif parser: the corpus', () => {
  foreignFileTests(sarifParser, 'sarif');
  detectionIsolationTests(sarifParser, 'sarif');
});

describe('sarif parser: spot checks', () => {
  it('reads a gzip upload (both passes reopen the decompressed stream)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sarif-'));
    try {
      const path = join(dir, 'codeql.sarif.gz');
      writeFileSync(path, gzipSync(readFileSync(corpusPath('sarif/codeQL-output.sarif'))));
      const input = await inputFromFile(path);
      expect(sarifParser.detect(input.sniff)).toBe(true);
      let count = 0;
      for await (const _finding of sarifParser.parse(input)) count++;
      expect(count).toBe(72);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the metadata pass in place: the same findings and facts from a file as from a stream', async () => {
    // inputFromFile gives the metadata pass one reused buffer (readInPlace); the corpus' large
    // logs span dozens of reads, so any byte kept past its read would change a rule or a scope.
    const facts = () => {
      const said: string[] = [];
      return {
        said,
        scope: (tool: string, category: string | null) => said.push(`scope ${tool} ${category}`),
        coveredFile: (path: string) => said.push(`file ${path}`),
      };
    };
    const collect = async (input: ParserInput) => {
      const told = facts();
      const findings: NormalizedFinding[] = [];
      for await (const finding of sarifParser.parse(input, told)) findings.push(finding);
      return { findings, said: told.said };
    };
    for (const file of ['semgrepowasp-benchmark-sample.sarif', 'codeQL-output.sarif']) {
      const fromFile = await inputFromFile(corpusPath(`sarif/${file}`));
      expect(fromFile.readInPlace, file).toBeDefined();
      const streamOnly: ParserInput = { open: fromFile.open, sniff: fromFile.sniff };
      const inPlace = await collect(fromFile);
      expect(inPlace.findings.length, file).toBeGreaterThan(0);
      expect(inPlace).toEqual(await collect(streamOnly));
      // Both passes read in place when they can: a file that cannot be streamed parses the same.
      const inPlaceOnly: ParserInput = {
        ...fromFile,
        open: () => {
          throw new Error('streamed instead of read in place');
        },
      };
      expect(await collect(inPlaceOnly)).toEqual(inPlace);
    }
  });

  it('codeQL-output.sarif: [7] rule, path, line, High, CWE from external/cwe tag, rendered link', async () => {
    const findings = await parse('codeQL-output.sarif');
    expect(findings[7]).toMatchObject({
      kind: 'code',
      ruleId: 'py/call/wrong-named-argument',
      filePath: 'good/mod_user.py',
      line: 33,
      column: 20,
      severity: 'high',
      cweIds: [628],
      // `[function create](1)` points at a related location; only its label is kept.
      title: "Keyword argument 'request' is not a supported parameter name of function create.",
      toolName: 'CodeQL',
      toolVersion: '2.5.4',
      toolFingerprint: 'primaryLocationLineHash:15e245a0c9ecd61e:1|primaryLocationStartColumnFingerprint:11',
    });
    expect(findings[7]?.snippet).toContain('libsession.create(request=request');
  });

  it('LGTM export: both runs are read; severity falls back to the rule default level', async () => {
    const findings = await parse('DefectDojo_django-DefectDojo__2020-12-11_13 42 10__export.sarif');
    expect(countBy(findings, (f) => f.filePath?.split('.').pop() ?? '')).toMatchObject({
      js: expect.any(Number),
    });
    expect(findings.some((f) => f.ruleId?.startsWith('com.lgtm/python-queries:'))).toBe(true);
    expect(findings[0]).toMatchObject({
      ruleId: 'com.lgtm/javascript-queries:js/unused-local-variable',
      severity: 'low', // defaultConfiguration.level "note"
      filePath: 'dojo/static/dojo/js/index.js',
      line: 220,
      title: 'Unused variable p4.',
      toolName: 'LGTM.com',
    });
  });

  it('cxf-3.4.6.sarif (Grype): numeric security-severity; package vulnerabilities are dependency findings', async () => {
    const findings = await parse('cxf-3.4.6.sarif');
    expect(findings[0]).toMatchObject({
      kind: 'dependency',
      severity: 'low',
      severityScore: 2.1,
      cvssScore: 2.1,
      cveIds: ['CVE-2008-0732'],
      packageName: 'geronimo-j2ee-management_1.1_spec',
      packageVersion: '1.0.1',
      fixedVersion: null,
      filePath: 'lib/geronimo-j2ee-management_1.1_spec-1.0.1.jar',
      title: 'CVE-2008-0732 in geronimo-j2ee-management_1.1_spec 1.0.1',
    });
    expect(findings[0]?.references).toContain('https://nvd.nist.gov/vuln/detail/CVE-2008-0732');
    expect(findings[6]).toMatchObject({ severity: 'high', severityScore: 7.8, cveIds: ['CVE-2011-5034'] });
  });

  it('issue_10191.json (Semgrep OSS): security-severity words; result.fingerprints; CWE tags', async () => {
    const findings = await parse('issue_10191.json');
    expect(countBy(findings, (f) => f.severity)).toEqual({ critical: 34, high: 1, medium: 42 });
    expect(findings[0]).toMatchObject({
      filePath: 'Gruntfile.js',
      line: 75,
      cweIds: [22],
      severityScore: null,
      title: 'The application dynamically constructs file or path information.',
    });
    expect(findings[0]?.toolFingerprint).toMatch(/^matchBasedId\/v1:e5aea7d0/);
  });

  it('flawfinder.sarif: CWE from rule relationships (its kind=pass result is skipped: 53 of 54)', async () => {
    const findings = await parse('flawfinder.sarif');
    expect(findings[0]).toMatchObject({
      severity: 'high',
      cweIds: [327],
      filePath: 'src/tree/param.cc', // uriBaseId SRCROOT
      line: 29,
      ruleId: 'FF1048',
    });
    // DefectDojo reports [20] as Info; docs/architecture.md ("SARIF mapping") maps level "note" to low.
    expect(findings[20]).toMatchObject({ severity: 'low', cweIds: [120] });
    expect(findings[52]?.cweIds).toEqual([120, 20]);
  });

  it('mobsfscan.json: one finding per location of a multi-location result', async () => {
    const findings = await parse('mobsfscan.json');
    const logging = findings.filter((f) => f.ruleId === 'android_logging');
    expect(logging).toHaveLength(8);
    expect(new Set(logging.map((f) => `${f.filePath}:${f.line}`)).size).toBe(8);
    // Its app-wide results point at "./", the repository itself: no file.
    expect(findings.find((f) => f.ruleId === 'android_root_detection')?.filePath).toBeNull();
  });

  it('dockle_0_3_15.sarif: results without locations; help.text link as reference', async () => {
    const findings = await parse('dockle_0_3_15.sarif');
    expect(findings.map((f) => f.filePath)).toEqual([null, null, null, null]);
    expect(findings[0]).toMatchObject({ ruleId: 'CIS-DI-0010', severity: 'high' });
    expect(findings[0]?.references).toEqual([
      'https://github.com/goodwithtech/dockle/blob/master/CHECKPOINT.md#CIS-DI-0010',
    ]);
    // DefectDojo: Info; docs/architecture.md ("SARIF mapping"): note → low.
    expect(findings.slice(1).map((f) => f.severity)).toEqual<Severity[]>(['low', 'low', 'low']);
  });

  it('SuppressionTestCurrent.sarif: suppressed results are false positives; file:// made relative', async () => {
    const findings = await parse('SuppressionTestCurrent.sarif');
    expect(findings.map((f) => f.initialStatus)).toEqual([
      'false_positive',
      'false_positive',
      'false_positive',
      null,
    ]);
    expect(findings[0]).toMatchObject({ title: 'New suppressed result.', filePath: 'C:/code/file1.c' });
    expect(findings[0]?.description).toBe('Rule 001\n\nNew suppressed result.');
  });

  it('bash-report.sarif: partialFingerprints joined in key order; file:// URIs made relative to the workingDirectory', async () => {
    const findings = await parse('bash-report.sarif');
    expect(new Set(findings.map((f) => f.severity))).toEqual(new Set(['low'])); // all level "note"
    expect(findings[6]).toMatchObject({
      toolFingerprint: 'scanFileHash:5b05533780915bfc|scanPrimaryLocationHash:4d655189c485c086',
      // invocations[].workingDirectory is file:///home/damien/dd: the checkout root is not identity.
      filePath: 'setup/scripts/common/dojo-shared-resources.sh',
      line: 142,
      ruleId: '2072',
    });
    expect(findings.every((f) => !f.filePath?.startsWith('/') && !f.filePath?.includes('file:'))).toBe(true);
  });

  it('spotbugs.sarif: message templates filled from rule messageStrings', async () => {
    const findings = await parse('spotbugs.sarif');
    expect(findings[0]).toMatchObject({
      title: 'Hard coded reference to an absolute pathname in Boot.main(String[]).',
      filePath: 'Boot.java',
      line: 23,
      toolName: 'SpotBugs',
    });
    expect(findings.every((f) => !/\{\d\}/.test(f.title))).toBe(true);
  });

  it('semgrepowasp-benchmark-sample.sarif: the large sample', async () => {
    const findings = await parse('semgrepowasp-benchmark-sample.sarif');
    expect(findings[0]?.filePath).toBe('src/main/java/org/owasp/benchmark/testcode/BenchmarkTest02660.java');
  });

  it('mayhem_code_many_vulns.sarif: CWE from result taxa', async () => {
    const findings = await parse('mayhem_code_many_vulns.sarif');
    // DefectDojo's test calls this finding [0]; in file order it is the fourth result.
    expect(findings[3]).toMatchObject({ cweIds: [400], severity: 'high', ruleId: 'MI102' });
    expect(findings[0]?.cweIds).toEqual([190]);
    expect(findings[1]?.filePath).toBe('stdio-common/vfscanf-internal.c'); // "./" stripped
  });
});

describe('sarif parser: hostile input is a ParseError', () => {
  const cases: [string, string][] = [
    ['an empty file', ''],
    ['a JSON array', '[]'],
    ['truncated JSON', '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":'],
    ['runs that is not an array', '{"version":"2.1.0","runs": 5}'],
    ['no runs at all', '{"version":"2.1.0"}'],
    ['deep nesting', `{"runs":[{"tool":{"driver":{"name":"x"}},"results":[${'['.repeat(50_000)}`],
    ['deep nesting, closed', `{"runs":${'['.repeat(5000)}${']'.repeat(5000)}}`],
    ['results without a tool', '{"version":"2.1.0","runs":[{"results":[{"message":{"text":"x"}}]}]}'],
    ['a result that is not an object', '{"runs":[{"tool":{"driver":{"name":"x"}},"results":[5]}]}'],
    ['text', 'not json'],
  ];
  hostileInputTests(sarifParser, cases);
});
