import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { hadolint } from './hadolint.ts';

describe('hadolint parser', () => {
  manifestCountTests(hadolint, 'hadolint');
  foreignFileTests(hadolint, 'hadolint');
  detectionIsolationTests(hadolint, 'hadolint');

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
    const findings = await parseText(
      hadolint,
      JSON.stringify([
        { ...item, level: 'error' },
        { ...item, line: 4, level: 'warning' },
        { ...item, line: 5, level: 'info' },
        { ...item, line: 6, level: 'style' },
        { ...item, line: 6, level: 'style' },
      ]),
    );
    expect(findings.map((f) => f.severity)).toEqual(['high', 'medium', 'low', 'info']);
    expect(findings[0]?.references).toEqual(['https://www.shellcheck.net/wiki/SC2086']);
  });

  hostileInputTests(hadolint, [
    ['empty file', ''],
    ['wrong root type', '{"code": "DL3008", "level": "warning"}'],
    ['truncated', '[{"line": 9, "code": "DL3008", "level": "warning"}, {"line": 1'],
    ['non-object item', '["DL3008"]'],
    ['hostile nesting', `[{"x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]`],
  ]);
});
