import { sarifConcern } from '../../../domain/findings/concern.ts';
import { asArray, asIndex, asRecord, asText, isRecord, unique } from './json-value.ts';
import type { JsonRecord } from './json-value.ts';
import { severityFromScore } from './severity.ts';
import { placeOf } from './sarif-location.ts';
import type { SarifPlace } from './sarif-location.ts';
import { findComponent, findRule } from './sarif-run.ts';
import { asSecretFinding, isSecretResult } from './sarif-secret.ts';
import type { RunMeta } from './sarif-run.ts';
import {
  messageString,
  renderMessage,
  securityScore,
  severityFromLevel,
  securitySeverityWord,
  titleFrom,
} from './sarif-text.ts';
import { emptyFinding } from './types.ts';
import type { NormalizedFinding, Severity } from './types.ts';
import { DISMISSED_BY_TOOL } from '../../../domain/findings/lifecycle.ts';

const CVE = /\bCVE-\d{4}-\d{4,}\b/gi;
/** Rule ids that name a vulnerability in a package rather than a code pattern (Grype, Trivy, Snyk, OSV). */
const VULNERABILITY_ID =
  /^(CVE-\d{4}-\d{4,}|GHSA(-[23456789cfghjmpqrvwx]{4}){3}|SNYK-|PYSEC-|RUSTSEC-|GO-\d{4}-|OSV-)/i;
const NO_PLACE: SarifPlace = { filePath: null, line: null, column: null, endLine: null, snippet: null };

