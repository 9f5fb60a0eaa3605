import { semgrepConcern } from '../../../domain/findings/concern.ts';
import {
  childRecord,
  isRecord,
  type JsonRecord,
  nonBlank,
  positiveIntOrDigits,
  unique,
} from './json-value.ts';
import { headIsWholeDocument, readBytes } from './json-input.ts';
import { streamJsonValues } from './json-stream.ts';
import { sha256Hex } from './secrets.ts';
import { severityIn } from './severity.ts';
import { firstCweId } from './identifiers.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Severity, Sniff } from './types.ts';
import { DISMISSED_BY_TOOL } from '../../../domain/findings/lifecycle.ts';

/**
 * Semgrep JSON. Two shapes share the scanner type:
 * - the CLI's `semgrep --json`: `{ version?, results: [{ check_id, path, start, end, extra }], errors, ... }`;
 * - the Semgrep App supply-chain API export: `{ vulns: [{ title, advisory, matchedDependency, ... }], hasMore, cursor }`.
 */

const strings = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).map(nonBlank).filter((item): item is string => item !== null);

const SEVERITY: Record<string, Severity> = {
  CRITICAL: 'critical',
  ERROR: 'high',
  HIGH: 'high',
  WARNING: 'medium',
  MEDIUM: 'medium',
  MODERATE: 'medium',
  INFO: 'low',
  LOW: 'low',
  INVENTORY: 'info',
  EXPERIMENT: 'info',
};
const severityOf = (value: unknown): Severity | null => severityIn(SEVERITY, nonBlank(value)) ?? null;

/** "CWE-79: Improper Neutralization ..." → 79. */
const cweIdsOf = (value: unknown): number[] =>
  unique(strings(value).flatMap((item) => firstCweId(item) ?? []));

/** Semgrep prints these placeholders instead of the real values when the user is not logged in. */
const PLACEHOLDER = 'requires login';
const unlessPlaceholder = (value: unknown): string | null => {
  const found = nonBlank(value);
  return found === null || found.trim() === PLACEHOLDER ? null : found;
};

/** Top-level keys only bandit writes next to `results`/`errors`. */
const BANDIT_KEYS = ['generated_at', 'metrics'];

function detect(sniff: Sniff): boolean {
  if (sniff.shape !== 'json-object') return false;
  const keys = sniff.topKeys;
  if (keys.includes('vulns')) {
    return /"dependencyFileLocation"\s*:|"advisory"\s*:/.test(sniff.head) || keys.includes('hasMore');
  }
  // checkov also has `results` of `check_id`s but always says `check_type`; bandit has results+errors.
  if (!keys.includes('results') || !keys.includes('errors') || keys.includes('check_type')) return false;
  if (BANDIT_KEYS.some((key) => keys.includes(key))) return false;
  return /"check_id"\s*:/.test(sniff.head) || /"results"\s*:\s*\[\s*\]/.test(sniff.head);
}

/** The first sentence of a rule message: Semgrep messages are paragraphs, titles should be one line. */
function titleFrom(message: string | null, fallback: string): string {
  if (message === null) return fallback;
  const flat = message.replace(/\s+/g, ' ').trim();
  const sentence = /^(.+?[.!?])(?:\s|$)/.exec(flat)?.[1] ?? flat;
  return sentence.length > 200 ? `${sentence.slice(0, 197)}...` : sentence;
}

function cliResult(result: JsonRecord, toolVersion: string | null): NormalizedFinding {
  const extra = childRecord(result, 'extra');
  const metadata = childRecord(extra, 'metadata');
  const start = childRecord(result, 'start');
  const end = childRecord(result, 'end');
  const checkId = nonBlank(result['check_id']) ?? 'semgrep';
  const message = nonBlank(extra['message']);
  // Rule metadata describes the risk better than the rule's display level (ERROR/WARNING/INFO).
  const severity =
    severityOf(metadata['sca-severity']) ??
    severityOf(metadata['impact']) ??
    severityOf(metadata['severity']) ??
    severityOf(extra['severity']) ??
    'info';
  const sca = childRecord(extra, 'sca_info');
  const dependency = childRecord(childRecord(sca, 'dependency_match'), 'found_dependency');
  const isSca = Object.keys(sca).length > 0;
  // Secrets rules (`generic.secrets.*`, Semgrep Secrets) print the credential in `lines`: keep its hash only.
  const isSecret = /(^|\.)secrets\./.test(checkId) || nonBlank(metadata['secret_type']) !== null;
  const lines = unlessPlaceholder(extra['lines']);
  const cve = nonBlank(metadata['sca-vuln-database-identifier']);
  const references = [
    ...strings(metadata['references']),
    ...strings(metadata['source']),
    ...strings(metadata['source-rule-url']),
    ...strings(metadata['shortlink']),
  ];
  return {
    ...emptyFinding({
      kind: isSca ? 'dependency' : isSecret ? 'secret' : 'code',
      concern: semgrepConcern(nonBlank(metadata['category'])),
      title: titleFrom(message, checkId),
      severity,
      toolName: 'Semgrep',
    }),
    description: message,
    remediation: nonBlank(extra['fix']) ?? nonBlank(extra['fix_regex']),
    ruleId: checkId,
    filePath: nonBlank(result['path']),
    line: positiveIntOrDigits(start['line']),
    column: positiveIntOrDigits(start['col']),
    endLine: positiveIntOrDigits(end['line']),
    snippet: isSecret ? null : lines,
    secretHash: isSecret && lines !== null ? sha256Hex(lines.trim()) : null,
    packageName: nonBlank(dependency['package']),
    packageVersion: nonBlank(dependency['version']),
    cveIds: cve !== null && /^CVE-/i.test(cve) ? [cve.toUpperCase()] : [],
    cweIds: cweIdsOf(metadata['cwe']),
    references: [...new Set(references)],
    toolFingerprint: unlessPlaceholder(extra['fingerprint']),
    // `nosemgrep` comments produce results marked ignored: the developer's own dismissal.
    initialStatus: extra['is_ignored'] === true ? DISMISSED_BY_TOOL : null,
    toolVersion,
  };
}

