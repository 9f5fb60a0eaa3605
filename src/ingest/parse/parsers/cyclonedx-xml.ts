import type { JsonRecord } from './json-value.ts';
import { ParseError, type ParserInput } from './types.ts';
import { parseXmlDocument, type XmlElement, type XmlNode } from './xml.ts';

/**
 * CycloneDX XML, rewritten into the shape of CycloneDX JSON so one mapping reads both. Only the
 * members the mapping uses are carried over; XML wraps lists in a container element
 * (`<ratings><rating>`), JSON does not.
 */

/** Elements that are lists in CycloneDX; `version` is not one (a component has a single version). */
const ARRAY_TAGS = [
  'component',
  'vulnerability',
  'rating',
  'cwe',
  'advisory',
  'reference',
  'target',
  'tool',
  'occurrence',
  'dependency',
  'hash',
  'license',
];

type Child = XmlNode | XmlNode[] | undefined;

function first(node: Child): XmlNode | undefined {
  return Array.isArray(node) ? node[0] : node;
}

function element(node: Child): XmlElement {
  const value = first(node);
  return typeof value === 'object' ? value : {};
}

/** An element's text, whether it was parsed as a bare string or as an element with attributes. */
function text(node: Child): string | undefined {
  const value = first(node);
  if (typeof value === 'string') return value;
  const inner = value?.['#text'];
  return typeof inner === 'string' ? inner : undefined;
}

function list(container: Child, name: string): XmlElement[] {
  const items = element(container)[name];
  return (Array.isArray(items) ? items : items === undefined ? [] : [items]).map((item) =>
    typeof item === 'object' ? item : { '#text': item },
  );
}

function nameAndUrl(node: Child): JsonRecord {
  const source = element(node);
  return { name: text(source['name']), url: text(source['url']) };
}

function component(xml: XmlElement): JsonRecord {
  return {
    'bom-ref': text(xml['@_bom-ref']),
    group: text(xml['group']),
    name: text(xml['name']),
    version: text(xml['version']),
    purl: text(xml['purl']),
    scope: text(xml['scope']),
    hashes: list(xml['hashes'], 'hash').map((hash) => ({ alg: text(hash['@_alg']), content: text(hash) })),
    licenses: [
      ...list(xml['licenses'], 'license').map((license) => ({
        license: { id: text(license['id']), name: text(license['name']) },
      })),
      ...(text(element(xml['licenses'])['expression']) === undefined
        ? []
        : [{ expression: text(element(xml['licenses'])['expression']) }]),
    ],
    evidence: {
      occurrences: list(element(xml['evidence'])['occurrences'], 'occurrence').map((occurrence) => ({
        location: text(occurrence['location']),
      })),
    },
    components: list(xml['components'], 'component').map(component),
  };
}

function vulnerability(xml: XmlElement): JsonRecord {
  const analysis = element(xml['analysis']);
  return {
    'bom-ref': text(xml['@_bom-ref']),
    id: text(xml['id']),
    source: nameAndUrl(xml['source']),
    references: list(xml['references'], 'reference').map((ref) => ({
      id: text(ref['id']),
      source: nameAndUrl(ref['source']),
    })),
    ratings: list(xml['ratings'], 'rating').map((rating) => ({
      source: nameAndUrl(rating['source']),
      score: text(rating['score']),
      severity: text(rating['severity']),
      method: text(rating['method']),
      vector: text(rating['vector']),
    })),
    cwes: list(xml['cwes'], 'cwe').map((cwe) => text(cwe)),
    description: text(xml['description']),
    detail: text(xml['detail']),
    recommendation: text(xml['recommendation']),
    advisories: list(xml['advisories'], 'advisory').map((advisory) => ({
      title: text(advisory['title']),
      url: text(advisory['url']),
    })),
    analysis: { state: text(analysis['state']), detail: text(analysis['detail']) },
    affects: list(xml['affects'], 'target').map((target) => ({ ref: text(target['ref']) })),
  };
}

export interface JsonShapedBom {
  metadata: JsonRecord;
  components: JsonRecord[];
  dependencies: JsonRecord[];
  vulnerabilities: JsonRecord[];
}

/** `<dependency ref="a"><dependency ref="b"/></dependency>` → `{ ref: 'a', dependsOn: ['b'] }`. */
function dependency(xml: XmlElement): JsonRecord {
  return {
    ref: text(xml['@_ref']),
    dependsOn: list(xml, 'dependency').map((inner) => text(inner['@_ref'])),
  };
}

export async function readXmlBom(input: ParserInput): Promise<JsonShapedBom> {
  const document = await parseXmlDocument(input, { arrayTags: ARRAY_TAGS });
  const rootName = Object.keys(document).find((name) => /^(?:[\w.-]+:)?bom$/.test(name));
  if (rootName === undefined) throw new ParseError('CycloneDX: the XML root element is not <bom>');
  const bom = element(document[rootName]);
  const metadata = element(bom['metadata']);
  const tools = element(metadata['tools']);
  return {
    metadata: {
      // 1.4 lists <tool> elements; 1.5+ lists tool <components>.
      tools: [...list(tools, 'tool'), ...list(tools['components'], 'component')].map((tool) => ({
        type: text(tool['@_type']),
        name: text(tool['name']),
        version: text(tool['version']),
      })),
      component: {
        name: text(element(metadata['component'])['name']),
        'bom-ref': text(element(metadata['component'])['@_bom-ref']),
      },
    },
    components: list(bom['components'], 'component').map(component),
    dependencies: list(bom['dependencies'], 'dependency').map(dependency),
    vulnerabilities: list(bom['vulnerabilities'], 'vulnerability').map(vulnerability),
  };
}
