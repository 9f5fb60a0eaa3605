import type { StagingRow } from '../../src/ingest/normalize-row.ts';

/**
 * A whole staging row (every column, as the COPY writes it) for tests that stage rows by hand:
 * a plain medium finding with nothing optional, changed by `fields`.
 */
export function stagingRow(fields: Partial<StagingRow> & Pick<StagingRow, 'upload_key' | 'seq'>): StagingRow {
  return {
    fingerprint: 'f'.repeat(64),
    base: 'f'.repeat(64),
    twin_ordinal: false,
    maybe_repeat: true,
    category: '',
    kind: 'sast',
    concern: 'security',
    title: 'staged',
    severity: 'medium',
    severity_rank: 3,
    severity_score: null,
    initial_status: 'open',
    description: null,
    remediation: null,
    rule_id: null,
    file_path: null,
    line: null,
    column: null,
    end_line: null,
    snippet: null,
    package_name: null,
    package_version: null,
    fixed_version: null,
    cve_ids: [],
    cwe_ids: [],
    cvss_score: null,
    cvss_vector: null,
    references: [],
    tool_name: 'tool',
    tool_version: null,
    tool_fingerprint: null,
    report_epss: null,
    report_epss_percentile: null,
    risk_severity: 5,
    risk_exploitation: 0.1,
    ...fields,
  };
}
