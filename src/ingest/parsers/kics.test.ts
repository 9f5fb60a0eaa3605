import { readdirSync, readFileSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { corpusPath, parseCorpusFile } from '../../../test/support/parse-corpus.ts';
import { buildSniff } from '../sniff.ts';
import { inputFromFile } from '../upload-input.ts';
import { kics } from './kics.ts';
import { ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput } from './types.ts';

const FORMAT = 'kics';
const rows = readFileSync(corpusPath('MANIFEST.tsv'), 'utf8')
  .split('\n')
  .slice(1)
  .map((line) => line.split('\t'))
  .filter((cells) => cells[0] === FORMAT)
  .map((cells) => ({ file: cells[1] ?? '', expected: Number(cells[5]) }));

const inputOf = (content: string): ParserInput => {
  const bytes = Buffer.from(content);
  return { open: () => Readable.from([bytes]), sniff: buildSniff(bytes) };
};
const parseText = async (content: string): Promise<NormalizedFinding[]> => {
  const findings: NormalizedFinding[] = [];
  for await (const finding of kics.parse(inputOf(content))) findings.push(finding);
  return findings;
};

describe('kics parser', () => {
  it('has corpus rows in the manifest', () => {
    expect(rows.length).toBeGreaterThan(0);
  });

  it.each(rows)('finds the expected number of findings in $file', async ({ file, expected }) => {
    expect(await parseCorpusFile(kics, file)).toHaveLength(expected);
  });

  it("fails on every other format's corpus file with ParseError or not at all", async () => {
    const root = corpusPath('.');
    for (const dir of readdirSync(root).filter((name) => statSync(corpusPath(name)).isDirectory())) {
      if (dir === FORMAT) continue;
      for (const file of readdirSync(corpusPath(dir))) {
        const outcome = await parseCorpusFile(kics, `${dir}/${file}`).catch((error: unknown) => error);
        if (!Array.isArray(outcome)) expect(outcome, `${dir}/${file}`).toBeInstanceOf(ParseError);
      }
    }
  });

  it('detects every KICS corpus file and no file of another format', async () => {
    const root = corpusPath('.');
    for (const dir of readdirSync(root).filter((name) => statSync(corpusPath(name)).isDirectory())) {
      for (const file of readdirSync(corpusPath(dir))) {
        const { sniff } = await inputFromFile(corpusPath(`${dir}/${file}`));
        expect(kics.detect(sniff), `${dir}/${file}`).toBe(dir === FORMAT);
      }
    }
  });

  it('maps each file entry of a query', async () => {
    const findings = await parseCorpusFile(kics, 'kics/many_findings.json');
    expect(findings[0]).toMatchObject({
      kind: 'infrastructure',
      title: 'Secret Management: Passwords And Secrets In Infrastructure Code',
      severity: 'high',
      ruleId: 'f996f3cb-00fc-480c-8973-8ab04d44a8cc',
      filePath: 'test/charts/example/terraform/main.tf',
      line: 25,
      remediation: 'Hardcoded secret key should not appear in source',
      references: ['https://kics.io/'],
      toolName: 'KICS',
    });
    expect(findings[0]?.toolFingerprint).toMatch(/^70d28c075a7cda7f/);
    expect(findings[0]?.description).toContain('Search key: module.aws_reverse_proxy.basic_auth_password');
    expect(findings.map((f) => f.severity).filter((s) => s === 'low')).toHaveLength(8);
  });

  it('keeps apart the keys one query flags in the same block', async () => {
    const findings = await parseCorpusFile(kics, 'kics/many_findings.json');
    const wildcards = findings.filter((f) => f.title.endsWith('RBAC Wildcard In Rule'));
    expect(wildcards).toHaveLength(4);
    expect(new Set(wildcards.map((f) => f.toolFingerprint)).size).toBe(4);
    expect(wildcards.every((f) => f.toolFingerprint?.startsWith('493c98bdbb'))).toBe(true);
  });

  it.each([
    ['an empty file', ''],
    ['a wrong root type', '[{"queries": []}]'],
    ['a truncated document', '{"queries_total": 1, "queries": [{"query_name": "x", "files": ['],
    ['queries that are not an array', '{"queries_total": 1, "queries": {"a": {}}}'],
    ['a query that is not an object', '{"queries_total": 1, "queries": [1]}'],
    ['a file entry that is not an object', '{"queries_total": 1, "queries": [{"files": ["x"]}]}'],
    ['a document without queries', '{"queries_total": 0, "total_counter": 0}'],
  ])('rejects %s with ParseError', async (_name, content) => {
    await expect(parseText(content)).rejects.toBeInstanceOf(ParseError);
  });
});
