import { componentsOfBom } from './cyclonedx-components.ts';
import { readXmlBom } from './cyclonedx-xml.ts';
import { dependencyTitle } from './dependency-helpers.ts';
import { openJson, requireJsonShape } from './json-input.ts';
import { cveIdsFrom, parseCweIds } from './identifiers.ts';
import { isSeverityWord, severityFromScore, severityFromWord } from './severity.ts';
import {
  asArray,
  asNumber,
  asRecordOrEmpty,
  asString,
  isRecord,
  type JsonRecord,
  unique,
} from './json-value.ts';
import { streamJsonValues } from './json-stream.ts';
import { decodePercent } from './text.ts';
import {
  emptyFinding,
  type NormalizedFinding,
  ParseError,
  type ParserInput,
  type ParserModule,
  type ReportFacts,
  type Severity,
  type Sniff,
} from './types.ts';
import { DISMISSED_BY_TOOL } from '../../../domain/findings/lifecycle.ts';

interface Component {
  name: string | null;
  version: string | null;
  /** Package URL type (`npm`, `maven`, ...). */
  ecosystem: string | null;
  /** Where the package is declared or found (evidence occurrence, Syft location), if the BOM says. */
  location: string | null;
}

/**
 * What the whole BOM says once: its generator. Its subject (`metadata.component`: an image, or the
 * scanned directory's name) is not part of any finding: the same project scanned from another
 * directory must give the same findings.
 */
interface BomContext {
  toolName: string;
  toolVersion: string | null;
  components: Map<string, Component>;
}

/** VEX states that assert the vulnerability does not apply. */
const NOT_APPLICABLE = new Set(['not_affected', 'false_positive']);
const VECTOR_PREFIX: Record<string, string> = {
  CVSSv3: 'CVSS:3.0/',
  CVSSv31: 'CVSS:3.1/',
  CVSSv4: 'CVSS:4.0/',
};

