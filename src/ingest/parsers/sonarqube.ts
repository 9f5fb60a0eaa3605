import { readJsonDocument } from './json-stream.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Severity, Sniff } from './types.ts';

/**
 * SonarQube, three shapes: the sonar-report export (`sonarComponent`, `rules`, `issues`), and the Web
 * API answers `api/issues/search` (`paging`, `issues`, `components`) and `api/hotspots/search`
 * (`paging`, `hotspots`, `components`). All are small nested documents read whole: issues need the
 * rule table or the component table that sits beside them.
 */

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
const integer = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
const objects = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isObject) : []);

/** Entries of a findings list; anything but objects there means the document is not what it claims. */
function entries(value: unknown, what: string): JsonObject[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isObject))
    throw new ParseError(`SonarQube ${what} must be a list of objects`);
  return value;
}

// Sonar's legacy scale (BLOCKER…INFO) and the 10.x impact / hotspot probability scale (HIGH…LOW).
const SEVERITY: Record<string, Severity> = {
  BLOCKER: 'critical',
  CRITICAL: 'high',
  HIGH: 'high',
  MAJOR: 'medium',
  MEDIUM: 'medium',
  MINOR: 'low',
  LOW: 'low',
  INFO: 'info',
};
const severityOf = (value: unknown): Severity => SEVERITY[text(value)?.toUpperCase() ?? ''] ?? 'info';

/** The issue or hotspot was dismissed in SonarQube itself. */
const DISMISSED = new Set(['FALSE-POSITIVE', 'FALSE_POSITIVE', 'WONTFIX', 'SAFE', 'ACCEPTED']);

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
  if (sniff.shape !== 'json-object') return false;
  const keys = new Set(sniff.topKeys);
  if (keys.has('sonarComponent') || keys.has('sonarBaseURL')) return true;
  return keys.has('paging') && (keys.has('issues') || keys.has('hotspots'));
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Rule descriptions are HTML; findings keep plain text with paragraph breaks. */
function htmlToText(html: string): string {
  return html
    .replace(/\s*<li[^>]*>\s*/gi, '\n- ')
    .replace(/<(br|\/p|\/h\d|\/pre|\/ul|\/div)\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
      if (name.startsWith('#')) {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
        return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
      }
      return ENTITIES[name.toLowerCase()] ?? entity;
    })
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Text of the `<h2>` section whose heading matches, up to the next `<h2>`. */
function htmlSection(html: string, heading: RegExp): string | null {
  for (const part of html.split(/<h2>/i).slice(1)) {
    const [title = '', ...body] = part.split(/<\/h2>/i);
    if (heading.test(title)) return htmlToText(body.join('')) || null;
  }
  return null;
}

interface Rule {
  name: string | null;
  html: string | null;
}

