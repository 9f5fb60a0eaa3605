import { describe, expect, it } from 'vitest';
import { parseFixture, readFixtureJson } from '../../../../test/support/format-fixtures.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { shellcheck } from './shellcheck.ts';

const JSON1 = 'shellcheck/shellcheck.json1.json';
const LEGACY = 'shellcheck/shellcheck.json';

describe('shellcheck parser', () => {
  detectionIsolationTests(shellcheck, 'shellcheck');
  foreignFileTests(shellcheck, 'shellcheck');

  it("yields ShellCheck's own comment count from -f json1 and -f json alike", async () => {
    const { comments } = readFixtureJson(JSON1) as { comments: unknown[] };
    expect(comments.length).toBeGreaterThan(10);
    const json1 = await parseFixture(shellcheck, JSON1);
    expect(json1).toHaveLength(comments.length);
    expect(await parseFixture(shellcheck, LEGACY)).toEqual(json1);
  });

  it('maps a comment with its SC code, place and level', async () => {
    const findings = await parseFixture(shellcheck, JSON1);
    expect(findings[0]).toMatchObject({
      kind: 'code',
      title: 'Double quote to prevent globbing and word splitting.',
      severity: 'info',
      ruleId: 'SC2086',
      filePath: 'deploy.sh',
      line: 5,
      column: 12,
      endLine: 5,
      references: ['https://www.shellcheck.net/wiki/SC2086'],
      toolName: 'ShellCheck',
    });
    expect(findings.find((finding) => finding.ruleId === 'SC2164')?.severity).toBe('low');
  });

  it('reads a clean run and every level', async () => {
    expect(await parseText(shellcheck, '{"comments":[]}')).toEqual([]);
    const comment = { file: 'a.sh', line: 1, endLine: 1, column: 1, endColumn: 2, code: 2086, message: 'm' };
    const findings = await parseText(
      shellcheck,
      JSON.stringify(['error', 'warning', 'info', 'style'].map((level) => ({ ...comment, level }))),
    );
    expect(findings.map((finding) => finding.severity)).toEqual(['medium', 'low', 'info', 'info']);
  });

  hostileInputTests(shellcheck, [
    ['empty file', ''],
    ['object without comments', '{"issues": []}'],
    ['truncated', '{"comments": [{"file": "a.sh", "code": 2086'],
    ['non-object comment', '{"comments": [2086]}'],
    ['hostile nesting', `{"comments": [{"x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`],
  ]);
});