function appVuln(vuln: JsonRecord): NormalizedFinding {
  const advisory = childRecord(vuln, 'advisory');
  const refs = childRecord(advisory, 'references');
  const location = childRecord(vuln, 'dependencyFileLocation');
  const matched = childRecord(vuln, 'matchedDependency');
  const safe = childRecord(vuln, 'closestSafeDependency');
  const packageName = nonBlank(matched['name']);
  const fixedVersion = nonBlank(safe['versionSpecifier']);
  const triage = childRecord(vuln, 'triage');
  return {
    ...emptyFinding({
      kind: 'dependency',
      title: nonBlank(vuln['title']) ?? nonBlank(advisory['title']) ?? 'Semgrep supply-chain finding',
      severity: severityOf(advisory['severity']) ?? severityOf(vuln['severity']) ?? 'info',
      toolName: 'Semgrep',
    }),
    description: nonBlank(advisory['description']),
    remediation:
      packageName !== null && fixedVersion !== null ? `Upgrade ${packageName} to ${fixedVersion}` : null,
    ruleId: nonBlank(advisory['ruleId']),
    filePath: nonBlank(location['path']),
    line: positiveIntOrDigits(location['startLine']),
    column: positiveIntOrDigits(location['startCol']),
    endLine: positiveIntOrDigits(location['endLine']),
    packageName,
    packageVersion: nonBlank(matched['versionSpecifier']),
    fixedVersion,
    cveIds: strings(refs['cveIds']).filter((id) => /^CVE-/i.test(id)),
    cweIds: cweIdsOf(refs['cweIds']),
    references: strings(refs['urls']),
    toolFingerprint: nonBlank(vuln['fingerprint']),
    initialStatus: nonBlank(triage['status'])?.toUpperCase() === 'IGNORED' ? DISMISSED_BY_TOOL : null,
  };
}

/**
 * Semgrep reports the same match more than once (several rules' patterns, repeated targets); an exact
 * twin — same rule, file and span — is one finding. Keys are small, so the set stays cheap.
 */
function twinKey(finding: NormalizedFinding): string {
  return [finding.ruleId, finding.filePath, finding.line, finding.column, finding.endLine]
    .concat(finding.kind === 'dependency' ? [finding.packageName, finding.packageVersion] : [])
    .join('\u0000');
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const { sniff } = input;
  if (sniff.shape === 'empty') throw new ParseError('Semgrep report is empty');
  if (sniff.shape !== 'json-object') throw new ParseError('Semgrep report must be a JSON object');
  if (headIsWholeDocument(sniff) && !sniff.topKeys.includes('results') && !sniff.topKeys.includes('vulns')) {
    throw new ParseError('Semgrep report has neither "results" nor "vulns"');
  }
  let toolVersion: string | null = null;
  const seen = new Set<string>();
  const paths = ['$.version', '$.results.*', '$.vulns.*'];
  for await (const { value, path } of streamJsonValues(readBytes(input), { paths })) {
    if (path[0] === 'version') {
      // `version` is written before `results`, so it is known by the time findings are built.
      toolVersion = nonBlank(value);
      continue;
    }
    if (typeof path[1] !== 'number') throw new ParseError(`Semgrep "${path[0]}" must be an array`);
    if (!isRecord(value)) throw new ParseError(`Semgrep ${path[0]} entry must be a JSON object`);
    const finding = path[0] === 'vulns' ? appVuln(value) : cliResult(value, toolVersion);
    const key = twinKey(finding);
    if (seen.has(key)) continue;
    seen.add(key);
    yield finding;
  }
}

export const semgrep: ParserModule = { name: 'semgrep', displayName: 'Semgrep', detect, parse };
