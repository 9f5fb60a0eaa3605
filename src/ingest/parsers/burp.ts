import { elementText, isRecord, type JsonRecord, recordList } from './json-value.ts';
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
  const raw = elementText(message);
  if (raw === null) return null;
  const decoded =
    isRecord(message) && message['@_base64'] === 'true' ? Buffer.from(raw, 'base64').toString('latin1') : raw;
  const line = decoded.split(/\r?\n/, 1)[0]?.trim() ?? '';
  return line === '' ? null : line.slice(0, 300);
}

interface Group {
  issues: JsonRecord[];
  host: string;
}

function occurrence(issue: JsonRecord, host: string): string {
  const url = `${host}${elementText(issue['path']) ?? ''}`;
  const location = elementText(issue['location']);
  const exchanges = recordList(issue['requestresponse'])
    .map((pair) => [firstLine(pair['request']), firstLine(pair['response'])].filter(Boolean).join(' → '))
    .filter((line) => line !== '');
  return [
    `- ${url}${location && location !== elementText(issue['path']) ? ` (${location})` : ''}`,
    elementText(issue['confidence']) ? `  Confidence: ${elementText(issue['confidence'])}` : null,
    htmlToText(elementText(issue['issueDetail']))?.replace(/^/gm, '  ') ?? null,
    ...exchanges.map((line) => `  ${line}`),
  ]
    .filter(Boolean)
    .join('\n');
}

function toFinding({ issues, host }: Group, toolVersion: string | null): NormalizedFinding {
  const first = issues[0] ?? {};
  const classifications = elementText(first['vulnerabilityClassifications']) ?? '';
  const html = `${elementText(first['references']) ?? ''}${classifications}`;
  const location = elementText(first['location']) ?? '';
  const severityWord = elementText(first['severity'])?.toLowerCase() ?? '';
  const remediation = [
    htmlToText(elementText(first['remediationDetail'])),
    htmlToText(elementText(first['remediationBackground'])),
  ]
    .filter(Boolean)
    .join('\n\n');
  const type = elementText(first['type']);
  const title = elementText(first['name']) ?? type ?? 'Burp issue';
  return {
    ...emptyFinding({
      kind: 'dast',
      title,
      severity: SEVERITY[severityWord] ?? 'info',
      toolName: 'Burp Suite',
    }),
    description:
      [
        htmlToText(elementText(first['issueBackground'])),
        `Occurrences (${issues.length}):`,
        ...issues.map((i) => occurrence(i, host)),
      ]
        .filter(Boolean)
        .join('\n\n') || null,
    remediation: remediation === '' ? null : remediation,
    ruleId: type,
    filePath: `${host}${elementText(first['path']) ?? ''}` || null,
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
  if (!isRecord(root)) throw new ParseError('Not a Burp XML export: root element is not <issues>');
  const groups = new Map<string, Group>();
  for (const issue of recordList(root['issue'])) {
    const host = elementText(issue['host']) ?? '';
    const key = JSON.stringify([
      host,
      elementText(issue['type']),
      elementText(issue['name']),
      elementText(issue['severity']),
    ]);
    const group = groups.get(key);
    if (group) group.issues.push(issue);
    else groups.set(key, { issues: [issue], host });
  }
  const toolVersion = elementText(root['@_burpVersion']);
  for (const group of groups.values()) yield toFinding(group, toolVersion);
}

export const burp: ParserModule = { name: 'burp', displayName: 'Burp Suite', detect, parse };
