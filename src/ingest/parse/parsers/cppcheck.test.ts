import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatFixturePath, parseFixture } from '../../../../test/support/format-fixtures.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { cppcheck } from './cppcheck.ts';

const REPORT = 'cppcheck/cppcheck.xml';

describe('cppcheck parser', () => {
  detectionIsolationTests(cppcheck, 'cppcheck');
  foreignFileTests(cppcheck, 'cppcheck');

  it("yields Cppcheck's own error count (one per <error>)", async () => {
    const errors = readFileSync(formatFixturePath(REPORT), 'utf8').match(/<error\s/g) ?? [];
    expect(errors.length).toBeGreaterThan(10);
    expect(await parseFixture(cppcheck, REPORT)).toHaveLength(errors.length);
  });

  it('maps an error with its CWE, primary location and tool version', async () => {
    const findings = await parseFixture(cppcheck, REPORT);
    expect(findings.find((finding) => finding.ruleId === 'doubleFree')).toMatchObject({
      kind: 'code',
      title: "Memory pointed to by 'memory' is freed twice.",
      severity: 'high',
      filePath: 'pointers.c',
      line: 29,
      column: 5,
      cweIds: [415],
      toolName: 'Cppcheck',
      toolVersion: '2.10',
    });
    expect(findings.find((finding) => finding.ruleId === 'unusedFunction')).toMatchObject({
      severity: 'low',
      cweIds: [561],
    });
  });

  it('keeps errors without a location and skips the checkers summary', async () => {
    const findings = await parseText(
      cppcheck,
      `<?xml version="1.0"?><results version="2"><cppcheck version="2.14"/><errors>
        <error id="missingInclude" severity="information" msg="Include file not found."/>
        <error id="checkersReport" severity="information" msg="Active checkers: 106/592"/>
      </errors></results>`,
    );
    expect(findings).toEqual([
      expect.objectContaining({ ruleId: 'missingInclude', severity: 'info', filePath: null, line: null }),
    ]);
    expect(
      await parseText(cppcheck, '<results version="2"><cppcheck version="2.10"/><errors/></results>'),
    ).toEqual([]);
  });

  hostileInputTests(cppcheck, [
    ['empty file', ''],
    ['XML version 1', '<results><error file="a.c" line="1" id="x" severity="error" msg="m"/></results>'],
    ['another root', '<issues burpVersion="1"/>'],
    ['truncated', '<results version="2"><cppcheck version="2.10"/><errors><error id="x"'],
    ['entity declaration', '<!DOCTYPE r [<!ENTITY x "y">]><results version="2"/>'],
  ]);
});
