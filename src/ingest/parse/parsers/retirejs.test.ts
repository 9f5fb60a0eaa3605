import { describe, expect, it } from 'vitest';
import { parseFixture, readFixtureJson } from '../../../../test/support/format-fixtures.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { retirejs } from './retirejs.ts';

const REPORT = 'retirejs/retire.json';

interface RetireReport {
  data: { results: { vulnerabilities?: unknown[] }[] }[];
}

describe('retirejs parser', () => {
  detectionIsolationTests(retirejs, 'retirejs');
  foreignFileTests(retirejs, 'retirejs');

  it("yields retire.js's own vulnerability count", async () => {
    const { data } = readFixtureJson(REPORT) as RetireReport;
    const expected = data
      .flatMap((entry) => entry.results)
      .reduce((sum, library) => sum + (library.vulnerabilities?.length ?? 0), 0);
    expect(expected).toBeGreaterThan(10);
    const findings = await parseFixture(retirejs, REPORT);
    expect(findings).toHaveLength(expected);
    // Every finding is its own dependency identity: vulnerability id + package + file.
    const identities = new Set(findings.map((f) => JSON.stringify([f.ruleId, f.packageName, f.filePath])));
    expect(identities.size).toBe(expected);
  });

  it('maps a vulnerability as a dependency finding', async () => {
    const findings = await parseFixture(retirejs, REPORT);
    const finding = findings.find((f) => f.ruleId === 'CVE-2019-11358');
    expect(finding).toMatchObject({
      kind: 'dependency',
      title: 'CVE-2019-11358 in jquery 1.12.4',
      severity: 'medium',
      packageName: 'jquery',
      packageVersion: '1.12.4',
      fixedVersion: '3.4.0',
      cveIds: ['CVE-2019-11358'],
      cweIds: [1321, 79],
      remediation: 'Upgrade jquery to 3.4.0 or later',
      toolName: 'retire.js',
      toolVersion: '5.7.0',
    });
    expect(finding?.filePath).toMatch(/(^|\/)vendor\/jquery-1\.12\.4\.min\.js$/);
    // No CVE: retire's own id, the package and file still tell it apart.
    expect(findings.find((f) => f.ruleId === 'retire-73')).toMatchObject({ severity: 'low', cveIds: [] });
  });

  it('reads the legacy bare array and an empty run', async () => {
    const library = {
      component: 'angularjs',
      version: '1.2.0',
      vulnerabilities: [
        { severity: 'high', below: '1.5.0', identifiers: { summary: 'XSS', CVE: ['CVE-2020-7676'] } },
      ],
    };
    const findings = await parseText(
      retirejs,
      JSON.stringify([{ file: 'js/angular.js', results: [library] }]),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        ruleId: 'CVE-2020-7676',
        packageName: 'angularjs',
        severity: 'high',
        filePath: 'js/angular.js',
      }),
    ]);
    const empty = {
      version: '5.7.0',
      start: '2026-01-01T00:00:00Z',
      data: [],
      messages: [],
      errors: [],
      time: 0.1,
    };
    expect(await parseText(retirejs, JSON.stringify(empty))).toEqual([]);
  });

  hostileInputTests(retirejs, [
    ['empty file', ''],
    ['object without data', '{"version": "5.7.0", "start": "x", "time": 1}'],
    ['truncated', '{"version": "5.7.0", "data": [{"file": "a.js", "results": [{"component": "jquery"'],
    ['non-object result', '{"version": "5.7.0", "data": [{"file": "a.js", "results": ["jquery"]}]}'],
    ['hostile nesting', `{"data": [{"x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`],
  ]);
});
