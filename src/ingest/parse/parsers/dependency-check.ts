import { dependencyTitle, upgradeRemediation } from './dependency-helpers.ts';
import { cveIdsFrom, parseCweIds } from './identifiers.ts';
import { isSeverityWord, severityFromScore, severityFromWord } from './severity.ts';
import { asNumber, asString, elementText, isRecord, type JsonRecord, recordList } from './json-value.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Sniff } from './types.ts';
import { parseXmlDocument } from './xml.ts';
import { DISMISSED_BY_TOOL } from '../../../domain/findings/lifecycle.ts';

/**
 * OWASP Dependency-Check XML report (schemas 1.x–2.x): `<analysis><dependencies><dependency>` with
 * `<vulnerabilities>` holding `<vulnerability>` and `<suppressedVulnerability>` elements.
 * One finding per (suppressed) vulnerability of a dependency. `relatedDependencies` (the same
 * artifact found at other paths) are listed in the description, not turned into more findings:
 * that is what the MANIFEST counts expect (9 and 34).
 */

const ARRAY_TAGS = [
  'dependency',
  'vulnerability',
  'suppressedVulnerability',
  'relatedDependency',
  'reference',
  'cwe',
  'software',
  'identifier',
  'package',
  'evidence',
];

/** The first element of a child list (`{}` when there is none). */
const child = (parent: JsonRecord, name: string): JsonRecord => recordList(parent[name])[0] ?? {};

function detect(sniff: Sniff): boolean {
  // `analysis` alone is too generic a root; the report's namespace names the tool.
  return sniff.rootElement === 'analysis' && /dependency-?check/i.test(sniff.head);
}

