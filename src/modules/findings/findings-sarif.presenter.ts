import type { Severity } from '../../domain/findings/severity.ts';
import type { FindingRecord } from './findings.schema.ts';

/**
 * SARIF 2.1.0 pieces for the findings export, shaped for GitHub code scanning: one run per tool,
 * relative artifact URIs, `region.startLine` ≥ 1, the scanhub fingerprint in `partialFingerprints`,
 * and rules with `properties.security-severity` (GitHub's severity bands: ≥ 9 critical, ≥ 7 high,
 * ≥ 4 medium, > 0 low).
 *
 * The concern (domain/findings/concern.ts): every result carries `properties.concern`. A rule of
 * security findings is tagged `security` and has a `security-severity`, which GitHub shows as a
 * security alert (Critical … Low); a rule of quality findings has neither, only a `quality` tag, so
 * GitHub files it with code-quality tools' alerts under the result's level (error, warning, note).
 * A rule reported with both concerns is a security rule.
 */

export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';
export const FINGERPRINT_KEY = 'scanhub/v1';

const SECURITY_SEVERITY: Record<Severity, string> = {
  critical: '9.5',
  high: '8.0',
  medium: '5.5',
  low: '2.5',
  info: '0.0',
};

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
  info: 'note',
};

export interface SarifRule {
  id: string;
  shortDescription: { text: string };
  helpUri?: string;
  /** `security-severity` on security rules only. */
  properties: { 'security-severity'?: string; tags: string[] };
}

/** The rule id a finding is filed under: the tool's, else its first CVE, else its kind. */
export function ruleIdOf(finding: FindingRecord): string {
  return finding.rule_id ?? finding.cve_ids[0] ?? `scanhub/${finding.kind}`;
}

/** An `http(s)` link fit for `helpUri`, or undefined. */
function httpLink(references: readonly string[]): string | undefined {
  for (const reference of references) {
    try {
      const url = new URL(reference);
      if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
    } catch {
      // not a URL (a CVE id): skip
    }
  }
  return undefined;
}

/**
 * A repository-relative URI reference: no leading slash or `./`, spaces and `%` escaped. Scanners
 * write what they like in a path (`file:///…`, `C:\\…`, `javascript:…`, `data:…`); a consumer that
 * resolves the URI must never get an absolute or schemed one. A `file:` URI and a drive letter lose
 * their prefix; any other `:` in the first segment is escaped, so the text reads as a path (RFC 3986
 * §4.2), and `?`/`#` are escaped so nothing is taken for a query or fragment.
 */
export function relativeUri(path: string): string {
  const trimmed = path
    .replace(/\\/g, '/')
    .replace(/^file:(\/\/[^/]*)?/i, '')
    .replace(/^\/*[A-Za-z]:(\/|$)/, '')
    .replace(/^(\.\/|\/)+/, '');
  const [first = '', ...rest] = encodeURI(trimmed).replace(/[?#]/g, encodeURIComponent).split('/');
  return [first.replace(/:/g, '%3A'), ...rest].join('/');
}

export function ruleOf(finding: FindingRecord): SarifRule {
  const help = httpLink(finding.references);
  const cwes = finding.cwe_ids.map((cwe) => `external/cwe/cwe-${cwe}`);
  return {
    id: ruleIdOf(finding),
    shortDescription: { text: finding.title || ruleIdOf(finding) },
    ...(help ? { helpUri: help } : {}),
    properties:
      finding.concern === 'quality'
        ? { tags: ['quality', ...cwes] }
        : { 'security-severity': SECURITY_SEVERITY[finding.severity], tags: ['security', ...cwes] },
  };
}

/**
 * A rule seen again: a security finding makes it a security rule (its `quality` tag becomes
 * `security`), and a more severe security finding raises its `security-severity`.
 */
export function mergeRule(known: SarifRule, finding: FindingRecord): void {
  if (finding.concern === 'quality') return;
  const { properties } = known;
  const score = SECURITY_SEVERITY[finding.severity];
  const current = properties['security-severity'];
  if (current === undefined || Number(score) > Number(current)) properties['security-severity'] = score;
  if (!properties.tags.includes('security'))
    properties.tags = ['security', ...properties.tags.filter((tag) => tag !== 'quality')];
}

export function resultOf(finding: FindingRecord): Record<string, unknown> {
  const location =
    finding.file_path !== null && finding.file_path !== ''
      ? [
          {
            physicalLocation: {
              artifactLocation: { uri: relativeUri(finding.file_path) },
              ...(finding.line !== null && finding.line >= 1
                ? {
                    region: {
                      startLine: finding.line,
                      ...(finding.location.column !== null && finding.location.column >= 1
                        ? { startColumn: finding.location.column }
                        : {}),
                    },
                  }
                : {}),
            },
          },
        ]
      : [];
  return {
    ruleId: ruleIdOf(finding),
    level: LEVEL[finding.severity],
    message: { text: finding.title || ruleIdOf(finding) },
    ...(location.length > 0 ? { locations: location } : {}),
    partialFingerprints: { [FINGERPRINT_KEY]: finding.fingerprint },
    properties: {
      'scanhub-id': finding.id,
      'scanhub-status': finding.status,
      'scanhub-severity': finding.severity,
      concern: finding.concern,
      'risk-score': finding.risk_score,
    },
  };
}

/** Opening of the log up to the first run. */
export function sarifStart(): string {
  return `{"$schema":${JSON.stringify(SARIF_SCHEMA_URI)},"version":"2.1.0","runs":[`;
}

/** A run's tool, written after its results: rules are collected while the results stream out. */
export function sarifRunEnd(tool: string, rules: Iterable<SarifRule>): string {
  const driver = { name: tool || 'scanhub', rules: [...rules] };
  return `],"tool":${JSON.stringify({ driver })}}`;
}
