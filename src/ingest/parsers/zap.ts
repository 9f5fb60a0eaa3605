import { readJsonDocument } from './json-stream.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Severity, Sniff } from './types.ts';
import { parseXmlDocument } from './xml.ts';

/**
 * OWASP ZAP "traditional" reports: XML (`<OWASPZAPReport><site><alerts><alertitem>`, also the
 * xmlplus variant with requests/responses) and JSON (`{ "@version", site: [{ alerts: [...] }] }`).
 * Both hold the same alert fields. One finding per alert of a site, like DefectDojo: an alert's
 * instances (URL + parameter) are occurrences of one problem, listed in the description.
 */

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** XML elements with attributes carry their text in `#text`. */
const text = (value: unknown): string | null => {
  const raw = isObject(value) ? value['#text'] : typeof value === 'number' ? String(value) : value;
  return typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : null;
};
/** One element parses to an object, several to an array, an empty `<alerts></alerts>` to ''. */
const list = (value: unknown): unknown[] =>
  Array.isArray(value)
    ? value
    : value == null || (typeof value === 'string' && value.trim() === '')
      ? []
      : [value];

const RISK: Record<string, Severity> = { '3': 'high', '2': 'medium', '1': 'low', '0': 'info' };
/** ZAP confidence 0 is "False Positive", set by a user in ZAP itself. */
const FALSE_POSITIVE_CONFIDENCE = '0';
/** Descriptions list at most this many instances; big sites report thousands for header checks. */
const MAX_LISTED_INSTANCES = 100;

/** Whole-document read; a corrupt gzip upload surfaces as a zlib error, which is bad input too. */
async function readJson(input: ParserInput): Promise<unknown> {
  try {
    return await readJsonDocument(input.open());
  } catch (error) {
    if (error instanceof ParseError) throw error;
    throw new ParseError(`Could not read the upload: ${(error as Error).message}`);
  }
}

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'xml') return sniff.rootElement === 'OWASPZAPReport';
  // The JSON report keeps the XML attributes as "@version"/"@generated"/"@programName".
  return (
    sniff.shape === 'json-object' &&
    sniff.topKeys.includes('site') &&
    sniff.topKeys.some((key) => key === '@version' || key === '@generated' || key === '@programName')
  );
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** ZAP writes descriptions and solutions as small HTML fragments (`<p>…</p>`). */
function htmlToText(html: string | null): string | null {
  if (html === null) return null;
  const plain = html
    .replace(/\s*<li[^>]*>\s*/gi, '\n- ')
    .replace(/<(br|\/p|\/h\d|\/ul|\/div)\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
      if (!name.startsWith('#')) return ENTITIES[name.toLowerCase()] ?? entity;
      const code = name[1]?.toLowerCase() === 'x' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    })
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return plain === '' ? null : plain;
}

interface Site {
  name: string | null;
  alerts: unknown[];
}

function instanceLine(instance: JsonObject): string {
  const parts = [text(instance['method']), text(instance['uri'])].filter(Boolean).join(' ');
  const param = text(instance['param']);
  const evidence = text(instance['evidence']);
  const attack = text(instance['attack']);
  return [
    `- ${parts}`,
    param ? ` (parameter: ${param})` : '',
    attack ? ` attack: ${attack}` : '',
    evidence ? ` evidence: ${evidence}` : '',
  ].join('');
}

function toFinding(alert: JsonObject, site: Site, tool: { name: string; version: string | null }) {
  const instances = list(
    isObject(alert['instances']) ? alert['instances']['instance'] : alert['instances'],
  ).filter(isObject);
  const first = instances[0] ?? {};
  const pluginId = text(alert['pluginid']);
  const alertRef = text(alert['alertRef']) ?? pluginId;
  const risk = text(alert['riskcode']) ?? '';
  const confidence = text(alert['confidence']) ?? '';
  const cwe = Number(text(alert['cweid']));
  const wasc = text(alert['wascid']);
  const otherInfo = htmlToText(text(alert['otherinfo']));
  const listed = instances.slice(0, MAX_LISTED_INSTANCES).map(instanceLine);
  if (instances.length > listed.length) listed.push(`- … and ${instances.length - listed.length} more`);
  const references = (text(alert['reference']) ?? '').match(/https?:\/\/[^\s<>"]+/g) ?? [];
  const finding: NormalizedFinding = {
    ...emptyFinding({
      kind: 'dast',
      title: text(alert['alert']) ?? text(alert['name']) ?? pluginId ?? 'ZAP alert',
      severity: RISK[risk] ?? 'info',
      toolName: tool.name,
    }),
    description:
      [
        htmlToText(text(alert['desc'])),
        otherInfo ? `Other information: ${otherInfo}` : null,
        wasc && wasc !== '0' ? `WASC: ${wasc}` : null,
        listed.length > 0 ? `Instances (${instances.length}):\n${listed.join('\n')}` : null,
      ]
        .filter(Boolean)
        .join('\n\n') || null,
    remediation: htmlToText(text(alert['solution'])),
    ruleId: pluginId,
    filePath: text(first['uri']) ?? site.name,
    snippet: text(first['param']),
    cweIds: Number.isInteger(cwe) && cwe > 0 ? [cwe] : [],
    references: [...new Set(references)],
    // ZAP has no alert id; site + alert reference names the alert. A plugin may raise the same alert
    // twice on one site with different risk or confidence (dvwa_baseline_dojo.xml, 10027), so
    // those are part of the identity too.
    toolFingerprint: [site.name ?? '', alertRef ?? '', risk, confidence].join('|'),
    initialStatus: confidence === FALSE_POSITIVE_CONFIDENCE ? 'false_positive' : null,
    toolVersion: tool.version,
  };
  return finding;
}

/** Sites of either report form: XML `site` elements (attributes `@_name`) or JSON (`@name`). */
function sitesOf(root: JsonObject): Site[] {
  return list(root['site']).map((site) => {
    if (!isObject(site)) throw new ParseError('ZAP site must be an object');
    const alerts = site['alerts'];
    return {
      name: text(site['@_name']) ?? text(site['@name']),
      // XML nests <alerts><alertitem/></alerts>; JSON has `alerts: [...]`.
      alerts: list(isObject(alerts) ? alerts['alertitem'] : alerts),
    };
  });
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  let root: JsonObject;
  let tool: { name: string; version: string | null };
  if (input.sniff.shape === 'xml') {
    const doc = await parseXmlDocument(input, { arrayTags: ['site', 'alertitem', 'instance'] });
    const report = doc['OWASPZAPReport'];
    if (!isObject(report)) throw new ParseError('Not a ZAP XML report: root element is not OWASPZAPReport');
    root = report;
    tool = { name: text(report['@_programName']) ?? 'ZAP', version: text(report['@_version']) };
  } else {
    const doc = await readJson(input);
    if (!isObject(doc) || !('site' in doc)) throw new ParseError('Not a ZAP JSON report: no "site" list');
    root = doc;
    tool = { name: text(doc['@programName']) ?? 'ZAP', version: text(doc['@version']) };
  }
  for (const site of sitesOf(root)) {
    for (const alert of site.alerts) {
      if (!isObject(alert)) throw new ParseError('ZAP alert must be an object');
      yield toFinding(alert, site, tool);
    }
  }
}

export const zap: ParserModule = { name: 'zap', displayName: 'OWASP ZAP', detect, parse };