/** "pkg:maven/org.dom4j/dom4j@2.1.1" → ["org.dom4j:dom4j", "2.1.1"] (DefectDojo's naming). */
function fromPurl(purl: string): [string, string | null] | null {
  const match = /^pkg:[^/]+\/(.+?)(?:@([^?#]+))?(?:[?#].*)?$/.exec(purl);
  if (!match?.[1]) return null;
  const parts = match[1].split('/').map((part) => decodeURIComponent(part));
  const name = parts.pop() ?? '';
  const version = match[2] === undefined ? null : decodeURIComponent(match[2]);
  return [parts.length > 0 ? `${parts.join('/')}:${name}` : name, version];
}

/** "cpe:/a:apache:xalan-java:2.7.1" or "cpe:2.3:a:apache:log4j:2.12.4:*:…" → vendor:product, version. */
function fromCpe(cpe: string): [string, string | null] | null {
  const parts = cpe.replace(/^cpe:(2\.3:|\/)/, '').split(':');
  const [, vendor, product, version] = parts;
  if (!product || product === '*') return null;
  return [
    vendor && vendor !== '*' ? `${vendor}:${product}` : product,
    version && version !== '*' ? version : null,
  ];
}

/** "xalan:serializer:2.7.1" → ["xalan:serializer", "2.7.1"]. */
function fromMaven(gav: string): [string, string | null] | null {
  const [group, artifact, version, ...rest] = gav.split(':');
  return group && artifact && version && rest.length === 0 ? [`${group}:${artifact}`, version] : null;
}

/** Package name and version from the best identifier the report has, most precise first. */
function component(dependency: JsonRecord): [string | null, string | null] {
  const identifiers = child(dependency, 'identifiers');
  // Some reports nest <identifiers> inside <identifiers>; DefectDojo searches descendants too.
  const packages = [identifiers, ...recordList(identifiers['identifiers'])].flatMap((node) =>
    recordList(node['package']),
  );
  for (const pkg of packages) {
    const found = fromPurl(elementText(pkg['id']) ?? '');
    if (found) return found;
  }
  const legacy = recordList(identifiers['identifier']);
  for (const type of ['cpe', 'maven']) {
    for (const identifier of legacy.filter((i) => i['@_type'] === type)) {
      const name = elementText(identifier['name']) ?? '';
      const found = type === 'cpe' ? fromCpe(name) : fromMaven(name);
      if (found) return found;
    }
  }
  const evidence = recordList(child(dependency, 'evidenceCollected')['evidence']);
  const product = evidence.find((e) => e['@_type'] === 'product');
  const version = evidence.find((e) => e['@_type'] === 'version');
  return [
    elementText(product?.['value']) ?? elementText(dependency['fileName']),
    elementText(version?.['value']),
  ];
}

/** "CVSS:3.1/AV:N/…" from the report's cvssV3 fields, which hold words (NETWORK) or letters (N). */
function cvss3Vector(cvss: JsonRecord): string | null {
  const explicit = elementText(cvss['vectorString']);
  if (explicit)
    return explicit.startsWith('CVSS:')
      ? explicit
      : `CVSS:${elementText(cvss['version']) ?? '3.1'}/${explicit}`;
  const fields: [string, string][] = [
    ['AV', 'attackVector'],
    ['AC', 'attackComplexity'],
    ['PR', 'privilegesRequired'],
    ['UI', 'userInteraction'],
    ['S', 'scope'],
    ['C', 'confidentialityImpact'],
    ['I', 'integrityImpact'],
    ['A', 'availabilityImpact'],
  ];
  const metrics = fields.map(([key, field]) => [key, elementText(cvss[field])?.[0]?.toUpperCase()] as const);
  if (metrics.some(([, value]) => value === undefined)) return null;
  const version = elementText(cvss['version']) ?? '3.1';
  return `CVSS:${version}/${metrics.map(([key, value]) => `${key}:${value}`).join('/')}`;
}

/** First upper bound among the matched vulnerable-software ranges: the first fixed version. */
function fixedVersion(vulnerability: JsonRecord): string | null {
  const software = recordList(child(vulnerability, 'vulnerableSoftware')['software']);
  const matched = software.filter(
    (s) => s['@_matched'] === 'true' || s['@_vulnerabilityIdMatched'] === 'true',
  );
  for (const item of matched.length > 0 ? matched : software) {
    const bound = asString(item['@_versionEndExcluding']);
    if (bound) return bound;
  }
  return null;
}

function toFinding(
  dependency: JsonRecord,
  vulnerability: JsonRecord,
  suppressed: boolean,
  toolVersion: string | null,
): NormalizedFinding {
  const id = elementText(vulnerability['name']) ?? 'unnamed vulnerability';
  const [packageName, packageVersion] = component(dependency);
  const cvss3 = child(vulnerability, 'cvssV3');
  const cvss4 = child(vulnerability, 'cvssV4');
  const cvss2 = child(vulnerability, 'cvssV2');
  const score =
    asNumber(elementText(cvss3['baseScore'])) ??
    asNumber(elementText(cvss4['baseScore'])) ??
    asNumber(elementText(cvss2['score']));
  const cvssScore = score !== null && score >= 0 && score <= 10 ? score : null;
  // The vulnerability's own rating first (NVD, OSS Index, npm, RetireJS words), then CVSS.
  const word = [
    elementText(vulnerability['severity']),
    elementText(cvss3['baseSeverity']),
    elementText(cvss2['severity']),
  ].find(isSeverityWord);
  const severity = word ? severityFromWord(word) : cvssScore !== null ? severityFromScore(cvssScore) : 'info';
  const fixed = fixedVersion(vulnerability);
  const related = recordList(child(dependency, 'relatedDependencies')['relatedDependency'])
    .map((r) => elementText(r['filePath']) ?? elementText(r['fileName']))
    .filter((path): path is string => path !== null);
  const notes = elementText(vulnerability['notes']);
  const source = asString(vulnerability['@_source']);
  const references = recordList(child(vulnerability, 'references')['reference'])
    .map(
      (r) =>
        elementText(r['url']) ?? /\((https?:\/\/[^)\s]+)\)/.exec(elementText(r['name']) ?? '')?.[1] ?? null,
    )
    .filter((url): url is string => url !== null);
  return {
    ...emptyFinding({
      kind: 'dependency',
      title: dependencyTitle(id, packageName, packageVersion),
      severity,
      toolName: 'Dependency-Check',
    }),
    severityScore: cvssScore,
    description:
      [
        // Report text is wrapped and indented by the XML writer; the line breaks carry no meaning.
        elementText(vulnerability['description'])?.replace(/\s+/g, ' '),
        source ? `Source: ${source}` : null,
        `File: ${elementText(dependency['filePath']) ?? elementText(dependency['fileName']) ?? 'unknown'}`,
        related.length > 0 ? `Also found at:\n${related.map((path) => `- ${path}`).join('\n')}` : null,
        suppressed ? `Suppressed in Dependency-Check${notes ? `: ${notes.replace(/\s+/g, ' ')}` : ''}` : null,
      ]
        .filter(Boolean)
        .join('\n\n') || null,
    remediation:
      upgradeRemediation(packageName, fixed) ??
      (packageName ? `Upgrade ${packageName} to a version not affected by ${id}` : null),
    ruleId: id,
    // The file name ("log4j-api-2.12.4.jar", "app.ear: dom4j.jar") rather than the absolute path on
    // the scanning machine, which changes with every CI workspace and would break identity.
    filePath: elementText(dependency['fileName']) ?? elementText(dependency['filePath']),
    packageName,
    packageVersion,
    fixedVersion: fixed,
    cveIds: cveIdsFrom([id]),
    cweIds: parseCweIds(
      [
        ...recordList(vulnerability['cwes']).flatMap((cwes) =>
          Array.isArray(cwes['cwe']) ? cwes['cwe'] : [],
        ),
        ...(Array.isArray(vulnerability['cwe']) ? vulnerability['cwe'] : []),
      ].map(elementText),
    ).filter((cwe) => cwe > 0),
    cvssScore,
    cvssVector: Object.keys(cvss3).length > 0 ? cvss3Vector(cvss3) : elementText(cvss4['vectorString']),
    references: [...new Set(references)],
    initialStatus: suppressed ? DISMISSED_BY_TOOL : null,
    toolVersion,
  };
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const doc = await parseXmlDocument(input, { arrayTags: ARRAY_TAGS });
  const analysis = doc['analysis'];
  if (!isRecord(analysis))
    throw new ParseError('Not a Dependency-Check report: root element is not <analysis>');
  const toolVersion = elementText(child(analysis, 'scanInfo')['engineVersion']);
  for (const dependency of recordList(child(analysis, 'dependencies')['dependency'])) {
    const vulnerabilities = child(dependency, 'vulnerabilities');
    for (const vulnerability of recordList(vulnerabilities['vulnerability'])) {
      yield toFinding(dependency, vulnerability, false, toolVersion);
    }
    for (const vulnerability of recordList(vulnerabilities['suppressedVulnerability'])) {
      yield toFinding(dependency, vulnerability, true, toolVersion);
    }
  }
}

export const dependencyCheck: ParserModule = {
  name: 'dependency_check',
  displayName: 'OWASP Dependency-Check',
  detect,
  parse,
};