const ecosystemOf = (purl: string | null): string | null =>
  purl === null ? null : (/^pkg:([^/]+)\//.exec(purl)?.[1]?.toLowerCase() ?? null);

/** The first evidence occurrence (CycloneDX 1.5) or Syft's location property. */
function locationOf(component: JsonRecord): string | null {
  const occurrence = asRecordOrEmpty(asArray(asRecordOrEmpty(component['evidence'])['occurrences'])[0]);
  const property = asArray(component['properties'])
    .map(asRecordOrEmpty)
    .find((entry) => asString(entry['name']) === 'syft:location:0:path');
  return asString(occurrence['location']) ?? (property ? asString(property['value']) : null);
}

function addComponents(value: unknown, into: Map<string, Component>): void {
  if (!isRecord(value)) return;
  const ref = asString(value['bom-ref']);
  if (ref !== null) {
    into.set(ref, {
      name: asString(value['name']),
      version: asString(value['version']),
      ecosystem: ecosystemOf(asString(value['purl']) ?? ref),
      location: locationOf(value),
    });
  }
  for (const child of asArray(value['components'])) addComponents(child, into);
}

/** A package URL names the package itself: pkg:type/namespace/name@version?qualifiers#subpath. */
function componentFromPurl(ref: string): Component | null {
  const match = /^pkg:([^/]+)\/(?:.*\/)?([^/@?#]+)(?:@([^?#]+))?/.exec(ref);
  if (match?.[2] === undefined) return null;
  return {
    name: decodePercent(match[2]),
    version: match[3] === undefined ? null : decodePercent(match[3]),
    ecosystem: match[1]?.toLowerCase() ?? null,
    location: null,
  };
}

function resolve(ref: string, context: BomContext): Component {
  return (
    context.components.get(ref) ??
    componentFromPurl(ref) ?? { name: ref, version: null, ecosystem: null, location: null }
  );
}

interface Rating {
  severity: Severity;
  score: number | null;
  vector: string | null;
}

function normalizedVector(rating: JsonRecord): string | null {
  const vector = asString(rating['vector']);
  const prefix = VECTOR_PREFIX[asString(rating['method']) ?? ''];
  return vector === null || prefix === undefined || vector.startsWith('CVSS:')
    ? vector
    : `${prefix}${vector}`;
}

/**
 * Ratings often disagree (each source rates on its own). A CVSS v3/v4 rating is preferred, then
 * any rating with a severity word, then any score; a vulnerability without ratings is `info`.
 */
function rate(ratings: JsonRecord[]): Rating {
  const scored = (rating: JsonRecord): Rating => {
    const score = asNumber(rating['score']);
    const word = rating['severity'];
    const severity = isSeverityWord(word)
      ? severityFromWord(word)
      : score === null
        ? 'info'
        : severityFromScore(score);
    return { severity, score, vector: normalizedVector(rating) };
  };
  const usable = (rating: JsonRecord): boolean =>
    asNumber(rating['score']) !== null || isSeverityWord(rating['severity']);
  const cvss = ratings.find(
    (rating) => /^CVSSv(3|31|4)$/.test(asString(rating['method']) ?? '') && usable(rating),
  );
  const chosen = cvss ?? ratings.find((rating) => isSeverityWord(rating['severity'])) ?? ratings.find(usable);
  return chosen === undefined ? { severity: 'info', score: null, vector: null } : scored(chosen);
}

/** One finding per affected component, as DefectDojo counts them. */
function vulnerabilityFindings(vuln: JsonRecord, context: BomContext): NormalizedFinding[] {
  const id = asString(vuln['id']) ?? asString(vuln['bom-ref']);
  if (id === null) return [];
  const { severity, score, vector } = rate(asArray(vuln['ratings']).map(asRecordOrEmpty));
  const references = asArray(vuln['references']).map(asRecordOrEmpty);
  const state = asString(asRecordOrEmpty(vuln['analysis'])['state']);
  const links = [
    asString(asRecordOrEmpty(vuln['source'])['url']),
    ...asArray(vuln['advisories']).map((advisory) => asString(asRecordOrEmpty(advisory)['url'])),
    ...references.map((reference) => asString(asRecordOrEmpty(reference['source'])['url'])),
  ];
  const description = [asString(vuln['description']), asString(vuln['detail'])].filter(
    (text) => text !== null,
  );
  return asArray(vuln['affects']).flatMap((affect) => {
    const ref = asString(asRecordOrEmpty(affect)['ref']);
    if (ref === null) return [];
    const { name, version, ecosystem, location } = resolve(ref, context);
    return [
      {
        ...emptyFinding({
          kind: 'dependency',
          title: dependencyTitle(id, name, version),
          severity,
          toolName: context.toolName,
        }),
        severityScore: score,
        cvssScore: score,
        cvssVector: vector,
        description: unique(description).join('\n\n') || null,
        remediation: asString(vuln['recommendation']),
        ruleId: id,
        filePath: location,
        packageName: name,
        packageEcosystem: ecosystem,
        packageVersion: version,
        cveIds: cveIdsFrom([id, ...references.map((reference) => reference['id'])]),
        cweIds: parseCweIds(vuln['cwes']),
        references: unique(links.filter((link) => link !== null)),
        initialStatus: state !== null && NOT_APPLICABLE.has(state) ? DISMISSED_BY_TOOL : null,
        toolVersion: context.toolVersion,
      },
    ];
  });
}

/**
 * The BOM's generator: its tool is the scope its uploads speak for. 1.4 lists tools; 1.5 groups
 * them as `{ components: [...], services: [...] }`, often with the libraries the generator uses,
 * so an application among them is preferred.
 */
function contextFrom(metadata: JsonRecord): BomContext {
  const tools = asRecordOrEmpty(metadata)['tools'];
  const listed = (Array.isArray(tools) ? tools : asArray(asRecordOrEmpty(tools)['components'])).map(
    asRecordOrEmpty,
  );
  const tool = listed.find((entry) => asString(entry['type']) === 'application') ?? listed[0];
  return {
    toolName: asString(tool?.['name']) ?? 'CycloneDX',
    toolVersion: asString(tool?.['version']),
    components: new Map(),
  };
}

async function* parseJsonBom(input: ParserInput, facts?: ReportFacts): AsyncGenerator<NormalizedFinding> {
  if (!input.sniff.topKeys.includes('bomFormat') && !input.sniff.topKeys.includes('specVersion')) {
    throw new ParseError('CycloneDX: not a BOM (no bomFormat)');
  }
  // metadata and components precede vulnerabilities in generated BOMs; a reference that arrives
  // before its component still resolves when it is a package URL, which bom-refs usually are.
  let context = contextFrom({});
  let metadata: JsonRecord = {};
  const listed: unknown[] = [];
  const dependencies: unknown[] = [];
  const paths = ['$.metadata', '$.components.*', '$.dependencies.*', '$.vulnerabilities.*'];
  for await (const { value, path } of streamJsonValues(openJson(input), { paths })) {
    if (path[0] === 'metadata') {
      metadata = asRecordOrEmpty(value);
      context = { ...contextFrom(metadata), components: context.components };
    } else if (path[0] === 'components') {
      addComponents(value, context.components);
      listed.push(value);
    } else if (path[0] === 'dependencies') dependencies.push(value);
    else if (isRecord(value)) yield* vulnerabilityFindings(value, context);
  }
  // A BOM without vulnerabilities still speaks for its generator (and only for it).
  facts?.scope(context.toolName, null);
  reportComponents(facts, metadata, listed, dependencies);
}

/** The BOM's inventory: every component, nested ones too, direct when the subject depends on it. */
function reportComponents(
  facts: ReportFacts | undefined,
  metadata: JsonRecord,
  listed: unknown[],
  dependencies: unknown[],
): void {
  if (facts?.component === undefined) return;
  facts.inventory?.();
  for (const component of componentsOfBom(metadata, listed, dependencies)) facts.component(component);
}

async function* parseCycloneDx(input: ParserInput, facts?: ReportFacts): AsyncGenerator<NormalizedFinding> {
  if (input.sniff.shape !== 'xml') {
    requireJsonShape(input, ['json-object'], 'CycloneDX');
    yield* parseJsonBom(input, facts);
    return;
  }
  const bom = await readXmlBom(input);
  const context = contextFrom(bom.metadata);
  for (const component of bom.components) addComponents(component, context.components);
  for (const vulnerability of bom.vulnerabilities) yield* vulnerabilityFindings(vulnerability, context);
  facts?.scope(context.toolName, null);
  reportComponents(facts, bom.metadata, bom.components, bom.dependencies);
}

function detectCycloneDx(sniff: Sniff): boolean {
  if (sniff.shape === 'json-object') return /"bomFormat"\s*:\s*"CycloneDX"/.test(sniff.head);
  return (
    sniff.shape === 'xml' &&
    /^(?:[\w.-]+:)?bom$/.test(sniff.rootElement ?? '') &&
    /["']http:\/\/cyclonedx\.org\/schema\/bom\/[\d.]+["']/.test(sniff.head)
  );
}

export const cyclonedx: ParserModule = {
  name: 'cyclonedx',
  displayName: 'CycloneDX',
  detect: detectCycloneDx,
  parse: parseCycloneDx,
};