function cweNumber(value: unknown): number | undefined {
  const match = /^(?:CWE-?)?(\d+)$/i.exec(String(value ?? '').trim());
  const n = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** CWE ids behind a `reportingDescriptorReference` (rule relationship target or result taxon). */
function cweOfReference(meta: RunMeta, reference: unknown): number | undefined {
  const ref = asRecord(reference);
  if (!ref) return undefined;
  const taxonomy = findComponent(meta, ref['toolComponent'], 'taxonomy');
  const taxonomyName = asText(taxonomy?.['name']) ?? asText(asRecord(ref['toolComponent'])?.['name']);
  let id = asText(ref['id']);
  const index = asIndex(ref['index']);
  if (id === undefined && index !== undefined)
    id = asText(asRecord(asArray(taxonomy?.['taxa'])[index])?.['id']);
  if (id === undefined) return undefined;
  if (taxonomyName?.toUpperCase() === 'CWE' || /^CWE-\d+$/i.test(id)) return cweNumber(id);
  return undefined;
}

/** CWE ids a `properties` bag names: `cwe` values and CWE tags. */
function cwesOfProperties(properties: JsonRecord | undefined, ids: (number | undefined)[]): void {
  const cwe = properties?.['cwe'];
  for (const value of Array.isArray(cwe) ? cwe : [cwe]) ids.push(cweNumber(value));
  for (const tag of asArray(properties?.['tags'])) {
    // `external/cwe/cwe-079` (CodeQL), `CWE-346` or `CWE-346: Origin Validation Error` (Semgrep)
    const match = typeof tag === 'string' ? /^(?:external\/cwe\/)?cwe-(\d+)\b/i.exec(tag.trim()) : null;
    if (match) ids.push(cweNumber(match[1]));
  }
}

/** CVE ids in strings: matched, upper-cased. */
function cvesIn(sources: unknown[]): string[] {
  return sources.flatMap((source) =>
    typeof source === 'string' ? (source.match(CVE) ?? []).map((id) => id.toUpperCase()) : [],
  );
}

/** What a rule gives every one of its results: worked out once per rule, not once per result. */
interface RuleFacts {
  /** CWE ids of its relationships and properties, in that order. */
  cwes: number[];
  /** CVE ids in its id, name, tags and property values (identifiers only: descriptions often mention related but different CVEs). */
  cves: string[];
  shortDescription: string | undefined;
  fullDescription: string | undefined;
  helpText: string | undefined;
  remediation: string | null;
  /** Its `helpUri`, and a bare link in `help.text` (Dockle and others put one there). */
  links: string[];
  /** Its `properties.tags` (strings only), for the concern. */
  tags: string[];
  /** Whether its properties carry a `security-severity`. */
  securitySeverity: boolean;
}

const NO_RULE: RuleFacts = {
  cwes: [],
  cves: [],
  shortDescription: undefined,
  fullDescription: undefined,
  helpText: undefined,
  remediation: null,
  links: [],
  tags: [],
  securitySeverity: false,
};

/** Keyed by the rule object of a run's metadata, which lives as long as the parse of its upload. */
const factsByRule = new WeakMap<JsonRecord, RuleFacts>();

function ruleFacts(meta: RunMeta, rule: JsonRecord | undefined): RuleFacts {
  if (rule === undefined) return NO_RULE;
  const known = factsByRule.get(rule);
  if (known) return known;
  const cwes: (number | undefined)[] = [];
  for (const relationship of asArray(rule['relationships'])) {
    cwes.push(cweOfReference(meta, asRecord(relationship)?.['target']));
  }
  const properties = asRecord(rule['properties']);
  cwesOfProperties(properties, cwes);
  const helpUri = asText(rule['helpUri']);
  const helpText = asText(asRecord(rule['help'])?.['text']);
  const facts: RuleFacts = {
    cwes: cwes.filter((id): id is number => id !== undefined),
    cves: cvesIn([
      rule['id'],
      rule['name'],
      ...asArray(properties?.['tags']),
      ...Object.values(properties ?? {}),
    ]),
    shortDescription: messageString(rule['shortDescription']),
    fullDescription: messageString(rule['fullDescription']),
    helpText,
    remediation: asText(asRecord(rule['help'])?.['markdown']) ?? helpText ?? null,
    links: unique([
      ...(helpUri !== undefined ? [helpUri] : []),
      ...(helpText !== undefined && /^https?:\/\/\S+$/.test(helpText.trim()) ? [helpText.trim()] : []),
    ]),
    tags: stringsOf(properties?.['tags']),
    securitySeverity: properties?.['security-severity'] !== undefined,
  };
  factsByRule.set(rule, facts);
  return facts;
}

const stringsOf = (value: unknown): string[] =>
  asArray(value).filter((item): item is string => typeof item === 'string');

/**
 * Security or quality (domain/findings/concern.ts): tags and `security-severity` of the rule and of
 * the result itself, then the tool. Depends on nothing but this result and its rule.
 */
function concernOf(
  meta: RunMeta,
  facts: RuleFacts,
  result: JsonRecord,
  ruleId: string | null,
  cwes: number[],
) {
  const properties = asRecord(result['properties']);
  return sarifConcern({
    toolName: meta.toolName,
    ruleId,
    tags: [...facts.tags, ...stringsOf(properties?.['tags'])],
    cweIds: cwes,
    hasSecuritySeverity: facts.securitySeverity || properties?.['security-severity'] !== undefined,
  });
}

/** The rule's CWE ids, then the result's own (properties, taxa). */
function cweIds(meta: RunMeta, facts: RuleFacts, result: JsonRecord): number[] {
  const ids: (number | undefined)[] = [...facts.cwes];
  cwesOfProperties(asRecord(result['properties']), ids);
  for (const taxon of asArray(result['taxa'])) ids.push(cweOfReference(meta, taxon));
  return unique(ids.filter((id): id is number => id !== undefined));
}

/** CVE ids of the result's rule id, then of its rule. */
const cveIds = (facts: RuleFacts, result: JsonRecord): string[] =>
  unique([...cvesIn([result['ruleId']]), ...facts.cves]);

function severityOf(
  meta: RunMeta,
  rule: JsonRecord | undefined,
  result: JsonRecord,
): [Severity, number | null] {
  const raw =
    asRecord(result['properties'])?.['security-severity'] ??
    asRecord(rule?.['properties'])?.['security-severity'];
  const score = securityScore(raw);
  if (score !== undefined) return [severityFromScore(score), score];
  const word = securitySeverityWord(raw);
  if (word !== undefined) return [word, null];
  const level =
    asText(result['level']) ?? asText(asRecord(rule?.['defaultConfiguration'])?.['level']) ?? 'warning';
  return [severityFromLevel(level.toLowerCase(), meta.toolName), null];
}

/** The tool's identity for the result: `partialFingerprints`, else `fingerprints`, keys sorted. */
function toolFingerprintOf(result: JsonRecord): string | null {
  for (const source of [result['partialFingerprints'], result['fingerprints']]) {
    const entries = Object.entries(asRecord(source) ?? {}).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '',
    );
    if (entries.length > 0) {
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return entries.map(([key, value]) => `${key}:${value}`).join('|');
    }
  }
  return null;
}

/**
 * An explicit suppression (`kind` inSource/external) is an assertion that the result is not a
 * problem, unless its review status says it is still under review or was rejected.
 */
