import { upgradeRemediation } from './dependency-helpers.ts';
import { openJson, requireJsonShape } from './json-input.ts';
import { cveIdsFrom, parseCweIds } from './identifiers.ts';
import { severityFromWord } from './severity.ts';
import {
  asArray,
  asNumber,
  asRecordOrEmpty,
  asString,
  asStringArray,
  isRecord,
  type JsonRecord,
  unique,
} from './json-value.ts';
import { streamJsonValues } from './json-stream.ts';
import { isSnykCodeSarif, parseSnykCode } from './snyk-code.ts';
import {
  emptyFinding,
  type NormalizedFinding,
  ParseError,
  type ParserInput,
  type ParserModule,
  type Sniff,
} from './types.ts';

const TOOL = 'Snyk';

/** "org.example:lib@1.2.3" / "@scope/pkg@1.2.3" → name and version (the last "@" separates them). */
function splitCoordinate(coordinate: string): { name: string; version: string | null } {
  const at = coordinate.lastIndexOf('@');
  return at > 0
    ? { name: coordinate.slice(0, at), version: coordinate.slice(at + 1) }
    : { name: coordinate, version: null };
}

/**
 * Snyk's advice: the upgrade of the direct dependency that pulls in a fixed version (upgradePath[1];
 * index 0 is the project itself), else the fixed versions of the package, else its patch.
 */
function remediationOf(
  vuln: JsonRecord,
  packageName: string | null,
  fixedVersion: string | null,
): string | null {
  const directUpgrade = asArray(vuln['upgradePath'])[1];
  if (vuln['isUpgradable'] === true && typeof directUpgrade === 'string') {
    const { name, version } = splitCoordinate(directUpgrade);
    if (version !== null) return `Upgrade ${name} to ${version}`;
  }
  if (fixedVersion !== null) return upgradeRemediation(packageName, fixedVersion);
  return vuln['isPatchable'] === true ? 'Apply the Snyk patch (`snyk protect`)' : null;
}

function vulnerabilityFinding(vuln: JsonRecord, manifest: string | null): NormalizedFinding | null {
  const id = asString(vuln['id']);
  if (id === null) return null;
  const packageName = asString(vuln['packageName']) ?? asString(vuln['name']);
  const packageVersion = asString(vuln['version']);
  const fixedIn = asStringArray(vuln['fixedIn']);
  const fixedVersion = fixedIn.length === 0 ? null : fixedIn.join(', ');
  const identifiers = asRecordOrEmpty(vuln['identifiers']);
  const score = asNumber(vuln['cvssScore']);
  const title = asString(vuln['title']) ?? id;
  const chain = asStringArray(vuln['from']);
  const description = [
    asString(vuln['description']),
    chain.length === 0 ? null : `Introduced through: ${chain.join(' > ')}`,
  ];
  return {
    ...emptyFinding({
      kind: 'dependency',
      title:
        packageName === null
          ? title
          : `${title} in ${packageName}${packageVersion === null ? '' : ` ${packageVersion}`}`,
      severity: severityFromWord(vuln['severityWithCritical'] ?? vuln['severity']),
      toolName: TOOL,
    }),
    severityScore: score,
    cvssScore: score,
    cvssVector: asString(vuln['CVSSv3']),
    description: description.filter((text) => text !== null).join('\n\n') || null,
    remediation: remediationOf(vuln, packageName, fixedVersion),
    ruleId: id,
    filePath: manifest,
    packageName,
    packageVersion,
    fixedVersion,
    cveIds: cveIdsFrom([...asArray(identifiers['CVE']), ...asArray(vuln['alternativeIds'])]),
    cweIds: parseCweIds(identifiers['CWE']),
    references: unique([
      `https://security.snyk.io/vuln/${encodeURIComponent(id)}`,
      ...asArray(vuln['references'])
        .map((reference) => asString(asRecordOrEmpty(reference)['url']))
        .filter((url) => url !== null),
    ]),
  };
}

/**
 * First pass: each project's manifest. Snyk writes `displayTargetFile` after the (large)
 * vulnerability list, so it is collected by a cheap streaming pass that keeps nothing else.
 */
async function readManifests(
  input: ParserInput,
  projectIndexed: boolean,
): Promise<Map<number, string | null>> {
  const prefix = projectIndexed ? '$.*' : '$';
  const paths = ['displayTargetFile', 'targetFile', 'error'].map((key) => `${prefix}.${key}`);
  const manifests = new Map<number, string | null>();
  for await (const { value, path } of streamJsonValues(openJson(input), { paths })) {
    const project = projectIndexed ? path[0] : 0;
    const key = path.at(-1);
    if (typeof project !== 'number') continue;
    if (key === 'error') {
      // `snyk test --json` writes {"ok": false, "error": "..."} when the test could not run.
      if (!projectIndexed && !input.sniff.topKeys.includes('vulnerabilities')) {
        throw new ParseError(`Snyk: ${asString(value) ?? 'the test failed'}`);
      }
      continue;
    }
    if (key === 'displayTargetFile' || !manifests.has(project)) manifests.set(project, asString(value));
  }
  return manifests;
}

async function* parseSnyk(input: ParserInput): AsyncGenerator<NormalizedFinding> {
  requireJsonShape(input, ['json-object', 'json-array'], TOOL);
  if (isSnykCodeSarif(input.sniff)) {
    yield* parseSnykCode(input);
    return;
  }
  const projectIndexed = input.sniff.shape === 'json-array';
  const keys = input.sniff.topKeys;
  if (!projectIndexed && !keys.includes('vulnerabilities') && !keys.includes('error')) {
    throw new ParseError('Snyk: the report has no "vulnerabilities"');
  }
  const manifests = await readManifests(input, projectIndexed);
  const paths = [projectIndexed ? '$.*.vulnerabilities.*' : '$.vulnerabilities.*'];
  for await (const { value, path } of streamJsonValues(openJson(input), { paths })) {
    if (!isRecord(value)) continue;
    const project = projectIndexed ? path[0] : 0;
    const finding = vulnerabilityFinding(
      value,
      typeof project === 'number' ? (manifests.get(project) ?? null) : null,
    );
    if (finding !== null) yield finding;
  }
}

/** Keys of a Snyk Open Source / Container vulnerability that other tools' reports do not use. */
const SNYK_VULNERABILITY_KEYS = /"(?:upgradePath|isUpgradable|isPatchable|severityWithCritical)"\s*:/;

function detectSnyk(sniff: Sniff): boolean {
  if (isSnykCodeSarif(sniff)) return true;
  if (sniff.shape === 'json-array') {
    return sniff.itemKeys.includes('vulnerabilities') && /"packageManager"\s*:/.test(sniff.head);
  }
  if (sniff.shape !== 'json-object' || !sniff.topKeys.includes('vulnerabilities')) return false;
  const keys = sniff.topKeys;
  if (keys.includes('packageManager') || keys.includes('dependencyCount')) return true;
  // A long vulnerability list hides the project keys beyond the sniffed head.
  return keys.length === 1 && SNYK_VULNERABILITY_KEYS.test(sniff.head);
}

export const snyk: ParserModule = {
  name: 'snyk',
  displayName: 'Snyk',
  detect: detectSnyk,
  parse: parseSnyk,
};
