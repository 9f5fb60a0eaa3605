import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { gosec } from './gosec.ts';

describe('gosec parser', () => {
  manifestCountTests(gosec, 'gosec');
  foreignFileTests(gosec, 'gosec');
  detectionIsolationTests(gosec, 'gosec');

  it('maps the spot-checked issues of many_vulns.json', async () => {
    const findings = await parseCorpusFile(gosec, 'gosec/many_vulns.json');
    expect(findings[0]).toMatchObject({
      kind: 'code',
      title: 'Errors unhandled.',
      severity: 'low',
      ruleId: 'G104',
      filePath: '/vagrant/go/src/govwa/app.go',
      line: 79,
      endLine: 79,
      snippet: 's.ListenAndServe()',
      cweIds: [252],
      references: ['https://cwe.mitre.org/data/definitions/252.html'],
      toolName: 'gosec',
    });
    expect(findings[2]?.cweIds).toEqual([]);
    // A line range "36-39" becomes line + endLine.
    expect(findings[22]).toMatchObject({
      ruleId: 'G201',
      severity: 'medium',
      line: 36,
      endLine: 39,
      cweIds: [89],
    });
  });

  it('reads newer gosec output (numbered code, column, suppressions, version)', async () => {
    const doc = {
      'Golang errors': {},
      Issues: [
        {
          severity: 'HIGH',
          confidence: 'MEDIUM',
          cwe: { id: '22', url: 'https://cwe.mitre.org/data/definitions/22.html' },
          rule_id: 'G304',
          details: 'Potential file inclusion via variable',
          file: 'main.go',
          code: '12: \tpath := r.URL.Query().Get("p")\n13: \tdata, _ := os.ReadFile(path)\n',
          line: '13',
          column: '14',
          nosec: false,
          suppressions: [{ kind: 'inSource', justification: 'checked' }],
        },
      ],
      Stats: { files: 1, lines: 20, nosec: 0, found: 1 },
      GosecVersion: '2.18.2',
    };
    const [finding] = await parseText(gosec, JSON.stringify(doc));
    expect(finding).toMatchObject({
      severity: 'high',
      cweIds: [22],
      line: 13,
      column: 14,
      snippet: 'data, _ := os.ReadFile(path)',
      initialStatus: 'false_positive',
      toolVersion: '2.18.2',
    });
  });

  hostileInputTests(gosec, [
    ['empty file', ''],
    ['wrong root type', '[{"rule_id": "G104"}]'],
    ['object without Issues', '{"Stats": {}}'],
    ['truncated', '{"Issues": [{"rule_id": "G104", "file": "a.go"'],
    ['non-object issue', '{"Issues": ["G104"], "Stats": {}}'],
    ['hostile nesting', `{"Issues": [{"x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`],
  ]);
});
