import { componentOf, licenseList, purlTypeOfEcosystem } from './components.ts';
import { dependencyTitle, upgradeRemediation } from './dependency-helpers.ts';
import { openJson, requireJsonShape } from './json-input.ts';
import { cveIdsFrom } from './identifiers.ts';
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

const TOOL = 'Grype';
/** Grype writes `descriptor` after `matches`; its tool version is read from the file's tail. */
const TAIL_BYTES = 64 * 1024;
const DESCRIPTOR_VERSION = /"descriptor"\s*:\s*\{\s*"name"\s*:\s*"[^"]*"\s*,\s*"version"\s*:\s*"([^"]+)"/;

interface Cvss {
  score: number;
  vector: string | null;
  version: number;
}

/**
 * Every CVSS entry of a match: current Grype lists `cvss[]` on the vulnerability and on its related
 * (NVD) records; Grype < 0.30 used `cvssV3`/`cvssV2` objects.
 */
function cvssEntries(vulnerability: JsonRecord, related: JsonRecord[]): Cvss[] {
  const entries: Cvss[] = [];
  for (const record of [vulnerability, ...related]) {
    for (const entry of asArray(record['cvss']).map(asRecordOrEmpty)) {
      const score = asNumber(asRecordOrEmpty(entry['metrics'])['baseScore']);
      if (score !== null) {
        entries.push({ score, vector: asString(entry['vector']), version: asNumber(entry['version']) ?? 0 });
      }
    }
    for (const [key, version] of [
      ['cvssV3', 3],
      ['cvssV2', 2],
    ] as const) {
      const legacy = asRecordOrEmpty(record[key]);
      const score = asNumber(legacy['baseScore']);
      if (score !== null) entries.push({ score, vector: asString(legacy['vector']), version });
    }
  }
  return entries;
}

/** The newest CVSS version wins; among equals, the vulnerability's own record comes first. */
function bestCvss(entries: Cvss[]): Cvss | null {
  let best: Cvss | null = null;
  for (const entry of entries) if (best === null || entry.version > best.version) best = entry;
  return best;
}

/** A probability or percentile as FIRST publishes them: a finite number from 0 to 1. */
const unitOrNull = (value: unknown): number | null => {
  const number = asNumber(value);
  return number !== null && Number.isFinite(number) && number >= 0 && number <= 1 ? number : null;
};

/**
 * The report's EPSS: Grype (≥ 0.87) lists `epss[{cve, epss, percentile, date}]` on the vulnerability
 * (and may on its related records). Of the entries naming one of the finding's CVEs (or none), the
 * highest EPSS with its own percentile — the most likely exploited CVE, as the snapshot's is chosen.
 */
function reportEpssOf(
  records: JsonRecord[],
  cveIds: readonly string[],
): { epss: number; percentile: number | null } | null {
  const cves = new Set(cveIds.map((cve) => cve.toUpperCase()));
  let best: { epss: number; percentile: number | null } | null = null;
  for (const record of records) {
    for (const entry of asArray(record['epss']).map(asRecordOrEmpty)) {
      const epss = unitOrNull(entry['epss']);
      const cve = asString(entry['cve']);
      if (epss === null || (cve !== null && !cves.has(cve.toUpperCase()))) continue;
      if (best === null || epss > best.epss) best = { epss, percentile: unitOrNull(entry['percentile']) };
    }
  }
  return best;
}

function fixedVersionOf(vulnerability: JsonRecord): string | null {
  const fix = asRecordOrEmpty(vulnerability['fix']);
  const versions = asStringArray(fix['versions']);
  if (versions.length > 0 && asString(fix['state']) !== 'not-fixed') return versions.join(', ');
  return asString(vulnerability['fixedInVersion']);
}

function firstLocation(artifact: JsonRecord): string | null {
  const [first] = asArray(artifact['locations']);
  return isRecord(first) ? asString(first['path']) : asString(first);
}

function matchFinding(match: JsonRecord, toolVersion: string | null): NormalizedFinding | null {
  const vulnerability = asRecordOrEmpty(match['vulnerability']);
  const artifact = asRecordOrEmpty(match['artifact']);
  const id = asString(vulnerability['id']);
  if (id === null) return null;
  const related = asArray(match['relatedVulnerabilities']).map(asRecordOrEmpty);
  const packageName = asString(artifact['name']);
  const packageVersion = asString(artifact['version']);
  const fixedVersion = fixedVersionOf(vulnerability);
  const cvss = bestCvss(cvssEntries(vulnerability, related));
  const description =
    asString(vulnerability['description']) ??
    related.map((record) => asString(record['description'])).find((text) => text !== null) ??
    null;
  const references = [vulnerability, ...related].flatMap((record) => [
    asString(record['dataSource']),
    ...asStringArray(record['urls']),
    ...asStringArray(record['links']),
  ]);
  // A GHSA match names its CVE only among the related records.
  const cveIds = cveIdsFrom([id, ...related.map((record) => record['id'])]);
  const epss = reportEpssOf([vulnerability, ...related], cveIds);
  return {
    ...emptyFinding({
      kind: 'dependency',
      title: dependencyTitle(id, packageName, packageVersion),
      severity: severityFromWord(vulnerability['severity']),
      toolName: TOOL,
    }),
    severityScore: cvss?.score ?? null,
    cvssScore: cvss?.score ?? null,
    cvssVector: cvss?.vector ?? null,
    description,
    remediation: upgradeRemediation(packageName, fixedVersion),
    ruleId: id,
    filePath: firstLocation(artifact),
    packageName,
    packageVersion,
    fixedVersion,
    cveIds,
    reportEpss: epss?.epss ?? null,
    reportEpssPercentile: epss?.percentile ?? null,
    references: unique(references.filter((url): url is string => url !== null)),
    toolVersion,
  };
}

/** Grype's version from the `descriptor` near the end of the file, without parsing the matches. */
async function readToolVersion(input: ParserInput): Promise<string | null> {
  const fromHead = DESCRIPTOR_VERSION.exec(input.sniff.head)?.[1];
  if (fromHead !== undefined) return fromHead;
  let tail = Buffer.alloc(0);
  const stream = input.open();
  try {
    for await (const chunk of stream) {
      const joined = Buffer.concat([tail, chunk as Buffer]);
      tail = joined.subarray(Math.max(0, joined.length - TAIL_BYTES));
    }
  } finally {
    stream.destroy();
  }
  return DESCRIPTOR_VERSION.exec(tail.toString('utf8'))?.[1] ?? null;
}

/** The matched package: Grype's JSON lists only the packages it matched. */
function reportArtifact(facts: ReportFacts | undefined, match: JsonRecord): void {
  const artifact = asRecordOrEmpty(match['artifact']);
  const name = asString(artifact['name']);
  if (facts?.component === undefined || name === null) return;
  facts.component(
    componentOf({
      purl: asString(artifact['purl']),
      type: purlTypeOfEcosystem(asString(artifact['type'])),
      name,
      version: asString(artifact['version']),
      licenses: licenseList(artifact['licenses']),
    }),
  );
}

async function* parseGrype(input: ParserInput, facts?: ReportFacts): AsyncGenerator<NormalizedFinding> {
  requireJsonShape(input, ['json-object'], TOOL);
  if (!input.sniff.topKeys.includes('matches'))
    throw new ParseError('Grype: the report has no "matches" list');
  const toolVersion = await readToolVersion(input);
  // Grype reports one match per way it found a package (e.g. by dpkg and by CPE); DefectDojo and
  // the user see one finding per vulnerability, package and version.
  const seen = new Set<string>();
  for await (const { value } of streamJsonValues(openJson(input), { paths: ['$.matches.*'] })) {
    if (!isRecord(value)) continue;
    reportArtifact(facts, value);
    const finding = matchFinding(value, toolVersion);
    if (finding === null) continue;
    const key = JSON.stringify([finding.ruleId, finding.packageName, finding.packageVersion]);
    if (seen.has(key)) continue;
    seen.add(key);
    yield finding;
  }
}

function detectGrype(sniff: Sniff): boolean {
  if (sniff.shape !== 'json-object' || !sniff.topKeys.includes('matches')) return false;
  // Key order is free at every level (`jq -S` sorts it): look for Grype's own words, not a sequence.
  // `matchDetails` is Grype's alone; an empty report names the tool in its descriptor.
  return (
    /"matchDetails"\s*:/.test(sniff.head) ||
    (sniff.topKeys.includes('descriptor') && /"name"\s*:\s*"grype"/.test(sniff.head))
  );
}

export const anchoreGrype: ParserModule = {
  name: 'anchore_grype',
  displayName: 'Anchore Grype',
  detect: detectGrype,
  parse: parseGrype,
};
