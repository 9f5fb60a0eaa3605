import { elementText, isRecord, type JsonRecord } from './json-value.ts';
import { htmlFragmentText } from './text.ts';
import { readJsonUpload } from './json-input.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Severity, Sniff } from './types.ts';
import { parseXmlDocument } from './xml.ts';
import { DISMISSED_BY_TOOL } from '../../../domain/findings/lifecycle.ts';

/**
 * OWASP ZAP "traditional" reports: XML (`<OWASPZAPReport><site><alerts><alertitem>`, also the
 * xmlplus variant with requests/responses) and JSON (`{ "@version", site: [{ alerts: [...] }] }`).
 * Both hold the same alert fields. One finding per alert of a site, like DefectDojo: an alert's
 * instances (URL + parameter) are occurrences of one problem, listed in the description.
 */

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

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'xml') return sniff.rootElement === 'OWASPZAPReport';
  // The JSON report keeps the XML attributes as "@version"/"@generated"/"@programName".
  return (
    sniff.shape === 'json-object' &&
    sniff.topKeys.includes('site') &&
    sniff.topKeys.some((key) => key === '@version' || key === '@generated' || key === '@programName')
  );
}

interface Site {
  name: string | null;
  alerts: unknown[];
}

function instanceLine(instance: JsonRecord): string {
  const parts = [elementText(instance['method']), elementText(instance['uri'])].filter(Boolean).join(' ');
  const param = elementText(instance['param']);
  const evidence = elementText(instance['evidence']);
  const attack = elementText(instance['attack']);
  return [
    `- ${parts}`,
    param ? ` (parameter: ${param})` : '',
    attack ? ` attack: ${attack}` : '',
    evidence ? ` evidence: ${evidence}` : '',
  ].join('');
}

function toFinding(alert: JsonRecord, site: Site, tool: { name: string; version: string | null }) {
  const instances = list(
    isRecord(alert['instances']) ? alert['instances']['instance'] : alert['instances'],
  ).filter(isRecord);
  const first = instances[0] ?? {};
  const pluginId = elementText(alert['pluginid']);
  const alertRef = elementText(alert['alertRef']) ?? pluginId;
  const risk = elementText(alert['riskcode']) ?? '';
  const confidence = elementText(alert['confidence']) ?? '';
  const cwe = Number(elementText(alert['cweid']));
  const wasc = elementText(alert['wascid']);
  const otherInfo = htmlFragmentText(elementText(alert['otherinfo']));
  const listed = instances.slice(0, MAX_LISTED_INSTANCES).map(instanceLine);
  if (instances.length > listed.length) listed.push(`- … and ${instances.length - listed.length} more`);
  const references = (elementText(alert['reference']) ?? '').match(/https?:\/\/[^\s<>"]+/g) ?? [];
  const finding: NormalizedFinding = {
    ...emptyFinding({
      kind: 'dast',
      title: elementText(alert['alert']) ?? elementText(alert['name']) ?? pluginId ?? 'ZAP alert',
      severity: RISK[risk] ?? 'info',
      toolName: tool.name,
    }),
    description:
      [
        htmlFragmentText(elementText(alert['desc'])),
        otherInfo ? `Other information: ${otherInfo}` : null,
        wasc && wasc !== '0' ? `WASC: ${wasc}` : null,
        listed.length > 0 ? `Instances (${instances.length}):\n${listed.join('\n')}` : null,
      ]
        .filter(Boolean)
        .join('\n\n') || null,
    remediation: htmlFragmentText(elementText(alert['solution'])),
    ruleId: pluginId,
    filePath: elementText(first['uri']) ?? site.name,
    snippet: elementText(first['param']),
    cweIds: Number.isInteger(cwe) && cwe > 0 ? [cwe] : [],
    references: [...new Set(references)],
    // ZAP has no alert id; site + alert reference names the alert. A plugin may raise the same alert
    // twice on one site with different risk or confidence (dvwa_baseline_dojo.xml, 10027), so
    // those are part of the identity too.
    toolFingerprint: [site.name ?? '', alertRef ?? '', risk, confidence].join('|'),
    initialStatus: confidence === FALSE_POSITIVE_CONFIDENCE ? DISMISSED_BY_TOOL : null,
    toolVersion: tool.version,
  };
  return finding;
}

/** Sites of either report form: XML `site` elements (attributes `@_name`) or JSON (`@name`). */
function sitesOf(root: JsonRecord): Site[] {
  return list(root['site']).map((site) => {
    if (!isRecord(site)) throw new ParseError('ZAP site must be an object');
    const alerts = site['alerts'];
    return {
      name: elementText(site['@_name']) ?? elementText(site['@name']),
      // XML nests <alerts><alertitem/></alerts>; JSON has `alerts: [...]`.
      alerts: list(isRecord(alerts) ? alerts['alertitem'] : alerts),
    };
  });
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  let root: JsonRecord;
  let tool: { name: string; version: string | null };
  if (input.sniff.shape === 'xml') {
    const doc = await parseXmlDocument(input, { arrayTags: ['site', 'alertitem', 'instance'] });
    const report = doc['OWASPZAPReport'];
    if (!isRecord(report)) throw new ParseError('Not a ZAP XML report: root element is not OWASPZAPReport');
    root = report;
    tool = { name: elementText(report['@_programName']) ?? 'ZAP', version: elementText(report['@_version']) };
  } else {
    const doc = await readJsonUpload(input);
    if (!isRecord(doc) || !('site' in doc)) throw new ParseError('Not a ZAP JSON report: no "site" list');
    root = doc;
    tool = { name: elementText(doc['@programName']) ?? 'ZAP', version: elementText(doc['@version']) };
  }
  for (const site of sitesOf(root)) {
    for (const alert of site.alerts) {
      if (!isRecord(alert)) throw new ParseError('ZAP alert must be an object');
      yield toFinding(alert, site, tool);
    }
  }
}

export const zap: ParserModule = { name: 'zap', displayName: 'OWASP ZAP', detect, parse };
