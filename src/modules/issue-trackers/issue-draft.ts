import type { Selectable } from 'kysely';
import type { FindingsTable } from '../../db/schema.ts';
import { findingMarker, type IssueDraft } from '../../integrations/issue-trackers/types.ts';

type FindingForIssue = Pick<
  Selectable<FindingsTable>,
  | 'id'
  | 'title'
  | 'severity'
  | 'file_path'
  | 'line'
  | 'package_name'
  | 'package_version'
  | 'description'
  | 'remediation'
  | 'rule_id'
  | 'tool_name'
  | 'cve_ids'
>;

/**
 * Scanner text often holds `@name`s (`@types/node`, decorators, e-mail addresses); in a GitHub or
 * GitLab issue each would notify someone. A zero-width space after the `@` keeps the text readable.
 */
const quiet = (text: string): string => text.replace(/@(?=[A-Za-z0-9_])/g, '@\u200b');

function location(finding: FindingForIssue): string {
  if (finding.file_path) return finding.line ? `${finding.file_path}:${finding.line}` : finding.file_path;
  if (finding.package_name) return `${finding.package_name}@${finding.package_version ?? '?'}`;
  return 'not given';
}

/**
 * The issue filed for a finding: title, severity, location, description, remediation and the way
 * back to it. `labels` are the tracker's own; the marker label is added by the adapter.
 */
export function issueDraft(
  finding: FindingForIssue,
  labels: readonly string[],
  publicUrl?: string,
): IssueDraft {
  const lines = [
    `Severity: ${finding.severity}`,
    `Location: ${location(finding)}`,
    `Found by: ${finding.tool_name}${finding.rule_id ? ` (rule ${finding.rule_id})` : ''}`,
    ...(finding.cve_ids.length > 0 ? [`CVE: ${finding.cve_ids.join(', ')}`] : []),
    '',
    'Description:',
    (finding.description ?? 'No description given.').slice(0, 8000),
    '',
    'Remediation:',
    (finding.remediation ?? 'No remediation given.').slice(0, 4000),
    '',
    // With PUBLIC_URL the ticket links to the finding's page; without it, to the API path.
    publicUrl
      ? `scanhub finding ${finding.id}: ${publicUrl}/findings/${finding.id}`
      : `scanhub finding ${finding.id}: /api/findings/${finding.id}`,
  ];
  return {
    title: quiet(`[${finding.severity}] ${finding.title}`).slice(0, 250),
    body: quiet(lines.join('\n')),
    labels: [...labels],
    marker: findingMarker(finding.id),
  };
}
