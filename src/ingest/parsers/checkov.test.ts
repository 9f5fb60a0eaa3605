import { readdirSync, readFileSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { corpusPath, parseCorpusFile } from '../../../test/support/parse-corpus.ts';
import { buildSniff } from '../sniff.ts';
import { inputFromFile } from '../upload-input.ts';
import { checkov } from './checkov.ts';
import { ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput } from './types.ts';

const FORMAT = 'checkov';
const rows = readFileSync(corpusPath('MANIFEST.tsv'), 'utf8')
  .split('\n')
  .slice(1)
  .map((line) => line.split('\t'))
  .filter((cells) => cells[0] === FORMAT)
  .map((cells) => ({ file: cells[1] ?? '', expected: cells[5] ?? '' }));

/**
 * DefectDojo's test only asserts "more than 2" for this file, so the manifest has no number; the file
 * holds 3 failed checks and each is a finding.
 */
const UNSTATED: Record<string, number> = { 'checkov/checkov-report-many-vuln.json': 3 };
const expectedCount = (file: string, expected: string): number =>
  expected === '' ? (UNSTATED[file] ?? Number.NaN) : Number(expected);

const inputOf = (content: string): ParserInput => {
  const bytes = Buffer.from(content);
  return { open: () => Readable.from([bytes]), sniff: buildSniff(bytes) };
};
const parseText = async (content: string): Promise<NormalizedFinding[]> => {
  const findings: NormalizedFinding[] = [];
  for await (const finding of checkov.parse(inputOf(content))) findings.push(finding);
  return findings;
};

describe('checkov parser', () => {
  it('has corpus rows in the manifest', () => {
    expect(rows.length).toBeGreaterThan(0);
  });

  it.each(rows)('finds the expected number of findings in $file', async ({ file, expected }) => {
    expect(await parseCorpusFile(checkov, file)).toHaveLength(expectedCount(file, expected));
  });

  it('maps failed checks across frameworks', async () => {
    const findings = await parseCorpusFile(checkov, 'checkov/checkov-report-multiple-check_type.json');
    // DefectDojo reports file_path "/aws/db-app.tf" (relative to the scanned directory); scanhub keeps
    // paths repository-relative, which Checkov gives as repo_file_path.
    expect(findings[0]).toMatchObject({
      kind: 'infrastructure',
      title: 'Ensure RDS database has IAM authentication enabled',
      ruleId: 'CKV_AWS_161',
      severity: 'medium',
      filePath: 'infra/terraform/aws/db-app.tf',
      line: 1,
      endLine: 41,
      toolFingerprint: 'CKV_AWS_161|infra/terraform/aws/db-app.tf|aws_db_instance.default',
      toolName: 'Checkov',
      toolVersion: '2.0.209',
    });
    expect(findings[0]?.snippet).toMatch(/^resource "aws_db_instance" "default" \{\n {2}name/);
    expect(findings[0]?.description).toContain('Framework: terraform');
    expect(findings.slice(11).map((f) => [f.ruleId, f.filePath, f.line])).toEqual([
      ['CKV_DOCKER_3', 'infra/terraform/aws/resources/Dockerfile', null],
      [expect.stringMatching(/^CKV_DOCKER_/), 'infra/terraform/aws/resources/Dockerfile', null],
    ]);
    expect(findings[11]?.description).toContain('Framework: dockerfile');
  });

  it('uses explicit severities', async () => {
    const findings = await parseCorpusFile(checkov, 'checkov/checkov-report-severity.json');
    expect(findings.map((f) => f.severity)).toEqual(['medium', 'medium', 'low', 'high']);
    expect(findings[0]).toMatchObject({
      ruleId: 'CKV_GCP_29',
      filePath: 'gcs.tf',
      references: ['https://docs.bridgecrew.io/docs/bc_gcp_gcs_2'],
    });
  });

  it('reads the single-framework v1 report', async () => {
    const [finding] = await parseCorpusFile(checkov, 'checkov/checkov-report-1-vuln.json');
    expect(finding).toMatchObject({
      ruleId: 'CKV_AZURE_42',
      title: 'Ensure the key vault is recoverable',
      filePath: 'file_path',
      line: 1,
      endLine: 16,
      snippet: null,
      toolVersion: '1.0.467',
    });
  });

  it("fails on every other format's corpus file with ParseError or not at all", async () => {
    const root = corpusPath('.');
    for (const dir of readdirSync(root).filter((name) => statSync(corpusPath(name)).isDirectory())) {
      if (dir === FORMAT) continue;
      for (const file of readdirSync(corpusPath(dir))) {
        const outcome = await parseCorpusFile(checkov, `${dir}/${file}`).catch((error: unknown) => error);
        if (!Array.isArray(outcome)) expect(outcome, `${dir}/${file}`).toBeInstanceOf(ParseError);
      }
    }
  });

  it('detects every Checkov corpus file and no file of another format', async () => {
    const root = corpusPath('.');
    for (const dir of readdirSync(root).filter((name) => statSync(corpusPath(name)).isDirectory())) {
      for (const file of readdirSync(corpusPath(dir))) {
        const { sniff } = await inputFromFile(corpusPath(`${dir}/${file}`));
        expect(checkov.detect(sniff), `${dir}/${file}`).toBe(dir === FORMAT);
      }
    }
  });

  it.each([
    ['an empty file', ''],
    ['a wrong root type', '"checkov"'],
    ['an array of something else', '[1, 2]'],
    ['a truncated document', '{"check_type": "terraform", "results": {"failed_checks": [{"check_id": "A"'],
    ['failed checks that are not an array', '{"check_type": "x", "results": {"failed_checks": {"a": {}}}}'],
    ['a failed check that is not an object', '{"check_type": "x", "results": {"failed_checks": [1]}}'],
    ['a document without results', '{"check_type": "terraform"}'],
  ])('rejects %s with ParseError', async (_name, content) => {
    await expect(parseText(content)).rejects.toBeInstanceOf(ParseError);
  });
});
