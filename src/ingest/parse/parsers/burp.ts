import { elementText, isRecord, type JsonRecord, recordList } from './json-value.ts';
import { cweIdsInText } from './identifiers.ts';
import { htmlFragmentText } from './text.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Severity, Sniff } from './types.ts';
import { parseXmlDocument } from './xml.ts';
import { DISMISSED_BY_TOOL } from '../../../domain/findings/lifecycle.ts';

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

/** Burp's issue texts also lay out tables. */
const BURP_LINE_ENDS = ['/table', '/tr'];

function detect(sniff: Sniff): boolean {
  return sniff.rootElement === 'issues' && /<issues\s[^>]*burpVersion=/.test(sniff.head);
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
    htmlFragmentText(elementText(issue['issueDetail']), BURP_LINE_ENDS)?.replace(/^/gm, '  ') ?? null,
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
    htmlFragmentText(elementText(first['remediationDetail']), BURP_LINE_ENDS),
    htmlFragmentText(elementText(first['remediationBackground']), BURP_LINE_ENDS),
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
        htmlFragmentText(elementText(first['issueBackground']), BURP_LINE_ENDS),
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
    cweIds: cweIdsInText(classifications),
    references: [...new Set([...html.matchAll(/href="(https?:[^"]+)"/g)].map((m) => m[1] ?? ''))],
    // Burp's serialNumber is per occurrence; host + issue type + name + severity names the group.
    toolFingerprint: [host, type ?? '', title, severityWord].join('|'),
    // Issues a tester marked "False positive" in Burp carry that as their severity.
    initialStatus: severityWord === 'false positive' ? DISMISSED_BY_TOOL : null,
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
