import { firstCweId } from './identifiers.ts';
import { streamJsonValues } from './json-stream.ts';
import { childRecord, isRecord, type JsonRecord, nonBlank } from './json-value.ts';
import { severityIn, STANDARD_SEVERITIES } from './severity.ts';
import { ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, Severity, Sniff } from './types.ts';
import { readBytes } from './json-input.ts';
import { DISMISSED_BY_TOOL } from '../../../domain/findings/lifecycle.ts';

/**
 * GitLab security reports (`gl-sast-report.json`, `gl-dependency-scanning-report.json`,
 * `gl-container-scanning-report.json`) share one schema: `{ version, vulnerabilities: [...],
 * remediations?, dependency_files?, scan?: { scanner, type } }`. These are the schema helpers the
 * three GitLab parsers share.
 */

/** Every top-level key the GitLab schemas (v2–v15) allow; anything else is another tool's report. */
const GITLAB_KEYS = new Set([
  'version',
  'vulnerabilities',
  'remediations',
  'dependency_files',
  'scan',
  'schema',
]);
const SCAN_TYPES =
  'sast|dependency_scanning|container_scanning|cluster_image_scanning|secret_detection|dast|api_fuzzing|coverage_fuzzing';

/**
 * Which GitLab report this is, or null when it is not one. `scan.type` says so from schema v14 on;
 * older reports say it per vulnerability (`category`) or only by what their locations look like.
 * A report with neither (an empty v2 report) is SAST, the only analyzer family that wrote them.
 */
export function gitlabReportType(sniff: Sniff): string | null {
  const keys = sniff.topKeys;
  if (sniff.shape !== 'json-object' || !keys.includes('vulnerabilities') || !keys.includes('version'))
    return null;
  if (!keys.every((key) => GITLAB_KEYS.has(key))) return null;
  // Identifier objects also have "type" keys, but never one of the scan type words.
  const declared = new RegExp(`"scan"\\s*:\\s*\\{[\\s\\S]*?"type"\\s*:\\s*"(${SCAN_TYPES})"`).exec(
    sniff.head,
  );
  if (declared?.[1] !== undefined) return declared[1];
  const category = new RegExp(`"category"\\s*:\\s*"(${SCAN_TYPES})"`).exec(sniff.head);
  if (category?.[1] !== undefined) return category[1];
  if (keys.includes('dependency_files')) return 'dependency_scanning';
  if (/"operating_system"\s*:|"image"\s*:/.test(sniff.head)) return 'container_scanning';
  return 'sast';
}

/** GitLab also says `Unknown` and `Undefined`: no assessment, so `info`. */
export const severityOf = (value: unknown): Severity =>
  severityIn(STANDARD_SEVERITIES, nonBlank(value)) ?? 'info';

export interface GitlabIdentifiers {
  /** The analyzer's own rule or advisory id (first identifier that is not a CWE/CVE/OWASP reference). */
  ruleId: string | null;
  cveIds: string[];
  cweIds: number[];
  references: string[];
}

export function identifiersOf(vuln: JsonRecord): GitlabIdentifiers {
  const result: GitlabIdentifiers = { ruleId: null, cveIds: [], cweIds: [], references: [] };
  const entries = Array.isArray(vuln['identifiers']) ? vuln['identifiers'].filter(isRecord) : [];
  for (const identifier of entries) {
    const type = nonBlank(identifier['type'])?.toLowerCase() ?? '';
    const value = nonBlank(identifier['value']);
    const name = nonBlank(identifier['name']);
    const url = nonBlank(identifier['url']);
    if (url !== null) result.references.push(url);
    if (type === 'cwe') {
      // Usually value "79"; njsscan puts the rule in value and "CWE-798" in name.
      const cwe = /^\d+$/.test(value ?? '') ? Number(value) : (firstCweId(name ?? '') ?? NaN);
      if (Number.isInteger(cwe) && cwe > 0 && !result.cweIds.includes(cwe)) result.cweIds.push(cwe);
    } else if (type === 'cve') {
      const cve = value ?? name;
      if (cve !== null && !result.cveIds.includes(cve)) result.cveIds.push(cve);
    } else if (result.ruleId === null && !type.startsWith('owasp')) {
      // `value` is the machine id, except where an analyzer (njsscan) put prose there and the id in `name`.
      const proseValue = value !== null && /\s/.test(value) && name !== null && !/\s/.test(name);
      result.ruleId = proseValue ? name : (value ?? name);
    }
  }
  const links = Array.isArray(vuln['links']) ? vuln['links'].filter(isRecord) : [];
  for (const link of links) {
    const url = nonBlank(link['url']);
    if (url !== null) result.references.push(url);
  }
  result.references = [...new Set(result.references)];
  return result;
}

/** The report-wide scanner, read in a first pass because `scan` is written after the vulnerabilities. */
export interface GitlabScanner {
  type: string | null;
  name: string | null;
  version: string | null;
}