function ruleDetails(rule: Rule | undefined) {
  const html = rule?.html ?? '';
  const cweIds = [...new Set([...html.matchAll(/CWE-(\d+)/gi)].map((m) => Number(m[1])))];
  const references = [...new Set([...html.matchAll(/href="(https?:[^"]+)"/gi)].map((m) => m[1] ?? ''))];
  return {
    // The "See" section is only links (kept as references); everything before it describes the rule.
    description: html === '' ? null : htmlToText(html.split(/<h2>\s*See/i)[0] ?? ''),
    remediation: htmlSection(html, /recommended secure coding|how to fix|compliant solution/i),
    cweIds,
    references,
  };
}

/** sonar-report export: one finding per issue, rule text from the report's rule table. */
function* reportFindings(doc: JsonObject): Generator<NormalizedFinding> {
  const rules = isObject(doc['rules']) ? doc['rules'] : {};
  const project = text(doc['sonarComponent']);
  for (const issue of entries(doc['issues'], 'issues')) {
    const ruleId = text(issue['rule']);
    const rawRule = ruleId ? rules[ruleId] : undefined;
    const rule = isObject(rawRule)
      ? { name: text(rawRule['name']), html: text(rawRule['htmlDesc']) }
      : undefined;
    const details = ruleDetails(rule);
    const message = text(issue['message']);
    const component = text(issue['component']);
    yield {
      ...emptyFinding({
        kind: 'code',
        title: text(issue['description']) ?? rule?.name ?? message ?? ruleId ?? 'SonarQube issue',
        severity: severityOf(issue['severity']),
        toolName: 'SonarQube',
      }),
      description: [message, details.description].filter(Boolean).join('\n\n') || null,
      remediation: details.remediation,
      ruleId,
      filePath:
        project && component?.startsWith(`${project}:`) ? component.slice(project.length + 1) : component,
      line: integer(issue['line']),
      cweIds: details.cweIds,
      references: details.references,
      toolFingerprint: text(issue['key']),
      initialStatus: DISMISSED.has(text(issue['status'])?.toUpperCase() ?? '') ? 'false_positive' : null,
    };
  }
}

/** Web API: a component key is "project:path"; the component table gives the path itself. */
function componentPath(doc: JsonObject, key: string | null): string | null {
  if (key === null) return null;
  const component = objects(doc['components']).find((c) => c['key'] === key);
  if (component) return text(component['path']);
  const colon = key.indexOf(':');
  return colon > 0 ? key.slice(colon + 1) : null;
}

/** The dependency-check plugin packs its data into the message: "Reference: CVE-… | CVSS Score: 6.4 | Category: CWE-120". */
function messageFacts(message: string) {
  const cvss = /CVSS Score: (\d+(?:\.\d+)?)/.exec(message)?.[1];
  const ghsa = [...message.matchAll(/\bGHSA(?:-[23456789cfghjmpqrvwx]{4}){3}\b/g)].map((m) => m[0]);
  return {
    cveIds: [...new Set([...message.matchAll(/\bCVE-\d{4}-\d{4,}\b/g)].map((m) => m[0]))],
    cwe: Number(/Category: CWE-(\d+)/.exec(message)?.[1] ?? NaN),
    cvssScore: cvss === undefined || Number(cvss) > 10 ? null : Number(cvss),
    references: ghsa.map((id) => `https://github.com/advisories/${id}`),
  };
}

function dismissed(item: JsonObject): 'false_positive' | null {
  const marks = [text(item['status']), text(item['resolution'])].map((v) => v?.toUpperCase() ?? '');
  return marks.some((mark) => DISMISSED.has(mark)) ? 'false_positive' : null;
}

function* apiFindings(doc: JsonObject): Generator<NormalizedFinding> {
  for (const issue of entries(doc['issues'], 'issues')) {
    // Closed issues were fixed or removed in SonarQube; importing them would reopen them here.
    if (text(issue['status'])?.toUpperCase() === 'CLOSED') continue;
    const message = text(issue['message']);
    const facts = messageFacts(message ?? '');
    const tagCwes = (Array.isArray(issue['tags']) ? issue['tags'] : [])
      .map((tag) => Number(/^cwe-(\d+)$/i.exec(text(tag) ?? '')?.[1] ?? NaN))
      .filter((n) => Number.isInteger(n) && n > 0);
    const range = isObject(issue['textRange']) ? issue['textRange'] : {};
    // SonarQube 10 may omit `severity` and give per-quality impacts instead; take the worst.
    const impacts = objects(issue['impacts']).map((impact) => severityOf(impact['severity']));
    const severity = text(issue['severity'])
      ? severityOf(issue['severity'])
      : ((['critical', 'high', 'medium', 'low'] as const).find((s) => impacts.includes(s)) ?? 'info');
    const type = text(issue['type']);
    yield {
      ...emptyFinding({
        kind: 'code',
        title: message ?? text(issue['rule']) ?? 'SonarQube issue',
        severity,
        toolName: 'SonarQube',
      }),
      severityScore: facts.cvssScore,
      description: [message, type ? `Type: ${type}` : null].filter(Boolean).join('\n') || null,
      ruleId: text(issue['rule']),
      filePath: componentPath(doc, text(issue['component'])),
      line: integer(issue['line']) ?? integer(range['startLine']),
      endLine: integer(range['endLine']),
      cveIds: facts.cveIds,
      cweIds: Number.isInteger(facts.cwe) && facts.cwe > 0 ? [facts.cwe] : tagCwes,
      cvssScore: facts.cvssScore,
      references: facts.references,
      toolFingerprint: text(issue['key']),
      initialStatus: dismissed(issue),
    };
  }
  for (const hotspot of entries(doc['hotspots'], 'hotspots')) {
    const range = isObject(hotspot['textRange']) ? hotspot['textRange'] : {};
    const message = text(hotspot['message']);
    const category = text(hotspot['securityCategory']);
    yield {
      ...emptyFinding({
        kind: 'code',
        title: message ?? text(hotspot['ruleKey']) ?? 'SonarQube security hotspot',
        severity: severityOf(hotspot['vulnerabilityProbability']),
        toolName: 'SonarQube',
      }),
      description:
        [message, category ? `Security category: ${category}` : null].filter(Boolean).join('\n') || null,
      ruleId: text(hotspot['ruleKey']),
      filePath: componentPath(doc, text(hotspot['component'])),
      line: integer(hotspot['line']) ?? integer(range['startLine']),
      endLine: integer(range['endLine']),
      toolFingerprint: text(hotspot['key']),
      initialStatus: dismissed(hotspot),
    };
  }
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const doc = await readJson(input);
  if (!isObject(doc)) throw new ParseError('SonarQube report must be a JSON object');
  const isReport = 'sonarComponent' in doc || 'rules' in doc;
  const list = isReport ? doc['issues'] : (doc['issues'] ?? doc['hotspots']);
  if (!Array.isArray(list)) throw new ParseError('SonarQube report has no "issues" or "hotspots" list');
  yield* isReport ? reportFindings(doc) : apiFindings(doc);
}

export const sonarqube: ParserModule = { name: 'sonarqube', displayName: 'SonarQube', detect, parse };
