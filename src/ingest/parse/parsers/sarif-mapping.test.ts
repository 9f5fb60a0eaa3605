import { describe, expect, it } from 'vitest';
import { parseText } from '../../../../test/support/parser-suite.ts';
import { buildSniff } from '../sniff.ts';
import type { NormalizedFinding } from './types.ts';
import { sarifParser } from './sarif.ts';

/** SARIF features the corpus does not exercise, on small hand-written logs. */

async function parseRun(run: Record<string, unknown>): Promise<NormalizedFinding[]> {
  const log = JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'T' } }, ...run }] });
  return parseText(sarifParser, log);
}

const at = (uri: string, uriBaseId?: string): Record<string, unknown> => ({
  physicalLocation: { artifactLocation: { uri, uriBaseId }, region: { startLine: 3 } },
});

describe('sarif detection', () => {
  const detect = (content: string): boolean => sarifParser.detect(buildSniff(Buffer.from(content)));

  it('accepts $schema or version 2.1.0 in either order', () => {
    expect(detect('{"runs":[],"version":"2.1.0"}')).toBe(true);
    expect(detect('{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","runs":[]}')).toBe(true);
  });

  it('accepts a runs array larger than the sniffed head whose first run has a tool driver', () => {
    const big = `{"runs":[{"tool":{"driver":{"name":"x"}},"results":[${'{"ruleId":"r"},'.repeat(30_000)}{}]}],"version":"2.1.0"}`;
    const head = big.slice(0, 256 * 1024);
    expect(detect(head)).toBe(true);
  });

  it('rejects look-alikes', () => {
    expect(detect('{"runs":[],"version":"3"}')).toBe(false);
    expect(detect('{"results":[],"version":"2.1.0"}')).toBe(false);
    expect(detect('{"data":{"version":"2.1.0"},"runs":5}')).toBe(false);
    expect(detect('[{"runs":[],"version":"2.1.0"}]')).toBe(false);
  });
});

describe('sarif mapping', () => {
  it('skips results whose kind is not fail', async () => {
    const results = ['pass', 'open', 'informational', 'notApplicable', 'review', 'fail', undefined].map(
      (kind) => ({
        kind,
        message: { text: String(kind) },
      }),
    );
    expect((await parseRun({ results })).map((f) => f.title)).toEqual(['fail', 'undefined']);
  });

  it('maps security-severity scores at the band edges and prefers them over level', async () => {
    const scores = [9, 8.9, 7, 4, 3.9, 0.1, 0];
    const rules = scores.map((score, i) => ({
      id: `R${i}`,
      properties: { 'security-severity': String(score) },
    }));
    const results = rules.map((rule) => ({ ruleId: rule.id, level: 'error', message: { text: 'm' } }));
    const findings = await parseRun({ tool: { driver: { name: 'T', rules } }, results });
    expect(findings.map((f) => f.severity)).toEqual([
      'critical',
      'high',
      'high',
      'medium',
      'low',
      'low',
      'info',
    ]);
    expect(findings.map((f) => f.severityScore)).toEqual(scores);
  });

  it('takes level from the result, then the rule default, then warning', async () => {
    const rules = [{ id: 'A', defaultConfiguration: { level: 'error' } }, { id: 'B' }];
    const results = [
      { ruleId: 'A', level: 'none', message: { text: 'm' } },
      { ruleId: 'A', message: { text: 'm' } },
      { ruleId: 'B', message: { text: 'm' } },
      { ruleId: 'B', level: 'note', message: { text: 'm' } },
    ];
    const findings = await parseRun({ tool: { driver: { name: 'T', rules } }, results });
    expect(findings.map((f) => f.severity)).toEqual(['info', 'high', 'medium', 'low']);
  });

  it('honours suppression status: accepted or absent only', async () => {
    const results = [undefined, 'accepted', 'underReview', 'rejected'].map((status) => ({
      message: { text: 'm' },
      suppressions: [{ kind: 'inSource', status }],
    }));
    const findings = await parseRun({ results });
    expect(findings.map((f) => f.initialStatus)).toEqual(['false_positive', 'false_positive', null, null]);
  });

  it('resolves originalUriBaseIds, artifact indexes and absolute URIs under the checkout', async () => {
    const findings = await parseRun({
      originalUriBaseIds: {
        SRCROOT: { uri: 'file:///home/ci/work/repo/' },
        TESTS: { uri: 'tests/', uriBaseId: 'SRCROOT' },
      },
      artifacts: [{ location: { uri: 'lib/a%20b.js', uriBaseId: 'SRCROOT' } }],
      results: [
        { message: { text: '1' }, locations: [at('unit/x.py', 'TESTS')] },
        { message: { text: '2' }, locations: [at('file:///home/ci/work/repo/src/y.py')] },
        { message: { text: '3' }, locations: [{ physicalLocation: { artifactLocation: { index: 0 } } }] },
        { message: { text: '4' }, locations: [at('.\\win\\z.cs')] },
        { message: { text: '5' }, locations: [at('https://example.test/app.js')] },
      ],
    });
    expect(findings.map((f) => f.filePath)).toEqual([
      'tests/unit/x.py',
      'src/y.py',
      'lib/a b.js',
      'win/z.cs',
      'https://example.test/app.js',
    ]);
  });

  it('renders message templates from globalMessageStrings with arguments', async () => {
    const findings = await parseRun({
      tool: { driver: { name: 'T', globalMessageStrings: { g: { text: 'Value {0} flows to {1}.' } } } },
      results: [{ message: { id: 'g', arguments: ['x', 'eval'] } }],
    });
    expect(findings[0]?.title).toBe('Value x flows to eval.');
  });

  it('finds rules in extensions and CWEs in taxonomies by index, properties and tags', async () => {
    const findings = await parseRun({
      tool: {
        driver: { name: 'T' },
        extensions: [{ name: 'pack', rules: [{ id: 'E1', shortDescription: { text: 'From extension' } }] }],
      },
      taxonomies: [{ name: 'CWE', taxa: [{ id: '89' }] }],
      results: [
        {
          rule: { id: 'E1', index: 0, toolComponent: { index: 0 } },
          message: {},
          taxa: [{ index: 0, toolComponent: { index: 0 } }],
          properties: { cwe: 'CWE-564', tags: ['external/cwe/cwe-943'] },
        },
      ],
    });
    expect(findings[0]).toMatchObject({ title: 'From extension', ruleId: 'E1', cweIds: [564, 943, 89] });
  });

  it('emits a finding without a file for a result without locations', async () => {
    const findings = await parseRun({ results: [{ ruleId: 'X', message: { text: 'm' } }] });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ filePath: null, line: null, title: 'm', kind: 'code' });
  });

  it('keeps tool fingerprints distinct for the locations of one result', async () => {
    const findings = await parseRun({
      results: [
        { message: { text: 'm' }, partialFingerprints: { h: '1' }, locations: [at('a.js'), at('b.js')] },
      ],
    });
    expect(findings.map((f) => f.toolFingerprint)).toEqual(['h:1|location:a.js', 'h:1|location:b.js']);
  });

  it('takes the category from automationDetails.id without its run part', async () => {
    const categoryOf = async (id: string): Promise<string | null | undefined> =>
      (await parseRun({ automationDetails: { id }, results: [{ message: { text: 'm' } }] }))[0]?.category;
    expect(await categoryOf('codeql/python/2024-05-01')).toBe('codeql/python');
    expect(await categoryOf('my-analysis')).toBe('my-analysis');
  });
});