async function readScanner(input: ParserInput): Promise<GitlabScanner> {
  const scanner: GitlabScanner = { type: null, name: null, version: null };
  for await (const { value, path } of streamJsonValues(readBytes(input), {
    paths: ['$.scan.scanner', '$.scan.type'],
  })) {
    if (path[1] === 'type') scanner.type = nonBlank(value);
    else if (isRecord(value)) {
      scanner.name = nonBlank(value['name']);
      scanner.version = nonBlank(value['version']);
    }
  }
  return scanner;
}

/**
 * Streams the vulnerabilities of a GitLab report of the given type. A report that declares another
 * type is refused rather than misread (e.g. a container report uploaded as SAST).
 */
export async function* streamGitlabVulnerabilities(
  input: ParserInput,
  type: string,
): AsyncGenerator<{ vuln: JsonRecord; scanner: GitlabScanner }> {
  const { sniff } = input;
  if (sniff.shape === 'empty') throw new ParseError('GitLab report is empty');
  if (sniff.shape !== 'json-object') throw new ParseError('GitLab report must be a JSON object');
  if (!sniff.topKeys.includes('vulnerabilities'))
    throw new ParseError('GitLab report has no "vulnerabilities"');
  const scanner = await readScanner(input);
  if (scanner.type !== null && scanner.type !== type) {
    throw new ParseError(`This is a GitLab ${scanner.type} report, not ${type}`);
  }
  for await (const { value, path } of streamJsonValues(readBytes(input), {
    paths: ['$.vulnerabilities.*'],
  })) {
    if (typeof path[1] !== 'number') throw new ParseError('GitLab "vulnerabilities" must be an array');
    if (!isRecord(value)) throw new ParseError('GitLab vulnerability must be a JSON object');
    yield { vuln: value, scanner };
  }
}

/** GitLab marks some findings itself as likely false positives (`flags`). */
export function initialStatusOf(vuln: JsonRecord): typeof DISMISSED_BY_TOOL | null {
  const flags = Array.isArray(vuln['flags']) ? vuln['flags'].filter(isRecord) : [];
  return flags.some((flag) => /false-positive/i.test(nonBlank(flag['type']) ?? ''))
    ? DISMISSED_BY_TOOL
    : null;
}

export function cvssVectorOf(vuln: JsonRecord): string | null {
  const vectors = Array.isArray(vuln['cvss_vectors']) ? vuln['cvss_vectors'].filter(isRecord) : [];
  return vectors.map((entry) => nonBlank(entry['vector'])).find((vector) => vector !== null) ?? null;
}

export interface GitlabPackage {
  name: string | null;
  version: string | null;
}

export function packageOf(location: JsonRecord): GitlabPackage {
  const dependency = childRecord(location, 'dependency');
  return {
    name: nonBlank(childRecord(dependency, 'package')['name']),
    version: nonBlank(dependency['version']),
  };
}

/**
 * Analyzers state the fix only in prose: "Upgrade apt from 1.4.8 to 1.4.9", "Upgrade busybox to
 * 1.34.1-r5", "Upgrade to version 2.2.3 or above.". A version starts with a digit (or v and a digit),
 * so "Upgrade to latest version" yields nothing.
 */
export function fixedVersionFrom(solution: string | null): string | null {
  const match = /\bto\s+(?:versions?\s+)?(v?\d\S*)/i.exec(solution ?? '');
  return match?.[1]?.replace(/[.,;:]+$/, '') ?? null;
}

/**
 * The report's own id for the finding. Some analyzers (GitLab's Trivy wrapper, schema 14) set `id` to
 * the CVE itself, which names the advisory, not the finding: one CVE in five packages would share it,
 * so such an id is not offered as the finding's identity.
 */
export function findingIdOf(vuln: JsonRecord, ids: GitlabIdentifiers): string | null {
  const id = nonBlank(vuln['id']) ?? nonBlank(vuln['cve']);
  return id !== null && (ids.cveIds.includes(id) || ids.ruleId === id) ? null : id;
}

/** The analyzer's name: the report-wide scanner, else the vulnerability's own, else `fallback`. */
export function gitlabToolName(vuln: JsonRecord, scanner: GitlabScanner, fallback: string): string {
  return scanner.name ?? nonBlank(childRecord(vuln, 'scanner')['name']) ?? fallback;
}

/** The finding fields every GitLab report type reads the same way. */
export function gitlabSharedFields(
  vuln: JsonRecord,
  ids: GitlabIdentifiers,
  scanner: GitlabScanner,
): Pick<
  NormalizedFinding,
  'cveIds' | 'cweIds' | 'cvssVector' | 'references' | 'initialStatus' | 'toolVersion'
> {
  return {
    cveIds: ids.cveIds,
    cweIds: ids.cweIds,
    cvssVector: cvssVectorOf(vuln),
    references: ids.references,
    initialStatus: initialStatusOf(vuln),
    toolVersion: scanner.version,
  };
}
