import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { bandit } from './bandit.ts';

describe('bandit parser', () => {
  manifestCountTests(bandit, 'bandit');
  foreignFileTests(bandit, 'bandit');
  detectionIsolationTests(bandit, 'bandit');

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
    const [finding] = await parseText(bandit, JSON.stringify(doc));
    expect(finding).toMatchObject({ cweIds: [502], column: 1, snippet: 'pickle.loads(data)', line: 5 });
  });

  hostileInputTests(bandit, [
    ['empty file', ''],
    ['wrong root type', '[{"test_id": "B101"}]'],
    ['object without results', '{"errors": [], "metrics": {}}'],
    ['truncated', '{"errors": [], "results": [{"test_id": "B101", "filename": "a.py"'],
    ['non-object result', '{"results": [42]}'],
    ['hostile nesting', `{"results": [{"x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`],
  ]);
});
