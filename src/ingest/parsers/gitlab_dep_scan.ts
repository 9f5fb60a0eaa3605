import {
  cvssVectorOf,
  gitlabReportType,
  identifiersOf,
  initialStatusOf,
  severityOf,
  streamGitlabVulnerabilities,
} from './gitlab_sast.ts';
import { childRecord, type JsonRecord, nonBlank } from './json-value.ts';
import type { GitlabIdentifiers, GitlabScanner } from './gitlab_sast.ts';
import { emptyFinding } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Sniff } from './types.ts';

/**
 * GitLab dependency scanning report (Gemnasium and friends): the GitLab schema with
 * `location: { file, dependency: { package: { name }, version } }` and usually `dependency_files`.
 * Also holds the package helpers the container scanning parser shares.
 */

export interface GitlabPackage {
  name: string | null;
  version: string | null;
}

export function packageOf(location: JsonRecord): GitlabPackage {
  const dependency = childRecord(location, 'dependency');
  return {
    name: nonBlank(childRecord(dependency, 'package')['name']),
    version: nonBlank(dependency['version']),
  };
}

/**
 * Analyzers state the fix only in prose: "Upgrade apt from 1.4.8 to 1.4.9", "Upgrade busybox to
 * 1.34.1-r5", "Upgrade to version 2.2.3 or above.". A version starts with a digit (or v and a digit),
 * so "Upgrade to latest version" yields nothing.
 */
export function fixedVersionFrom(solution: string | null): string | null {
  const match = /\bto\s+(?:versions?\s+)?(v?\d\S*)/i.exec(solution ?? '');
  return match?.[1]?.replace(/[.,;:]+$/, '') ?? null;
}

/**
 * The report's own id for the finding. Some analyzers (GitLab's Trivy wrapper, schema 14) set `id` to
 * the CVE itself, which names the advisory, not the finding: one CVE in five packages would share it,
 * so such an id is not offered as the finding's identity.
 */
export function findingIdOf(vuln: JsonRecord, ids: GitlabIdentifiers): string | null {
  const id = nonBlank(vuln['id']) ?? nonBlank(vuln['cve']);
  return id !== null && (ids.cveIds.includes(id) || ids.ruleId === id) ? null : id;
}

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
      toolName:
        scanner.name ?? nonBlank(childRecord(vuln, 'scanner')['name']) ?? 'GitLab Dependency Scanning',
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
    cveIds: ids.cveIds,
    cweIds: ids.cweIds,
    cvssVector: cvssVectorOf(vuln),
    references: ids.references,
    toolFingerprint: findingIdOf(vuln, ids),
    initialStatus: initialStatusOf(vuln),
    toolVersion: scanner.version,
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
