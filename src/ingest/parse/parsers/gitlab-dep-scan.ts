import {
  findingIdOf,
  fixedVersionFrom,
  gitlabReportType,
  type GitlabScanner,
  identifiersOf,
  gitlabSharedFields,
  gitlabToolName,
  packageOf,
  severityOf,
  streamGitlabVulnerabilities,
} from './gitlab-report.ts';
import { childRecord, type JsonRecord, nonBlank } from './json-value.ts';
import { emptyFinding } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Sniff } from './types.ts';

/**
 * GitLab dependency scanning report (Gemnasium and friends): the GitLab schema with
 * `location: { file, dependency: { package: { name }, version } }` and usually `dependency_files`.
 */

function toFinding(vuln: JsonRecord, scanner: GitlabScanner): NormalizedFinding {
  const location = childRecord(vuln, 'location');
  const ids = identifiersOf(vuln);
  const pkg = packageOf(location);
  const solution = nonBlank(vuln['solution']);
  const fixedVersion = fixedVersionFrom(solution);
  const ruleId = ids.cveIds[0] ?? ids.ruleId;
  const name = nonBlank(vuln['name']) ?? nonBlank(vuln['message']) ?? ruleId ?? 'Vulnerable dependency';
  return {
    ...emptyFinding({
      kind: 'dependency',
      title: pkg.name !== null ? `${name} in ${pkg.name}` : name,
      severity: severityOf(vuln['severity']),
      toolName: gitlabToolName(vuln, scanner, 'GitLab Dependency Scanning'),
    }),
    description: nonBlank(vuln['description']) ?? nonBlank(vuln['message']),
    remediation:
      solution ??
      (pkg.name !== null && fixedVersion !== null ? `Upgrade ${pkg.name} to ${fixedVersion}` : null),
    ruleId,
    filePath: nonBlank(location['file']),
    packageName: pkg.name,
    packageVersion: pkg.version,
    fixedVersion,
    toolFingerprint: findingIdOf(vuln, ids),
    ...gitlabSharedFields(vuln, ids, scanner),
  };
}

function detect(sniff: Sniff): boolean {
  return gitlabReportType(sniff) === 'dependency_scanning';
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  // Every entry is kept: the same advisory for several locked versions of a package is several findings.
  for await (const { vuln, scanner } of streamGitlabVulnerabilities(input, 'dependency_scanning')) {
    yield toFinding(vuln, scanner);
  }
}

export const gitlabDepScan: ParserModule = {
  name: 'gitlab_dep_scan',
  displayName: 'GitLab Dependency Scanning',
  detect,
  parse,
};
