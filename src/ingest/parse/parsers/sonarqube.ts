import { sonarConcern } from '../../../domain/findings/concern.ts';
import { isRecord, type JsonRecord, nonNegativeInt, trimmedText } from './json-value.ts';
import { severityIn } from './severity.ts';
import { cveIdsInText, cweIdsInText } from './identifiers.ts';
import { htmlToText } from './text.ts';
import { readJsonUpload } from './json-input.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Severity, Sniff } from './types.ts';
import { DISMISSED_BY_TOOL } from '../../../domain/findings/lifecycle.ts';

/**
 * SonarQube, three shapes: the sonar-report export (`sonarComponent`, `rules`, `issues`), and the Web
 * API answers `api/issues/search` (`paging`, `issues`, `components`) and `api/hotspots/search`
 * (`paging`, `hotspots`, `components`). All are small nested documents read whole: issues need the
 * rule table or the component table that sits beside them.
 */

const objects = (value: unknown): JsonRecord[] => (Array.isArray(value) ? value.filter(isRecord) : []);

/** Entries of a findings list; anything but objects there means the document is not what it claims. */
function entries(value: unknown, what: string): JsonRecord[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isRecord))
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
const severityOf = (value: unknown): Severity => severityIn(SEVERITY, trimmedText(value)) ?? 'info';

/** The issue or hotspot was dismissed in SonarQube itself. */
const DISMISSED = new Set(['FALSE-POSITIVE', 'FALSE_POSITIVE', 'WONTFIX', 'SAFE', 'ACCEPTED']);

function detect(sniff: Sniff): boolean {
  if (sniff.shape !== 'json-object') return false;
  const keys = new Set(sniff.topKeys);
  if (keys.has('sonarComponent') || keys.has('sonarBaseURL')) return true;
  return keys.has('paging') && (keys.has('issues') || keys.has('hotspots'));
}

/** SonarQube rule descriptions also hold code in `<pre>` blocks. */
const SONAR_LINE_ENDS = ['/pre'];

/** Text of the `<h2>` section whose heading matches, up to the next `<h2>`. */
function htmlSection(html: string, heading: RegExp): string | null {
  for (const part of html.split(/<h2>/i).slice(1)) {
    const [title = '', ...body] = part.split(/<\/h2>/i);
    if (heading.test(title)) return htmlToText(body.join(''), SONAR_LINE_ENDS) || null;
  }
  return null;
}

interface Rule {
  name: string | null;
  html: string | null;
}

