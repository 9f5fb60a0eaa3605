import {
  gitlabReportType,
  type GitlabScanner,
  identifiersOf,
  gitlabSharedFields,
  gitlabToolName,
  severityOf,
  streamGitlabVulnerabilities,
} from './gitlab-report.ts';
import { childRecord, type JsonRecord, nonBlank, positiveInt } from './json-value.ts';
import { emptyFinding } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Sniff } from './types.ts';

/** GitLab SAST report (`gl-sast-report.json`); the schema helpers are in gitlab-report.ts. */

function toFinding(vuln: JsonRecord, scanner: GitlabScanner): NormalizedFinding {
  const location = childRecord(vuln, 'location');
  const ids = identifiersOf(vuln);
  const fingerprint = nonBlank(vuln['cve']) ?? nonBlank(vuln['id']);
  return {
    ...emptyFinding({
      kind: 'code',
      title:
        nonBlank(vuln['name']) ??
        nonBlank(vuln['message']) ??
        ids.ruleId ??
        fingerprint ??
        'GitLab SAST finding',
      severity: severityOf(vuln['severity']),
      toolName: gitlabToolName(vuln, scanner, 'GitLab SAST'),
    }),
    description: nonBlank(vuln['description']) ?? nonBlank(vuln['message']),
    remediation: nonBlank(vuln['solution']),
    ruleId: ids.ruleId,
    filePath: nonBlank(location['file']),
    line: positiveInt(location['start_line']),
    endLine: positiveInt(location['end_line']),
    toolFingerprint: fingerprint,
    ...gitlabSharedFields(vuln, ids, scanner),
  };
}

function detect(sniff: Sniff): boolean {
  return gitlabReportType(sniff) === 'sast';
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  // `cve` is GitLab's comparison key (file, code hash, rule). Entries sharing it are one finding
  // reported at several places, and GitLab itself shows them as one vulnerability.
  const seen = new Set<string>();
  for await (const { vuln, scanner } of streamGitlabVulnerabilities(input, 'sast')) {
    const finding = toFinding(vuln, scanner);
    if (finding.toolFingerprint !== null) {
      if (seen.has(finding.toolFingerprint)) continue;
      seen.add(finding.toolFingerprint);
    }
    yield finding;
  }
}

export const gitlabSast: ParserModule = { name: 'gitlab_sast', displayName: 'GitLab SAST', detect, parse };
