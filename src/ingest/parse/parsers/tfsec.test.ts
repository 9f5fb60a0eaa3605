import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
} from '../../../../test/support/parser-suite.ts';
import { tfsec } from './tfsec.ts';

describe('tfsec parser', () => {
  manifestCountTests(tfsec, 'tfsec');
  foreignFileTests(tfsec, 'tfsec');
  detectionIsolationTests(tfsec, 'tfsec');

  it('maps the legacy finding (one_finding_legacy.json)', async () => {
    const [finding] = await parseCorpusFile(tfsec, 'tfsec/one_finding_legacy.json');
    expect(finding).toMatchObject({
      kind: 'infrastructure',
      title: 'Potentially sensitive data stored in block attribute.',
      severity: 'medium',
      ruleId: 'GEN003',
      filePath: 'tfsec-test/identity.tf',
      line: 226,
      endLine: 226,
      remediation: "Don't include sensitive data in blocks",
      references: ['https://tfsec.dev/docs/general/GEN003/'],
      toolName: 'tfsec',
    });
  });

  it('skips passed legacy checks and merges duplicate locations in current output', async () => {
    const legacy = await parseCorpusFile(tfsec, 'tfsec/many_findings_legacy.json');
    expect(legacy.map((f) => f.ruleId)).not.toContain('GCP008');
    const current = await parseCorpusFile(tfsec, 'tfsec/many_findings_current.json');
    expect(current[0]).toMatchObject({
      ruleId: 'aws-vpc-no-excessive-port-access',
      severity: 'critical',
      filePath: '/tmp/aws-eks/modules/vpc-subnets/resources.tf',
      line: 155,
    });
    // 19 results at 13 distinct (rule, file, lines): the egress rule at main.tf:72 is reported for 6 modules.
    const egress = current.filter((f) => f.ruleId === 'aws-vpc-no-public-egress-sgr');
    expect(egress).toHaveLength(1);
    expect(egress[0]?.description).toContain(
      'module.SG_NAT:aws_security_group_rule.egress_with_cidr_blocks[0]',
    );
    expect(egress[0]?.references).toContain('https://tfsec.dev/docs/aws/vpc/no-public-egress-sgr#aws/vpc');
    expect(new Set(current.map((f) => f.severity))).toEqual(new Set(['critical', 'high', 'medium', 'low']));
  });

  hostileInputTests(tfsec, [
    ['empty file', ''],
    ['wrong root type', '[{"rule_id": "GEN003"}]'],
    ['object without results', '{"warnings": []}'],
    ['truncated', '{"results": [{"rule_id": "GEN003", "location": {'],
    ['non-object result', '{"results": ["GEN003"]}'],
    ['hostile nesting', `{"results": [{"x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`],
  ]);
});