function ruleDetails(rule: Rule | undefined) {
  const html = rule?.html ?? '';
  const cweIds = cweIdsInText(html);
  const references = [...new Set([...html.matchAll(/href="(https?:[^"]+)"/gi)].map((m) => m[1] ?? ''))];
  return {
    // The "See" section is only links (kept as references); everything before it describes the rule.
    description: html === '' ? null : htmlToText(html.split(/<h2>\s*See/i)[0] ?? '', SONAR_LINE_ENDS),
    remediation: htmlSection(html, /recommended secure coding|how to fix|compliant solution/i),
    cweIds,
    references,
  };
}

/** sonar-report export: one finding per issue, rule text from the report's rule table. */
function* reportFindings(doc: JsonRecord): Generator<NormalizedFinding> {
  const rules = isRecord(doc['rules']) ? doc['rules'] : {};
  const project = trimmedText(doc['sonarComponent']);
  for (const issue of entries(doc['issues'], 'issues')) {
    const ruleId = trimmedText(issue['rule']);
    const rawRule = ruleId ? rules[ruleId] : undefined;
    const rule = isRecord(rawRule)
      ? { name: trimmedText(rawRule['name']), html: trimmedText(rawRule['htmlDesc']) }
      : undefined;
    const details = ruleDetails(rule);
    const message = trimmedText(issue['message']);
    const component = trimmedText(issue['component']);
    yield {
      ...emptyFinding({
        kind: 'code',
        concern: sonarConcern(trimmedText(issue['type']), qualitiesOf(issue)),
        title: trimmedText(issue['description']) ?? rule?.name ?? message ?? ruleId ?? 'SonarQube issue',
        severity: severityOf(issue['severity']),
        toolName: 'SonarQube',
      }),
      description: [message, details.description].filter(Boolean).join('\n\n') || null,
      remediation: details.remediation,
      ruleId,
      filePath:
        project && component?.startsWith(`${project}:`) ? component.slice(project.length + 1) : component,
      line: nonNegativeInt(issue['line']),
      cweIds: details.cweIds,
      references: details.references,
      toolFingerprint: trimmedText(issue['key']),
      initialStatus: DISMISSED.has(trimmedText(issue['status'])?.toUpperCase() ?? '')
        ? DISMISSED_BY_TOOL
        : null,
    };
  }
}

/** Web API: a component key is "project:path"; the component table gives the path itself. */
function componentPath(doc: JsonRecord, key: string | null): string | null {
  if (key === null) return null;
  const component = objects(doc['components']).find((c) => c['key'] === key);
  if (component) return trimmedText(component['path']);
  const colon = key.indexOf(':');
  return colon > 0 ? key.slice(colon + 1) : null;
}

/** The dependency-check plugin packs its data into the message: "Reference: CVE-… | CVSS Score: 6.4 | Category: CWE-120". */
function messageFacts(message: string) {
  const cvss = /CVSS Score: (\d+(?:\.\d+)?)/.exec(message)?.[1];
  const ghsa = [...message.matchAll(/\bGHSA(?:-[23456789cfghjmpqrvwx]{4}){3}\b/g)].map((m) => m[0]);
  return {
    cveIds: cveIdsInText(message),
    cwe: Number(/Category: CWE-(\d+)/.exec(message)?.[1] ?? NaN),
    cvssScore: cvss === undefined || Number(cvss) > 10 ? null : Number(cvss),
    references: ghsa.map((id) => `https://github.com/advisories/${id}`),
  };
}

/** SonarQube 10's `impacts[].softwareQuality` (SECURITY, RELIABILITY, MAINTAINABILITY). */
const qualitiesOf = (issue: JsonRecord): string[] =>
  objects(issue['impacts'])
    .map((impact) => trimmedText(impact['softwareQuality']))
    .filter((quality): quality is string => quality !== null);

function dismissed(item: JsonRecord): typeof DISMISSED_BY_TOOL | null {
  const marks = [trimmedText(item['status']), trimmedText(item['resolution'])].map(
    (v) => v?.toUpperCase() ?? '',
  );
  return marks.some((mark) => DISMISSED.has(mark)) ? DISMISSED_BY_TOOL : null;
}

function* apiFindings(doc: JsonRecord): Generator<NormalizedFinding> {
  for (const issue of entries(doc['issues'], 'issues')) {
    // Closed issues were fixed or removed in SonarQube; importing them would reopen them here.
    if (trimmedText(issue['status'])?.toUpperCase() === 'CLOSED') continue;
    const message = trimmedText(issue['message']);
    const facts = messageFacts(message ?? '');
    const tagCwes = (Array.isArray(issue['tags']) ? issue['tags'] : [])
      .map((tag) => Number(/^cwe-(\d+)$/i.exec(trimmedText(tag) ?? '')?.[1] ?? NaN))
      .filter((n) => Number.isInteger(n) && n > 0);
    const range = isRecord(issue['textRange']) ? issue['textRange'] : {};
    // SonarQube 10 may omit `severity` and give per-quality impacts instead; take the worst.
    const impacts = objects(issue['impacts']).map((impact) => severityOf(impact['severity']));
    const severity = trimmedText(issue['severity'])
      ? severityOf(issue['severity'])
      : ((['critical', 'high', 'medium', 'low'] as const).find((s) => impacts.includes(s)) ?? 'info');
    const type = trimmedText(issue['type']);
    yield {
      ...emptyFinding({
        kind: 'code',
        concern: sonarConcern(type, qualitiesOf(issue)),
        title: message ?? trimmedText(issue['rule']) ?? 'SonarQube issue',
        severity,
        toolName: 'SonarQube',
      }),
      severityScore: facts.cvssScore,
      description: [message, type ? `Type: ${type}` : null].filter(Boolean).join('\n') || null,
      ruleId: trimmedText(issue['rule']),
      filePath: componentPath(doc, trimmedText(issue['component'])),
      line: nonNegativeInt(issue['line']) ?? nonNegativeInt(range['startLine']),
      endLine: nonNegativeInt(range['endLine']),
      cveIds: facts.cveIds,
      cweIds: Number.isInteger(facts.cwe) && facts.cwe > 0 ? [facts.cwe] : tagCwes,
      cvssScore: facts.cvssScore,
      references: facts.references,
      toolFingerprint: trimmedText(issue['key']),
      initialStatus: dismissed(issue),
    };
  }
  for (const hotspot of entries(doc['hotspots'], 'hotspots')) {
    const range = isRecord(hotspot['textRange']) ? hotspot['textRange'] : {};
    const message = trimmedText(hotspot['message']);
    const category = trimmedText(hotspot['securityCategory']);
    yield {
      ...emptyFinding({
        kind: 'code',
        title: message ?? trimmedText(hotspot['ruleKey']) ?? 'SonarQube security hotspot',
        severity: severityOf(hotspot['vulnerabilityProbability']),
        toolName: 'SonarQube',
      }),
      description:
        [message, category ? `Security category: ${category}` : null].filter(Boolean).join('\n') || null,
      ruleId: trimmedText(hotspot['ruleKey']),
      filePath: componentPath(doc, trimmedText(hotspot['component'])),
      line: nonNegativeInt(hotspot['line']) ?? nonNegativeInt(range['startLine']),
      endLine: nonNegativeInt(range['endLine']),
      toolFingerprint: trimmedText(hotspot['key']),
      initialStatus: dismissed(hotspot),
    };
  }
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const doc = await readJsonUpload(input);
  if (!isRecord(doc)) throw new ParseError('SonarQube report must be a JSON object');
  const isReport = 'sonarComponent' in doc || 'rules' in doc;
  const list = isReport ? doc['issues'] : (doc['issues'] ?? doc['hotspots']);
  if (!Array.isArray(list)) throw new ParseError('SonarQube report has no "issues" or "hotspots" list');
  yield* isReport ? reportFindings(doc) : apiFindings(doc);
}

export const sonarqube: ParserModule = { name: 'sonarqube', displayName: 'SonarQube', detect, parse };
