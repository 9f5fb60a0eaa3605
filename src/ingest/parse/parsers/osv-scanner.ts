import { componentOf, purlTypeOfEcosystem } from './components.ts';
import { cvss3BaseScore, dependencyTitle, upgradeRemediation } from './dependency-helpers.ts';
import { openJson, requireJsonShape } from './json-input.ts';
import { cveIdsFrom, parseCweIds } from './identifiers.ts';
import { isSeverityWord, severityFromScore, severityFromWord } from './severity.ts';
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
  type Severity,
  type Sniff,
} from './types.ts';

const TOOL = 'OSV-Scanner';

/**
 * Loose version order, enough to find which OSV range holds a version: numeric runs compare as
 * numbers, and a number beats a word so that pre-releases sort first ("3.2a1" < "3.2.4").
 */
export function compareVersions(a: string, b: string): number {
  const left = a.toLowerCase().match(/\d+|[a-z]+/g) ?? [];
  const right = b.toLowerCase().match(/\d+|[a-z]+/g) ?? [];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i] ?? '0';
    const y = right[i] ?? '0';
    const xNumeric = /^\d/.test(x);
    const yNumeric = /^\d/.test(y);
    const order =
      xNumeric && yNumeric
        ? Number(x) - Number(y)
        : xNumeric !== yNumeric
          ? xNumeric
            ? 1
            : -1
          : x.localeCompare(y);
    if (order !== 0) return order;
  }
  return 0;
}

/**
 * The fix for the installed version: the `fixed` event closing the range that contains it. Without
 * an installed version, or when no range holds it, every fixed version is listed.
 */
function fixedVersionOf(affected: JsonRecord[], installed: string | null): string | null {
  const fixes: string[] = [];
  for (const entry of affected) {
    for (const range of asArray(entry['ranges']).map(asRecordOrEmpty)) {
      // GIT ranges name commits, not versions a user could upgrade to.
      if (asString(range['type']) === 'GIT') continue;
      let introduced = '0';
      for (const event of asArray(range['events']).map(asRecordOrEmpty)) {
        introduced = asString(event['introduced']) ?? introduced;
        const fixed = asString(event['fixed']);
        if (fixed === null) continue;
        fixes.push(fixed);
        const inRange =
          installed !== null &&
          (introduced === '0' || compareVersions(installed, introduced) >= 0) &&
          compareVersions(installed, fixed) < 0;
        if (inRange) return fixed;
      }
    }
  }
  return fixes.length === 0 ? null : unique(fixes).join(', ');
}

interface Rating {
  severity: Severity;
  score: number | null;
  vector: string | null;
}

/**
 * The database's severity word (GitHub advisories) wins; else OSV-Scanner's group `max_severity`;
 * else the CVSS vector's score. With nothing at all DefectDojo says Low, and so does scanhub: an
 * OSV entry is a known vulnerability (or malware), never "no risk".
 */
function rateVulnerability(vulnerability: JsonRecord, groups: JsonRecord[]): Rating {
  const vector =
    asArray(vulnerability['severity'])
      .map(asRecordOrEmpty)
      .filter((entry) => /^CVSS_V[34]$/.test(asString(entry['type']) ?? ''))
      .map((entry) => asString(entry['score']))
      .find((score) => score !== null) ?? null;
  const id = asString(vulnerability['id']);
  const group = groups.find((candidate) => id !== null && asStringArray(candidate['ids']).includes(id));
  const score = asNumber(group?.['max_severity']) ?? (vector === null ? null : cvss3BaseScore(vector));
  const word = asRecordOrEmpty(vulnerability['database_specific'])['severity'];
  if (isSeverityWord(word)) return { severity: severityFromWord(word), score, vector };
  return { severity: score === null ? 'low' : severityFromScore(score), score, vector };
}

