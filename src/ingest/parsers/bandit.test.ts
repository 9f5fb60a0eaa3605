import { readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { corpusPath, parseCorpusFile } from '../../../test/support/parse-corpus.ts';
import { buildSniff } from '../sniff.ts';
import { inputFromFile } from '../upload-input.ts';
import { bandit } from './bandit.ts';
import { ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput } from './types.ts';

const rows = readFileSync(corpusPath('MANIFEST.tsv'), 'utf8')
  .split('\n')
  .map((line) => line.split('\t'))
  .filter((cells) => cells[0] === bandit.name);

function inputOf(content: string): ParserInput {
  const buffer = Buffer.from(content);
  return { open: () => Readable.from([buffer]), sniff: buildSniff(buffer) };
}

async function collect(input: ParserInput): Promise<NormalizedFinding[]> {
  const findings: NormalizedFinding[] = [];
  for await (const finding of bandit.parse(input)) findings.push(finding);
  return findings;
}

describe('bandit parser', () => {
  it.each(rows.map((cells) => [cells[1] ?? '', Number(cells[5])] as const))(
    '%s yields %i findings',
    async (file, expected) => {
      expect(await parseCorpusFile(bandit, file)).toHaveLength(expected);
    },
  );

  it('reads one_vuln.json', async () => {
    const [finding] = await parseCorpusFile(bandit, 'bandit/one_vuln.json');
    expect(finding).toMatchObject({
      kind: 'code',
      title:
        'Use of assert detected. The enclosed code will be removed when compiling to optimised byte code.',
      severity: 'low',
      ruleId: 'B101',
      filePath: 'one/one.py',
      line: 2,
      snippet: 'assert False',
      references: ['https://bandit.readthedocs.io/en/latest/plugins/b101_assert_used.html'],
      toolName: 'Bandit',
    });
  });

  it('reads dd.json [0] and normalizes Windows paths in many_vulns.json', async () => {
    const [first] = await parseCorpusFile(bandit, 'bandit/dd.json');
    expect(first).toMatchObject({
      title: 'Use of insecure MD2, MD4, MD5, or SHA1 hash function.',
      severity: 'medium',
      ruleId: 'B303',
      filePath: 'dojo/tools/acunetix/parser.py',
    });
    const many = await parseCorpusFile(bandit, 'bandit/many_vulns.json');
    expect(many[0]).toMatchObject({ ruleId: 'B110', severity: 'low' });
    // DefectDojo keeps `dojo/benchmark\views.py`; scanhub uses '/' so fingerprints do not depend on the OS.
    expect(many.some((f) => f.filePath === 'dojo/benchmark/views.py')).toBe(true);
    expect(many.every((f) => !f.filePath?.includes('\\'))).toBe(true);
  });

  it('reads issue_cwe from newer Bandit output', async () => {
    const doc = {
      errors: [],
      generated_at: 'x',
      metrics: {},
      results: [
        {
          code: '4 import pickle\n5 pickle.loads(data)\n',
          col_offset: 0,
          filename: 'app.py',
          issue_confidence: 'HIGH',
          issue_cwe: { id: 502, link: 'https://cwe.mitre.org/data/definitions/502.html' },
          issue_severity: 'MEDIUM',
          issue_text: 'Pickle is unsafe.',
          line_number: 5,
          line_range: [5],
          test_id: 'B301',
          test_name: 'blacklist',
        },
      ],
    };
    const [finding] = await collect(inputOf(JSON.stringify(doc)));
    expect(finding).toMatchObject({ cweIds: [502], column: 1, snippet: 'pickle.loads(data)', line: 5 });
  });

  it('detects only Bandit corpus files', async () => {
    for (const dir of readdirSync(corpusPath('.'), { withFileTypes: true }).filter((d) => d.isDirectory())) {
      for (const file of readdirSync(corpusPath(dir.name))) {
        const { sniff } = await inputFromFile(corpusPath(`${dir.name}/${file}`));
        expect(bandit.detect(sniff), `${dir.name}/${file}`).toBe(dir.name === bandit.name);
      }
    }
  });

  it.each([
    ['empty file', ''],
    ['wrong root type', '[{"test_id": "B101"}]'],
    ['object without results', '{"errors": [], "metrics": {}}'],
    ['truncated', '{"errors": [], "results": [{"test_id": "B101", "filename": "a.py"'],
    ['non-object result', '{"results": [42]}'],
    ['hostile nesting', `{"results": [{"x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`],
  ])('rejects %s with ParseError', async (_name, content) => {
    await expect(collect(inputOf(content))).rejects.toBeInstanceOf(ParseError);
  });
});
