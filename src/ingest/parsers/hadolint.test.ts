import { readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { corpusPath, parseCorpusFile } from '../../../test/support/parse-corpus.ts';
import { buildSniff } from '../sniff.ts';
import { inputFromFile } from '../upload-input.ts';
import { hadolint } from './hadolint.ts';
import { ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput } from './types.ts';

const rows = readFileSync(corpusPath('MANIFEST.tsv'), 'utf8')
  .split('\n')
  .map((line) => line.split('\t'))
  .filter((cells) => cells[0] === hadolint.name);

function inputOf(content: string): ParserInput {
  const buffer = Buffer.from(content);
  return { open: () => Readable.from([buffer]), sniff: buildSniff(buffer) };
}

async function collect(input: ParserInput): Promise<NormalizedFinding[]> {
  const findings: NormalizedFinding[] = [];
  for await (const finding of hadolint.parse(input)) findings.push(finding);
  return findings;
}

describe('hadolint parser', () => {
  it.each(rows.map((cells) => [cells[1] ?? '', Number(cells[5])] as const))(
    '%s yields %i findings',
    async (file, expected) => {
      expect(await parseCorpusFile(hadolint, file)).toHaveLength(expected);
    },
  );

  it('maps one_dockerfile.json', async () => {
    const findings = await parseCorpusFile(hadolint, 'hadolint/one_dockerfile.json');
    expect(findings[0]).toMatchObject({
      kind: 'infrastructure',
      title:
        'Pin versions in apt get install. Instead of `apt-get install <package>` use `apt-get install <package>=<version>`',
      severity: 'medium',
      ruleId: 'DL3008',
      // DefectDojo keeps `django-DefectDojo\Dockerfile.django`; scanhub uses '/' so fingerprints do not depend on the OS.
      filePath: 'django-DefectDojo/Dockerfile.django',
      line: 9,
      column: 1,
      references: ['https://github.com/hadolint/hadolint/wiki/DL3008'],
      toolName: 'Hadolint',
    });
    expect(findings[1]).toMatchObject({ ruleId: 'DL3015', severity: 'low', line: 9 });
  });

  it('maps every hadolint level and drops exact repeats', async () => {
    const item = { line: 3, code: 'SC2086', message: 'Double quote.', column: 5, file: 'Dockerfile' };
    const findings = await collect(
      inputOf(
        JSON.stringify([
          { ...item, level: 'error' },
          { ...item, line: 4, level: 'warning' },
          { ...item, line: 5, level: 'info' },
          { ...item, line: 6, level: 'style' },
          { ...item, line: 6, level: 'style' },
        ]),
      ),
    );
    expect(findings.map((f) => f.severity)).toEqual(['high', 'medium', 'low', 'info']);
    expect(findings[0]?.references).toEqual(['https://www.shellcheck.net/wiki/SC2086']);
  });

  it('detects only Hadolint corpus files', async () => {
    for (const dir of readdirSync(corpusPath('.'), { withFileTypes: true }).filter((d) => d.isDirectory())) {
      for (const file of readdirSync(corpusPath(dir.name))) {
        const { sniff } = await inputFromFile(corpusPath(`${dir.name}/${file}`));
        expect(hadolint.detect(sniff), `${dir.name}/${file}`).toBe(dir.name === hadolint.name);
      }
    }
  });

  it.each([
    ['empty file', ''],
    ['wrong root type', '{"code": "DL3008", "level": "warning"}'],
    ['truncated', '[{"line": 9, "code": "DL3008", "level": "warning"}, {"line": 1'],
    ['non-object item', '["DL3008"]'],
    ['hostile nesting', `[{"x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]`],
  ])('rejects %s with ParseError', async (_name, content) => {
    await expect(collect(inputOf(content))).rejects.toBeInstanceOf(ParseError);
  });
});
