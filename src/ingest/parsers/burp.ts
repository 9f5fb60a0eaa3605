import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Severity, Sniff } from './types.ts';
import { parseXmlDocument } from './xml.ts';

/**
 * Burp Suite "Report issues" XML export: `<issues burpVersion><issue>…</issue></issues>`, preceded by
 * an element-only internal DTD (accepted by the XML reader, entities still refused). Texts are HTML
 * in CDATA; requests and responses are usually base64.
 *
 * Burp reports one issue per URL/parameter. Like DefectDojo, issues of the same type, name and
 * severity on one host are one finding; each occurrence is listed in the description.
 */

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** Element text: XML elements with attributes carry it in `#text`. */
const text = (value: unknown): string | null => {
  const raw = isObject(value) ? value['#text'] : value;
  return typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : null;
};
const objects = (value: unknown): JsonObject[] => (Array.isArray(value) ? value : [value]).filter(isObject);

const SEVERITY: Record<string, Severity> = {
  high: 'high',
  medium: 'medium',
  low: 'low',
  information: 'info',
};

function detect(sniff: Sniff): boolean {
  return sniff.rootElement === 'issues' && /<issues\s[^>]*burpVersion=/.test(sniff.head);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function htmlToText(html: string | null): string | null {
  if (html === null) return null;
  const plain = html
    .replace(/\s*<li[^>]*>\s*/gi, '\n- ')
    .replace(/<(br|\/p|\/h\d|\/ul|\/div|\/table|\/tr)\s*\/?>/gi, '\n')
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

/**
 * First line of a request or response ("POST /basket.jsp HTTP/1.1", "HTTP/1.1 500 …"). Only that
 * line is kept: the rest carries cookies and Authorization headers that do not belong in findings.
 */
function firstLine(message: unknown): string | null {
  const raw = text(message);
  if (raw === null) return null;
  const decoded =
    isObject(message) && message['@_base64'] === 'true' ? Buffer.from(raw, 'base64').toString('latin1') : raw;
  const line = decoded.split(/\r?\n/, 1)[0]?.trim() ?? '';
  return line === '' ? null : line.slice(0, 300);
}

interface Group {
  issues: JsonObject[];
  host: string;
}

function occurrence(issue: JsonObject, host: string): string {
  const url = `${host}${text(issue['path']) ?? ''}`;
  const location = text(issue['location']);
  const exchanges = objects(issue['requestresponse'])
    .map((pair) => [firstLine(pair['request']), firstLine(pair['response'])].filter(Boolean).join(' → '))
    .filter((line) => line !== '');
  return [
    `- ${url}${location && location !== text(issue['path']) ? ` (${location})` : ''}`,
    text(issue['confidence']) ? `  Confidence: ${text(issue['confidence'])}` : null,
    htmlToText(text(issue['issueDetail']))?.replace(/^/gm, '  ') ?? null,
    ...exchanges.map((line) => `  ${line}`),
  ]
    .filter(Boolean)
    .join('\n');
}

function toFinding({ issues, host }: Group, toolVersion: string | null): NormalizedFinding {
  const first = issues[0] ?? {};
  const classifications = text(first['vulnerabilityClassifications']) ?? '';
  const html = `${text(first['references']) ?? ''}${classifications}`;
  const location = text(first['location']) ?? '';
  const severityWord = text(first['severity'])?.toLowerCase() ?? '';
  const remediation = [
    htmlToText(text(first['remediationDetail'])),
    htmlToText(text(first['remediationBackground'])),
  ]
    .filter(Boolean)
    .join('\n\n');
  const type = text(first['type']);
  const title = text(first['name']) ?? type ?? 'Burp issue';
  return {
    ...emptyFinding({
      kind: 'dast',
      title,
      severity: SEVERITY[severityWord] ?? 'info',
      toolName: 'Burp Suite',
    }),
    description:
      [
        htmlToText(text(first['issueBackground'])),
        `Occurrences (${issues.length}):`,
        ...issues.map((i) => occurrence(i, host)),
      ]
        .filter(Boolean)
        .join('\n\n') || null,
    remediation: remediation === '' ? null : remediation,
    ruleId: type,
    filePath: `${host}${text(first['path']) ?? ''}` || null,
    // "/login.jsp [username parameter]": the bracket names the insertion point.
    snippet: /\[([^\]]+)\]\s*$/.exec(location)?.[1] ?? null,
    cweIds: [...new Set([...classifications.matchAll(/CWE-(\d+)/g)].map((m) => Number(m[1])))],
    references: [...new Set([...html.matchAll(/href="(https?:[^"]+)"/g)].map((m) => m[1] ?? ''))],
    // Burp's serialNumber is per occurrence; host + issue type + name + severity names the group.
    toolFingerprint: [host, type ?? '', title, severityWord].join('|'),
    // Issues a tester marked "False positive" in Burp carry that as their severity.
    initialStatus: severityWord === 'false positive' ? 'false_positive' : null,
    toolVersion,
  };
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const doc = await parseXmlDocument(input, {
    allowInternalDtd: true,
    arrayTags: ['issue', 'requestresponse'],
  });
  const root = doc['issues'];
  // <issues/> with no issue at all parses to '' (an empty export).
  if (root === '') return;
  if (!isObject(root)) throw new ParseError('Not a Burp XML export: root element is not <issues>');
  const groups = new Map<string, Group>();
  for (const issue of objects(root['issue'])) {
    const host = text(issue['host']) ?? '';
    const key = JSON.stringify([host, text(issue['type']), text(issue['name']), text(issue['severity'])]);
    const group = groups.get(key);
    if (group) group.issues.push(issue);
    else groups.set(key, { issues: [issue], host });
  }
  const toolVersion = text(root['@_burpVersion']);
  for (const group of groups.values()) yield toFinding(group, toolVersion);
}

export const burp: ParserModule = { name: 'burp', displayName: 'Burp Suite', detect, parse };
