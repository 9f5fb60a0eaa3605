import { componentOf } from './components.ts';
import { openJson, requireJsonShape } from './json-input.ts';
import { parseCweIds } from './identifiers.ts';
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
/** CWE-1035 "Using Components with Known Vulnerabilities": what a merely transitive entry is. */
const TRANSITIVE_CWE = 1035;
const GHSA_PATTERN = /GHSA(?:-[23456789cfghjmpqrvwx]{4}){3}/;

function advisoryId(advisory: JsonRecord): string | null {
  return GHSA_PATTERN.exec(asString(advisory['url']) ?? '')?.[0] ?? asString(advisory['source']);
}

function cvssScore(advisory: JsonRecord): number {
  return asNumber(asRecordOrEmpty(advisory['cvss'])['score']) ?? 0;
}

function fixOf(entry: JsonRecord, name: string): { remediation: string | null; fixedVersion: string | null } {
  const fix = entry['fixAvailable'];
  if (fix === true) return { remediation: 'Run `npm audit fix`', fixedVersion: null };
  if (!isRecord(fix)) return { remediation: null, fixedVersion: null };
  const fixName = asString(fix['name']);
  const version = asString(fix['version']);
  if (fixName === null || version === null) return { remediation: null, fixedVersion: null };
  // The fix is often an upgrade of a parent package; only then is it this package's fixed version.
  const major = fix['isSemVerMajor'] === true ? ' (a semver-major upgrade)' : '';
  return {
    remediation: `Upgrade ${fixName} to ${version}${major}`,
    fixedVersion: fixName === name ? version : null,
  };
}

/**
 * One finding per vulnerable package, as `npm audit` counts them. Packages that are only vulnerable
 * through a dependency (`via` lists names, not advisories) are findings too, as in DefectDojo.
 */
function packageFinding(entry: JsonRecord, key: string): NormalizedFinding {
  const name = asString(entry['name']) ?? key;
  const via = asArray(entry['via']);
  const advisories = via.filter(isRecord);
  const dependencies = asStringArray(via);
  const [first] = advisories;
  // The package's severity is that of its worst advisory, so its score and vector go with it.
  const worst = advisories.reduce<JsonRecord | undefined>(
    (best, advisory) => (best === undefined || cvssScore(advisory) > cvssScore(best) ? advisory : best),
    undefined,
  );
  const score = worst === undefined ? null : cvssScore(worst) || null;
  const range = asString(entry['range']);
  const title =
    first === undefined
      ? `${name}: depends on vulnerable ${dependencies.join(', ') || 'packages'}`
      : `${asString(first['title']) ?? advisoryId(first) ?? 'Vulnerability'} (${name})`;
  const description = [
    ...advisories.map((advisory) =>
      `${asString(advisory['title']) ?? ''} ${asString(advisory['url']) ?? ''}`.trim(),
    ),
    ...dependencies.map((dependency) => `Depends on vulnerable versions of ${dependency}`),
    range === null ? null : `Affected versions of ${name}: ${range}`,
  ];
  return {
    ...emptyFinding({
      kind: 'dependency',
      title,
      severity: severityFromWord(entry['severity']),
      toolName: TOOL,
    }),
    ...fixOf(entry, name),
    severityScore: score,
    cvssScore: score,
    cvssVector: worst === undefined ? null : asString(asRecordOrEmpty(worst['cvss'])['vectorString']),
    description: description.filter((line) => line !== null && line !== '').join('\n') || null,
    ruleId: first === undefined ? null : advisoryId(first),
    // npm 7 names no manifest and no installed version; the first install location stands in.
    filePath: asStringArray(entry['nodes'])[0] ?? null,
    packageName: name,
    cweIds:
      first === undefined ? [TRANSITIVE_CWE] : parseCweIds(advisories.map((advisory) => advisory['cwe'])),
    references: unique(advisories.map((advisory) => asString(advisory['url'])).filter((url) => url !== null)),
  };
}

/**
 * The vulnerable package an entry names, as a component: npm 7+ reports name no installed version,
 * so it is stored without one (found by name or package URL, never by a version range).
 */
function reportPackage(facts: ReportFacts | undefined, entry: JsonRecord, key: string): void {
  if (facts?.component === undefined) return;
  const isDirect = entry['isDirect'];
  facts.component(
    componentOf({
      type: 'npm',
      name: asString(entry['name']) ?? key,
      version: null,
      direct: typeof isDirect === 'boolean' ? isDirect : null,
    }),
  );
}

async function* parseNpmAudit7(input: ParserInput, facts?: ReportFacts): AsyncGenerator<NormalizedFinding> {
  requireJsonShape(input, ['json-object'], TOOL);
  const keys = input.sniff.topKeys;
  if (!keys.includes('auditReportVersion') && !keys.includes('audit')) {
    throw new ParseError('npm audit: not an npm 7+ report (no auditReportVersion)');
  }
  // `npm audit fix --dry-run --json` nests the same report under `audit`.
  const paths = [
    '$.auditReportVersion',
    '$.vulnerabilities.*',
    '$.audit.auditReportVersion',
    '$.audit.vulnerabilities.*',
  ];
  let versionSeen = false;
  for await (const { value, path } of streamJsonValues(openJson(input), { paths })) {
    const key = path.at(-1);
    if (key === 'auditReportVersion') {
      if ((asNumber(value) ?? 0) < 2) throw new ParseError('npm audit: unsupported auditReportVersion');
      versionSeen = true;
    } else if (isRecord(value) && typeof key === 'string') {
      // npm writes the version first; a report that does not is not npm's.
      if (!versionSeen) throw new ParseError('npm audit: vulnerabilities before auditReportVersion');
      reportPackage(facts, value, key);
      yield packageFinding(value, key);
    }
  }
  if (!versionSeen) throw new ParseError('npm audit: not an npm 7+ report (no auditReportVersion)');
}

function detectNpmAudit7(sniff: Sniff): boolean {
  if (sniff.shape !== 'json-object') return false;
  if (sniff.topKeys.includes('auditReportVersion')) return sniff.topKeys.includes('vulnerabilities');
  return sniff.topKeys.includes('audit') && /"audit"\s*:\s*\{\s*"auditReportVersion"\s*:/.test(sniff.head);
}

export const npmAudit7Plus: ParserModule = {
  name: 'npm_audit_7_plus',
  displayName: 'npm audit (v7+)',
  detect: detectNpmAudit7,
  parse: parseNpmAudit7,
};
