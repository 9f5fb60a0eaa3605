import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
} from '../../../../test/support/parser-suite.ts';
import { checkov } from './checkov.ts';

/**
 * DefectDojo's test only asserts "more than 2" for this file, so the manifest has no number; the file
 * holds 3 failed checks and each is a finding.
 */
const UNSTATED: Record<string, number> = { 'checkov/checkov-report-many-vuln.json': 3 };

describe('checkov parser', () => {
  manifestCountTests(checkov, 'checkov', UNSTATED);
  foreignFileTests(checkov, 'checkov');
  detectionIsolationTests(checkov, 'checkov');

  it('maps failed checks across frameworks', async () => {
    const findings = await parseCorpusFile(checkov, 'checkov/checkov-report-multiple-check_type.json');
    // DefectDojo reports file_path "/aws/db-app.tf" (relative to the scanned directory); scanhub keeps
    // paths repository-relative, which Checkov gives as repo_file_path.
    expect(findings[0]).toMatchObject({
      kind: 'infrastructure',
      title: 'Ensure RDS database has IAM authentication enabled',
      ruleId: 'CKV_AWS_161',
      severity: 'medium',
      filePath: 'infra/terraform/aws/db-app.tf',
      line: 1,
      endLine: 41,
      toolFingerprint: 'CKV_AWS_161|infra/terraform/aws/db-app.tf|aws_db_instance.default',
      toolName: 'Checkov',
      toolVersion: '2.0.209',
    });
    expect(findings[0]?.snippet).toMatch(/^resource "aws_db_instance" "default" \{\n {2}name/);
    expect(findings[0]?.description).toContain('Framework: terraform');
    expect(findings.slice(11).map((f) => [f.ruleId, f.filePath, f.line])).toEqual([
      ['CKV_DOCKER_3', 'infra/terraform/aws/resources/Dockerfile', null],
      [expect.stringMatching(/^CKV_DOCKER_/), 'infra/terraform/aws/resources/Dockerfile', null],
    ]);
    expect(findings[11]?.description).toContain('Framework: dockerfile');
  });

  it('uses explicit severities', async () => {
    const findings = await parseCorpusFile(checkov, 'checkov/checkov-report-severity.json');
    expect(findings.map((f) => f.severity)).toEqual(['medium', 'medium', 'low', 'high']);
    expect(findings[0]).toMatchObject({
      ruleId: 'CKV_GCP_29',
      filePath: 'gcs.tf',
      references: ['https://docs.bridgecrew.io/docs/bc_gcp_gcs_2'],
    });
  });

  it('reads the single-framework v1 report', async () => {
    const [finding] = await parseCorpusFile(checkov, 'checkov/checkov-report-1-vuln.json');
    expect(finding).toMatchObject({
      ruleId: 'CKV_AZURE_42',
      title: 'Ensure the key vault is recoverable',
      filePath: 'file_path',
      line: 1,
      endLine: 16,
      snippet: null,
      toolVersion: '1.0.467',
    });
  });

  hostileInputTests(checkov, [
    ['an empty file', ''],
    ['a wrong root type', '"checkov"'],
    ['an array of something else', '[1, 2]'],
    ['a truncated document', '{"check_type": "terraform", "results": {"failed_checks": [{"check_id": "A"'],
    ['failed checks that are not an array', '{"check_type": "x", "results": {"failed_checks": {"a": {}}}}'],
    ['a failed check that is not an object', '{"check_type": "x", "results": {"failed_checks": [1]}}'],
    ['a document without results', '{"check_type": "terraform"}'],
  ]);
});
