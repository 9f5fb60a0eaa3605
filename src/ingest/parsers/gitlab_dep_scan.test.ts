import { readdirSync, readFileSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { corpusPath, parseCorpusFile } from '../../../test/support/parse-corpus.ts';
import { buildSniff } from '../sniff.ts';
import { inputFromFile } from '../upload-input.ts';
import { gitlabDepScan } from './gitlab_dep_scan.ts';
import { ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput } from './types.ts';

const FORMAT = 'gitlab_dep_scan';
const rows = readFileSync(corpusPath('MANIFEST.tsv'), 'utf8')
  .split('\n')
  .slice(1)
  .map((line) => line.split('\t'))
  .filter((cells) => cells[0] === FORMAT)
  .map((cells) => ({ file: cells[1] ?? '', expected: cells[5] ?? '' }));

/**
 * DefectDojo's test only asserts "more than 2" for this file, so the manifest has no number; it holds
 * 6 vulnerabilities (3 advisories, some for several locked versions) and each is a finding.
 */
const UNSTATED: Record<string, number> = {
  'gitlab_dep_scan/gl-dependency-scanning-report-many-vuln_v15.json': 6,
};
const expectedCount = (file: string, expected: string): number =>
  expected === '' ? (UNSTATED[file] ?? Number.NaN) : Number(expected);

const inputOf = (content: string): ParserInput => {
  const bytes = Buffer.from(content);
  return { open: () => Readable.from([bytes]), sniff: buildSniff(bytes) };
};
const parseText = async (content: string): Promise<NormalizedFinding[]> => {
  const findings: NormalizedFinding[] = [];
  for await (const finding of gitlabDepScan.parse(inputOf(content))) findings.push(finding);
  return findings;
};

describe('gitlab_dep_scan parser', () => {
  it('has corpus rows in the manifest', () => {
    expect(rows.length).toBeGreaterThan(0);
  });

  it.each(rows)('finds the expected number of findings in $file', async ({ file, expected }) => {
    expect(await parseCorpusFile(gitlabDepScan, file)).toHaveLength(expectedCount(file, expected));
  });

  it("fails on every other format's corpus file with ParseError or not at all", async () => {
    const root = corpusPath('.');
    for (const dir of readdirSync(root).filter((name) => statSync(corpusPath(name)).isDirectory())) {
      if (dir === FORMAT) continue;
      for (const file of readdirSync(corpusPath(dir))) {
        const outcome = await parseCorpusFile(gitlabDepScan, `${dir}/${file}`).catch(
          (error: unknown) => error,
        );
        if (!Array.isArray(outcome)) expect(outcome, `${dir}/${file}`).toBeInstanceOf(ParseError);
      }
    }
  });

  it('detects every GitLab dependency scanning corpus file and no file of another format', async () => {
    const root = corpusPath('.');
    for (const dir of readdirSync(root).filter((name) => statSync(corpusPath(name)).isDirectory())) {
      for (const file of readdirSync(corpusPath(dir))) {
        const { sniff } = await inputFromFile(corpusPath(`${dir}/${file}`));
        expect(gitlabDepScan.detect(sniff), `${dir}/${file}`).toBe(dir === FORMAT);
      }
    }
  });

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
    await expect(parseText(report)).rejects.toThrow(/sast report/);
  });

  it.each([
    ['an empty file', ''],
    ['a wrong root type', '[{"vulnerabilities": []}]'],
    ['a truncated document', '{"version": "15.0.0", "vulnerabilities": [{"id": "a", "severity": "High"'],
    ['vulnerabilities that are not an array', '{"version": "15.0.0", "vulnerabilities": {"a": {}}}'],
    ['a vulnerability that is not an object', '{"version": "15.0.0", "vulnerabilities": [null]}'],
    ['a document without vulnerabilities', '{"version": "15.0.0", "dependency_files": []}'],
  ])('rejects %s with ParseError', async (_name, content) => {
    await expect(parseText(content)).rejects.toBeInstanceOf(ParseError);
  });
});