function vulnerabilityFinding(
  vulnerability: JsonRecord,
  pkg: JsonRecord,
  groups: JsonRecord[],
  sourcePath: string | null,
): NormalizedFinding | null {
  const id = asString(vulnerability['id']);
  if (id === null) return null;
  const packageName = asString(pkg['name']);
  // Git sources have no package name or version, only the scanned commit.
  const packageVersion = asString(pkg['version']) ?? asString(pkg['commit']);
  const affected = asArray(vulnerability['affected']).map(asRecordOrEmpty);
  const ownAffected = affected.filter(
    (entry) => asString(asRecordOrEmpty(entry['package'])['name']) === packageName,
  );
  const fixedVersion = fixedVersionOf(
    ownAffected.length > 0 ? ownAffected : affected,
    asString(pkg['version']),
  );
  const { severity, score, vector } = rateVulnerability(vulnerability, groups);
  const aliases = asStringArray(vulnerability['aliases']);
  const groupAliases = groups
    .filter((group) => asStringArray(group['ids']).includes(id))
    .flatMap((group) => asStringArray(group['aliases']));
  const summary = asString(vulnerability['summary']);
  const details = asString(vulnerability['details']);
  return {
    ...emptyFinding({
      kind: 'dependency',
      title: dependencyTitle(id, packageName ?? packageVersion, packageName === null ? null : packageVersion),
      severity,
      toolName: TOOL,
    }),
    severityScore: score,
    cvssScore: score,
    cvssVector: vector,
    description: [summary, details].filter((text) => text !== null).join('\n\n') || null,
    remediation: upgradeRemediation(packageName, fixedVersion),
    ruleId: id,
    filePath: sourcePath,
    packageName,
    packageVersion,
    fixedVersion,
    cveIds: cveIdsFrom([id, ...aliases, ...groupAliases]),
    cweIds: parseCweIds([
      ...affected.map((entry) => asRecordOrEmpty(entry['database_specific'])['cwes']),
      asRecordOrEmpty(vulnerability['database_specific'])['cwe_ids'],
    ]),
    references: unique(
      asArray(vulnerability['references'])
        .map((reference) => asString(asRecordOrEmpty(reference)['url']))
        .filter((url) => url !== null),
    ),
  };
}

/** The package a result lists (with its vulnerabilities): OSV-Scanner lists no others. */
function reportPackage(facts: ReportFacts | undefined, pkg: JsonRecord): void {
  const name = asString(pkg['name']);
  if (facts?.component === undefined || name === null) return;
  facts.component(
    componentOf({
      type: purlTypeOfEcosystem(asString(pkg['ecosystem'])),
      name,
      version: asString(pkg['version']),
    }),
  );
}

async function* parseOsv(input: ParserInput, facts?: ReportFacts): AsyncGenerator<NormalizedFinding> {
  // DefectDojo reads a zero-byte file as "no findings". scanhub refuses it: an empty upload looks
  // exactly like a crashed scan, and reading it as clean would mark every open finding fixed.
  requireJsonShape(input, ['json-object'], TOOL);
  if (!input.sniff.topKeys.includes('results'))
    throw new ParseError('OSV-Scanner: the report has no "results"');
  // Results are streamed one package at a time; `source` precedes `packages` in OSV-Scanner output.
  const sources = new Map<number, string | null>();
  const paths = ['$.results.*.source', '$.results.*.packages.*'];
  for await (const { value, path } of streamJsonValues(openJson(input), { paths })) {
    const resultIndex = path[1];
    if (typeof resultIndex !== 'number' || !isRecord(value)) continue;
    if (path[2] === 'source') {
      sources.set(resultIndex, asString(value['path']));
      continue;
    }
    const pkg = asRecordOrEmpty(value['package']);
    reportPackage(facts, pkg);
    const groups = asArray(value['groups']).map(asRecordOrEmpty);
    for (const vulnerability of asArray(value['vulnerabilities'])) {
      if (!isRecord(vulnerability)) continue;
      const finding = vulnerabilityFinding(vulnerability, pkg, groups, sources.get(resultIndex) ?? null);
      if (finding !== null) yield finding;
    }
  }
}

function detectOsv(sniff: Sniff): boolean {
  if (sniff.shape !== 'json-object' || !sniff.topKeys.includes('results')) return false;
  if (sniff.topKeys.includes('experimental_config')) return true;
  return /"results"\s*:\s*\[\s*\{\s*"source"\s*:\s*\{\s*"path"\s*:/.test(sniff.head);
}

export const osvScanner: ParserModule = {
  name: 'osv_scanner',
  displayName: 'OSV-Scanner',
  detect: detectOsv,
  parse: parseOsv,
};
