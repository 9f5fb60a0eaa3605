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
 * A Markdown fenced block holding `text` as it is: the fence is longer than any run of backticks in
 * it, so nothing inside can close it, and GitHub and GitLab render none of it (no images, HTML,
 * links, mentions or cross-references).
 */
export function markdownBlock(text: string): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}

/**
 * A Jira wiki `{noformat}` block holding `text`: a `{noformat}` inside it would end the block, so
 * a zero-width space breaks each one (Jira shows the text, renders nothing of it).
 */
export function jiraWikiBlock(text: string): string {
  return `{noformat}\n${text.replace(/\{noformat/gi, (found) => `{\u200b${found.slice(1)}`)}\n{noformat}`;
}

/**
 * The issue filed for a finding: title, severity, location, description, remediation and the way
 * back to it. `labels` are the tracker's own; the marker label is added by the adapter. Everything
 * a scanner wrote goes into one verbatim block of the tracker's markup (Markdown for GitHub and
 * GitLab, wiki markup for Jira Data Center; Jira Cloud's documents take text as text): scanner
 * text carries tracking pixels, `<details>`, hidden comments, cross-repository references and
 * `@`mentions, and only scanhub's own link, outside the block, is live.
 */
export function issueDraft(
  finding: FindingForIssue,
  labels: readonly string[],
  publicUrl?: string,
): IssueDraft {
  const scanner = [
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
  ].join('\n');
  // With PUBLIC_URL the ticket links to the finding's page; without it, to the API path.
  const way = publicUrl
    ? `scanhub finding ${finding.id}: ${publicUrl}/findings/${finding.id}`
    : `scanhub finding ${finding.id}: /api/findings/${finding.id}`;
  return {
    title: quiet(`[${finding.severity}] ${finding.title}`).slice(0, 250),
    body: `${markdownBlock(scanner)}\n\n${way}`,
    text: `${scanner}\n\n${way}`,
    wiki: `${jiraWikiBlock(scanner)}\n\n${way}`,
    labels: [...labels],
    marker: findingMarker(finding.id),
  };
}