function isSuppressed(result: JsonRecord): boolean {
  return asArray(result['suppressions']).some((s) => {
    const status = isRecord(s) ? asText(s['status']) : undefined;
    return isRecord(s) && (status === undefined || status === 'accepted');
  });
}

/** `Package: x` / `Installed Version: y` / `Fixed Version: z` lines (Grype and Trivy help texts). */
function packageField(texts: (string | undefined)[], label: RegExp): string | null {
  for (const text of texts) {
    const value =
      text === undefined
        ? undefined
        : new RegExp(`^\\s*${label.source}:[ \\t]*(\\S[^\\n]*?)\\s*$`, 'im').exec(text)?.[1];
    if (value !== undefined) return value;
  }
  return null;
}

/** Maps one SARIF result to one finding per location (none when the result is not a failure). */
export function mapResult(meta: RunMeta, result: JsonRecord): NormalizedFinding[] {
  if ((asText(result['kind']) ?? 'fail') !== 'fail') return [];
  const entry = findRule(meta, result);
  const rule = entry?.rule;
  const components = unique([entry?.component, meta.driver].filter(isRecord));
  const message = renderMessage(result['message'], rule, components);
  const facts = ruleFacts(meta, rule);
  const { shortDescription, fullDescription, helpText, remediation } = facts;
  const ruleId =
    asText(result['ruleId']) ?? asText(asRecord(result['rule'])?.['id']) ?? asText(rule?.['id']) ?? null;
  const [severity, severityScore] = severityOf(meta, rule, result);
  const cves = cveIds(facts, result);
  const references = unique([
    ...facts.links,
    ...cves.map((cve) => `https://nvd.nist.gov/vuln/detail/${cve}`),
  ]);
  const descriptionBase = fullDescription ?? shortDescription;
  const description =
    [descriptionBase, message !== undefined && message !== descriptionBase?.trim() ? message : undefined]
      .filter((part): part is string => part !== undefined)
      .join('\n\n') || null;
  const title = titleFrom(message ?? shortDescription ?? asText(rule?.['name']) ?? ruleId ?? 'SARIF result');
  const locations = asArray(result['locations']);
  const places = locations.length === 0 ? [NO_PLACE] : locations.map((location) => placeOf(meta, location));
  const baseFingerprint = toolFingerprintOf(result);
  const packageTexts = [message, helpText];
  const cwes = cweIds(meta, facts, result);
  const initialStatus = isSuppressed(result) ? DISMISSED_BY_TOOL : null;
  const isSecret = isSecretResult(meta.toolName, rule, result);
  const concern = concernOf(meta, facts, result, ruleId, cwes);

  const findings = places.map((place): NormalizedFinding => {
    // Grype/Trivy report a vulnerable package at a manifest or archive path: no code snippet to show.
    const isDependency = ruleId !== null && VULNERABILITY_ID.test(ruleId) && place.snippet === null;
    const packageName = isDependency ? packageField(packageTexts, /Package/) : null;
    const packageVersion = isDependency ? packageField(packageTexts, /(?:Installed )?Version/) : null;
    // Grype's message is a long sentence about the archive path; "CVE in package version" reads
    // like every other dependency finding. The message stays in the description.
    const dependencyTitle =
      packageName === null
        ? null
        : [cves[0] ?? ruleId, 'in', packageName, packageVersion].filter(Boolean).join(' ');
    return {
      ...emptyFinding({
        kind: isDependency ? 'dependency' : 'code',
        concern,
        title: dependencyTitle ?? title,
        severity,
        toolName: meta.toolName,
      }),
      severityScore,
      description,
      remediation,
      ruleId,
      ...place,
      packageName,
      packageVersion,
      fixedVersion: isDependency ? packageField(packageTexts, /Fix(?:ed)? Version/) : null,
      cveIds: cves,
      cweIds: cwes,
      // For package vulnerabilities these tools fill security-severity with the CVSS base score.
      cvssScore: isDependency ? severityScore : null,
      references,
      // A result with several locations (mobsfscan) is several findings sharing one tool fingerprint.
      toolFingerprint:
        baseFingerprint !== null && places.length > 1
          ? `${baseFingerprint}|location:${place.filePath ?? ''}`
          : baseFingerprint,
      category: meta.category,
      initialStatus,
      toolVersion: meta.toolVersion,
    };
  });
  return isSecret ? findings.map((finding) => asSecretFinding(finding, result)) : findings;
}
