import { describe, expect, it } from 'vitest';
import { parseFixture, TOOL_ISSUE_COUNTS } from '../../../../test/support/format-fixtures.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { eslint } from './eslint.ts';

const REPORT = 'eslint/eslint.json';

describe('eslint parser', () => {
  detectionIsolationTests(eslint, 'eslint');
  foreignFileTests(eslint, 'eslint');

  it.each([REPORT, 'eslint/eslint-with-metadata.json'])(
    "yields ESLint's own problem count (errorCount + warningCount of every file) from %s",
    async (report) => {
      const expected = TOOL_ISSUE_COUNTS['eslint']?.(report) ?? -1;
      expect(expected).toBeGreaterThan(10);
      expect(await parseFixture(eslint, report)).toHaveLength(expected);
    },
  );

  it('maps a rule error with its source line, and a warning', async () => {
    const findings = await parseFixture(eslint, REPORT);
    const evalCall = findings.find((finding) => finding.ruleId === 'no-eval');
    expect(evalCall).toMatchObject({
      kind: 'code',
      title: 'eval can be harmful.',
      severity: 'medium',
      line: 7,
      column: 16,
      endLine: 7,
      snippet: "let config = eval('(' + text + ')');",
      references: ['https://eslint.org/docs/latest/rules/no-eval'],
      toolName: 'ESLint',
      toolFingerprint: null,
    });
    expect(evalCall?.filePath).toMatch(/(^|\/)app\.js$/);
    expect(findings.find((finding) => finding.ruleId === 'no-var')?.severity).toBe('low');
  });

  it('reads json-with-metadata: the same findings, paths relative to its cwd, rule docs', async () => {
    const plain = await parseFixture(eslint, REPORT);
    const withMetadata = await parseFixture(eslint, 'eslint/eslint-with-metadata.json');
    expect(withMetadata.map((finding) => [finding.ruleId, finding.line])).toEqual(
      plain.map((finding) => [finding.ruleId, finding.line]),
    );
    expect(withMetadata.map((finding) => finding.filePath)).toEqual(
      plain.map((finding) => finding.filePath?.replace(/^.*\/eslint\/src\//, '')),
    );
    expect(withMetadata.find((finding) => finding.ruleId === 'no-eval')).toMatchObject({
      filePath: 'app.js',
      description: 'Disallow the use of `eval()`',
      references: ['https://eslint.org/docs/latest/rules/no-eval'],
    });
  });

  it('keeps a parse error (fatal, no rule) as a finding', async () => {
    const fatal = (await parseFixture(eslint, REPORT)).filter((finding) => finding.ruleId === null);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toMatchObject({ severity: 'medium', line: 2 });
    expect(fatal[0]?.title).toMatch(/^Parsing error/);
    expect(fatal[0]?.filePath).toMatch(/broken\.js$/);
  });

  it('skips suppressed messages and a clean file', async () => {
    const findings = await parseText(
      eslint,
      JSON.stringify([
        {
          filePath: 'C:\\repo\\ok.js',
          messages: [],
          suppressedMessages: [{ ruleId: 'no-eval', severity: 2 }],
        },
        {
          filePath: 'C:\\repo\\a.js',
          messages: [{ ruleId: 'semi', severity: 1, message: 'Missing semicolon.' }],
        },
      ]),
    );
    expect(findings.map((finding) => [finding.filePath, finding.ruleId])).toEqual([['C:/repo/a.js', 'semi']]);
  });

  hostileInputTests(eslint, [
    ['empty file', ''],
    ['wrong root type', '"a.js"'],
    ['object without results', '{"metadata": {"cwd": "/ci"}}'],
    ['truncated', '[{"filePath": "a.js", "messages": [{"ruleId": "semi"'],
    ['result without messages', '[{"filePath": "a.js"}]'],
    ['non-object message', '[{"filePath": "a.js", "messages": ["semi"]}]'],
    [
      'hostile nesting',
      `[{"filePath": "a.js", "messages": [], "x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]`,
    ],
  ]);
});
