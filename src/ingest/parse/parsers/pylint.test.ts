import { describe, expect, it } from 'vitest';
import { parseFixture, readFixtureJson } from '../../../../test/support/format-fixtures.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { pylint } from './pylint.ts';

const REPORT = 'pylint/pylint.json';

describe('pylint parser', () => {
  detectionIsolationTests(pylint, 'pylint');
  foreignFileTests(pylint, 'pylint');

  it("yields pylint's own message count", async () => {
    const messages = readFixtureJson(REPORT) as unknown[];
    expect(messages.length).toBeGreaterThan(20);
    expect(await parseFixture(pylint, REPORT)).toHaveLength(messages.length);
  });

  it('maps the message types onto the linter scale, with rule, place and docs link', async () => {
    const findings = await parseFixture(pylint, REPORT);
    expect(findings.find((finding) => finding.ruleId === 'eval-used')).toMatchObject({
      kind: 'code',
      title: 'Use of eval',
      severity: 'low',
      description: 'W0123 (eval-used) in inventory.evaluate',
      filePath: 'inventory.py',
      line: 28,
      column: 12,
      references: ['https://pylint.readthedocs.io/en/latest/user_guide/messages/warning/eval-used.html'],
      toolName: 'Pylint',
    });
    expect(findings.find((finding) => finding.ruleId === 'no-value-for-parameter')?.severity).toBe('medium');
    expect(findings.find((finding) => finding.ruleId === 'missing-module-docstring')?.severity).toBe('info');
  });

  // pylint 2.16 (Debian 12) has no json2; this is the shape pylint ≥ 3.0 documents for it.
  it('reads the json2 report', async () => {
    const findings = await parseText(
      pylint,
      JSON.stringify({
        messages: [
          {
            type: 'error',
            symbol: 'undefined-variable',
            message: "Undefined variable 'x'",
            messageId: 'E0602',
            confidence: 'UNDEFINED',
            module: 'app',
            obj: 'main',
            line: 3,
            column: 4,
            endLine: 3,
            endColumn: 5,
            path: 'src/app.py',
            absolutePath: '/ci/src/app.py',
          },
        ],
        statistics: { messageTypeCount: { error: 1 }, modulesLinted: 1, score: 0 },
      }),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        ruleId: 'undefined-variable',
        severity: 'medium',
        filePath: 'src/app.py',
        column: 5,
      }),
    ]);
  });

  hostileInputTests(pylint, [
    ['empty file', ''],
    ['json2 without messages', '{"statistics": {"messageTypeCount": {}}}'],
    ['truncated', '[{"type": "error", "symbol": "x", "message-id": "E0602"'],
    ['non-object message', '["E0602"]'],
    ['hostile nesting', `[{"x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]`],
  ]);
});
