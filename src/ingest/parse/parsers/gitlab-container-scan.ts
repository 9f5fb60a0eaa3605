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
 * GitLab container scanning report (Trivy or Grype behind GitLab's analyzer): the GitLab schema with
 * `location: { image, operating_system, dependency: { package: { name }, version } }`.
 */

/**
 * The image without tag or digest: every pipeline pushes a new tag/digest, but the image is the
 * "manifest" a package vulnerability lives in, so it must stay the same from build to build.
 */
export function imageRepository(image: string | null): string | null {
  if (image === null) return null;
  const withoutDigest = image.replace(/@sha256:[0-9a-f]+$/i, '');
  const lastSlash = withoutDigest.lastIndexOf('/');
  const tagColon = withoutDigest.indexOf(':', lastSlash + 1);
  return tagColon > lastSlash ? withoutDigest.slice(0, tagColon) : withoutDigest;
}

function toFinding(vuln: JsonRecord, scanner: GitlabScanner): NormalizedFinding {
  const location = childRecord(vuln, 'location');
  const ids = identifiersOf(vuln);
  const pkg = packageOf(location);
  const solution = nonBlank(vuln['solution']);
  const ruleId = ids.cveIds[0] ?? ids.ruleId;
  const name = ruleId ?? nonBlank(vuln['name']) ?? nonBlank(vuln['message']) ?? 'Vulnerable package';
  const installed = [pkg.name, pkg.version].filter((part) => part !== null).join('-');
  const image = nonBlank(location['image']);
  const os = nonBlank(location['operating_system']);
  const context = [image ? `Image: ${image}` : null, os ? `Operating system: ${os}` : null].filter(Boolean);
  const description = nonBlank(vuln['description']) ?? nonBlank(vuln['message']);
  return {
    ...emptyFinding({
      kind: 'dependency',
      // "CVE-2019-3462 in apt-1.4.8", as GitLab and DefectDojo show it.
      title: installed !== '' ? `${name} in ${installed}` : name,
      severity: severityOf(vuln['severity']),
      toolName: gitlabToolName(vuln, scanner, 'GitLab Container Scanning'),
    }),
    description: [description, ...context].filter(Boolean).join('\n\n') || null,
    remediation: solution,
    ruleId,
    filePath: imageRepository(image),
    packageName: pkg.name,
    packageVersion: pkg.version,
    fixedVersion: fixedVersionFrom(solution),
    toolFingerprint: findingIdOf(vuln, ids),
    ...gitlabSharedFields(vuln, ids, scanner),
  };
}

function detect(sniff: Sniff): boolean {
  return gitlabReportType(sniff) === 'container_scanning';
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  // Every entry is kept: one CVE in several packages of the image is several findings.
  for await (const { vuln, scanner } of streamGitlabVulnerabilities(input, 'container_scanning')) {
    yield toFinding(vuln, scanner);
  }
}

export const gitlabContainerScan: ParserModule = {
  name: 'gitlab_container_scan',
  displayName: 'GitLab Container Scanning',
  detect,
  parse,
};
