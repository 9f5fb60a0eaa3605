import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
} from '../../../../test/support/parser-suite.ts';
import { kics } from './kics.ts';

describe('kics parser', () => {
  manifestCountTests(kics, 'kics');
  foreignFileTests(kics, 'kics');
  detectionIsolationTests(kics, 'kics');

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

  hostileInputTests(kics, [
    ['an empty file', ''],
    ['a wrong root type', '[{"queries": []}]'],
    ['a truncated document', '{"queries_total": 1, "queries": [{"query_name": "x", "files": ['],
    ['queries that are not an array', '{"queries_total": 1, "queries": {"a": {}}}'],
    ['a query that is not an object', '{"queries_total": 1, "queries": [1]}'],
    ['a file entry that is not an object', '{"queries_total": 1, "queries": [{"files": ["x"]}]}'],
    ['a document without queries', '{"queries_total": 0, "total_counter": 0}'],
  ]);
});
