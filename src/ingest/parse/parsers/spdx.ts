import { hashesFrom, spdxLicense } from './components.ts';
import { openJson, requireJsonShape } from './json-input.ts';
import { asArray, asRecordOrEmpty, asString, isRecord, type JsonRecord } from './json-value.ts';
import { streamJsonValues } from './json-stream.ts';
import {
  type NormalizedComponent,
  type NormalizedFinding,
  ParseError,
  type ParserInput,
  type ParserModule,
  type ReportFacts,
  type Sniff,
} from './types.ts';

/**
 * SPDX 2.3 JSON documents: an inventory, no vulnerabilities. Every package is a component but the
 * ones the document describes (its subject, e.g. the npm project itself); a package the subject
 * `DEPENDS_ON` (or that is a `DEPENDENCY_OF` it) is direct, the others transitive.
 */

const TOOL_PREFIX = /^Tool:\s*/;

/** The document's generator (`creationInfo.creators`: `Tool: npm-cli/10.8.2`). */
function toolOf(document: JsonRecord): { name: string; version: string | null } {
  const creators = asArray(asRecordOrEmpty(document['creationInfo'])['creators']).map(asString);
  const tool = creators.find((creator) => creator !== null && TOOL_PREFIX.test(creator));
  if (tool == null) return { name: 'SPDX', version: null };
  const spec = tool.replace(TOOL_PREFIX, '').trim();
  const at = spec.lastIndexOf('-');
  const slash = spec.indexOf('/');
  // `name/version` or `name-version`
  if (slash > 0) return { name: spec.slice(0, slash), version: spec.slice(slash + 1) || null };
  if (at > 0 && /\d/.test(spec.slice(at + 1)))
    return { name: spec.slice(0, at), version: spec.slice(at + 1) };
  return { name: spec || 'SPDX', version: null };
}

function purlOf(pkg: JsonRecord): string | null {
  const ref = asArray(pkg['externalRefs'])
    .map(asRecordOrEmpty)
    .find((entry) => asString(entry['referenceType']) === 'purl');
  return ref === undefined ? null : asString(ref['referenceLocator']);
}

function componentOf(pkg: JsonRecord, direct: boolean | null): NormalizedComponent | null {
  const name = asString(pkg['name']);
  if (name === null) return null;
  return {
    purl: purlOf(pkg),
    ecosystem: null,
    namespace: null,
    name,
    version: asString(pkg['versionInfo']),
    licenses: spdxLicense(pkg['licenseConcluded']) ?? spdxLicense(pkg['licenseDeclared']),
    scope: null,
    direct,
    hashes: hashesFrom(pkg['checksums']),
  };
}

// An SPDX document has no findings: the parser yields none and reports its components to `facts`.
// eslint-disable-next-line require-yield
async function* parseSpdx(input: ParserInput, facts?: ReportFacts): AsyncGenerator<NormalizedFinding> {
  requireJsonShape(input, ['json-object'], 'SPDX');
  if (!input.sniff.topKeys.includes('spdxVersion')) throw new ParseError('SPDX: no "spdxVersion"');
  const document: JsonRecord = {};
  const packages: JsonRecord[] = [];
  const relationships: JsonRecord[] = [];
  const paths = [
    '$.spdxVersion',
    '$.creationInfo',
    '$.documentDescribes',
    '$.packages.*',
    '$.relationships.*',
  ];
  for await (const { value, path } of streamJsonValues(openJson(input), { paths })) {
    const [key] = path;
    if (key === 'packages' && isRecord(value)) packages.push(value);
    else if (key === 'relationships' && isRecord(value)) relationships.push(value);
    else if (typeof key === 'string') document[key] = value;
  }
  const version = asString(document['spdxVersion']);
  if (version === null || !/^SPDX-2\.\d$/.test(version)) {
    throw new ParseError(`SPDX: version ${version ?? '(none)'} is not SPDX 2.x`);
  }
  const tool = toolOf(document);
  facts?.scope(tool.name, null);
  if (facts?.component === undefined) return;
  facts.inventory?.();
  const related = (type: string) =>
    relationships.filter((relationship) => asString(relationship['relationshipType']) === type);
  const subjects = new Set([
    ...asArray(document['documentDescribes']).map(asString),
    ...related('DESCRIBES').map((relationship) => asString(relationship['relatedSpdxElement'])),
  ]);
  const direct = new Set([
    ...related('DEPENDS_ON')
      .filter((relationship) => subjects.has(asString(relationship['spdxElementId'])))
      .map((relationship) => asString(relationship['relatedSpdxElement'])),
    ...['DEPENDENCY_OF', 'DEV_DEPENDENCY_OF', 'OPTIONAL_DEPENDENCY_OF', 'RUNTIME_DEPENDENCY_OF']
      .flatMap(related)
      .filter((relationship) => subjects.has(asString(relationship['relatedSpdxElement'])))
      .map((relationship) => asString(relationship['spdxElementId'])),
  ]);
  // Without any dependency relationship of the subject, the document does not say what is direct.
  const knowsDirect = direct.size > 0;
  for (const pkg of packages) {
    const id = asString(pkg['SPDXID']);
    if (subjects.has(id)) continue;
    const component = componentOf(pkg, knowsDirect ? direct.has(id) : null);
    if (component !== null) facts.component(component);
  }
}

function detectSpdx(sniff: Sniff): boolean {
  return sniff.shape === 'json-object' && /"spdxVersion"\s*:\s*"SPDX-2\.\d"/.test(sniff.head);
}

export const spdx: ParserModule = {
  name: 'spdx',
  displayName: 'SPDX',
  detect: detectSpdx,
  parse: parseSpdx,
};
