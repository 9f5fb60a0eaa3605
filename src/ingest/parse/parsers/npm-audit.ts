import { componentOf } from './components.ts';
import { openJson, requireJsonShape } from './json-input.ts';
import { cveIdsFrom, parseCweIds } from './identifiers.ts';
import { severityFromWord } from './severity.ts';
import {
  asArray,
  asNumber,
  asRecordOrEmpty,
  asString,
  asStringArray,
  isRecord,
  type JsonRecord,
  unique,
} from './json-value.ts';
import { streamJsonValues } from './json-stream.ts';
import {
  emptyFinding,
  type NormalizedFinding,
  ParseError,
  type ParserInput,
  type ParserModule,
  type ReportFacts,
  type Sniff,
} from './types.ts';

const TOOL = 'npm audit';
/** npm's placeholder range for "no patched version exists". */
const NO_PATCH = '<0.0.0';
const URL_PATTERN = /https?:\/\/[^\s)\]>]+/g;

/**
 * Dependencies installed from git show up in paths as a 64-hex hash that changes on every run; it
 * is replaced so the path (and the fingerprint built on it) stays stable, as DefectDojo does.
 */
export function censorPathHashes(path: string): string {
  return path.replace(/[a-f0-9]{64}/g, 'censored_by_npm_audit');
}

function advisoryFinding(advisory: JsonRecord): NormalizedFinding | null {
  const moduleName = asString(advisory['module_name']);
  const id = asString(advisory['github_advisory_id']) ?? asString(advisory['id']);
  if (moduleName === null || id === null) return null;
  const [firstInstall] = asArray(advisory['findings']).map(asRecordOrEmpty);
  const version = asString(firstInstall?.['version']);
  const [firstPath] = asStringArray(firstInstall?.['paths']);
  const patched = asString(advisory['patched_versions']);
  const cvss = asRecordOrEmpty(advisory['cvss']);
  // npm writes a score of 0 with a null vector when it has no CVSS data.
  const score = asNumber(cvss['score']) || null;
  const url = asString(advisory['url']);
  const title = asString(advisory['title']) ?? id;
  return {
    ...emptyFinding({
      kind: 'dependency',
      title: version === null ? `${title} (${moduleName})` : `${title} (${moduleName} ${version})`,
      severity: severityFromWord(advisory['severity']),
      toolName: TOOL,
    }),
    severityScore: score,
    cvssScore: score,
    cvssVector: asString(cvss['vectorString']),
    description: asString(advisory['overview']),
    remediation: asString(advisory['recommendation']),
    ruleId: id,
    // The report names no manifest; the first dependency path says where the package comes from.
    filePath: firstPath === undefined ? null : censorPathHashes(firstPath),
    packageName: moduleName,
    packageVersion: version,
    fixedVersion: patched === null || patched === NO_PATCH ? null : patched,
    cveIds: cveIdsFrom(asArray(advisory['cves'])),
    cweIds: parseCweIds(advisory['cwe']),
    references: unique([url, ...(asString(advisory['references'])?.match(URL_PATTERN) ?? [])]).filter(
      (link): link is string => link !== null,
    ),
  };
}

/**
 * The installed versions an advisory found (`findings[].version`): components of the report, direct
 * when one of their dependency paths is the package alone. npm 6 lists only vulnerable packages.
 */
function reportInstalls(facts: ReportFacts | undefined, advisory: JsonRecord): void {
  const moduleName = asString(advisory['module_name']);
  if (facts?.component === undefined || moduleName === null) return;
  for (const install of asArray(advisory['findings']).map(asRecordOrEmpty)) {
    const paths = asStringArray(install['paths']);
    facts.component(
      componentOf({
        type: 'npm',
        name: moduleName,
        version: asString(install['version']),
        direct: paths.length === 0 ? null : paths.some((path) => !path.includes('>')),
      }),
    );
  }
}

async function* parseNpmAudit(input: ParserInput, facts?: ReportFacts): AsyncGenerator<NormalizedFinding> {
  requireJsonShape(input, ['json-object'], TOOL);
  const keys = input.sniff.topKeys;
  if (!['advisories', 'actions', 'error', 'auditReportVersion'].some((key) => keys.includes(key))) {
    throw new ParseError('npm audit: the report has no "advisories"');
  }
  const paths = ['$.advisories.*', '$.error', '$.auditReportVersion'];
  for await (const { value, path } of streamJsonValues(openJson(input), { paths })) {
    if (path[0] === 'auditReportVersion') {
      throw new ParseError('npm audit: this is an npm 7+ report (auditReportVersion); use npm_audit_7_plus');
    }
    if (path[0] === 'error') {
      // npm writes this instead of a report when the audit itself failed (e.g. ENOAUDIT).
      const error = asRecordOrEmpty(value);
      const reason = [asString(error['code']), asString(error['summary'])].filter((part) => part !== null);
      throw new ParseError(`npm audit failed: ${reason.join(': ') || 'unknown error'}`);
    }
    if (!isRecord(value)) continue;
    reportInstalls(facts, value);
    const finding = advisoryFinding(value);
    if (finding !== null) yield finding;
  }
}

function detectNpmAudit(sniff: Sniff): boolean {
  if (sniff.shape !== 'json-object' || sniff.topKeys.includes('auditReportVersion')) return false;
  const keys = sniff.topKeys;
  // A long `actions` list can push `advisories` past the sniffed head; detection then reads every
  // top-level key (detect.ts), so the set is complete here when it matters.
  if (keys.includes('advisories') && (keys.includes('actions') || keys.includes('muted'))) return true;
  // The failed-audit document, so the user sees npm's reason instead of "unknown format".
  return (
    keys.length === 1 &&
    keys[0] === 'error' &&
    /"code"\s*:\s*"E[A-Z0-9]+"/.test(sniff.head) &&
    /"summary"\s*:/.test(sniff.head)
  );
}

export const npmAudit: ParserModule = {
  name: 'npm_audit',
  displayName: 'npm audit (v6)',
  detect: detectNpmAudit,
  parse: parseNpmAudit,
};
