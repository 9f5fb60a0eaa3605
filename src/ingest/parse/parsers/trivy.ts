import { componentOf, licenseList, purlTypeOfEcosystem } from './components.ts';
import { dependencyTitle, upgradeRemediation } from './dependency-helpers.ts';
import { openJson, requireJsonShape } from './json-input.ts';
import { cveIdsFrom, parseCweIds } from './identifiers.ts';
import { sha256Hex } from './secrets.ts';
import { severityFromWord } from './severity.ts';
import {
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
import { DISMISSED_BY_TOOL } from '../../../domain/findings/lifecycle.ts';

const TOOL = 'Trivy';
const FINDING_LISTS = ['Vulnerabilities', 'Misconfigurations', 'Secrets'];
const RESULT_FIELDS = ['Target', 'Class', 'Type'];
/** Kubernetes cluster reports group results by workload under these top-level lists. */
const RESOURCE_LISTS = ['Vulnerabilities', 'Misconfigurations', 'Resources'];
const RESOURCE_FIELDS = ['Namespace', 'Kind', 'Name'];

/**
 * Selectors down to single findings, not whole results: one image result can hold thousands of
 * vulnerabilities. Target/Class/Type precede the lists in Trivy's output, so they arrive first.
 */
function resultSelectors(prefix: string): string[] {
  return [...RESULT_FIELDS.map((f) => `${prefix}.${f}`), ...FINDING_LISTS.map((l) => `${prefix}.${l}.*`)];
}

function selectorsFor(shape: Sniff['shape']): string[] {
  if (shape === 'json-array') return resultSelectors('$.*');
  return [
    ...resultSelectors('$.Results.*'),
    // Every package of a result (`--list-all-pkgs`): the component inventory.
    '$.Results.*.Packages.*',
    ...RESOURCE_LISTS.flatMap((list) => [
      ...RESOURCE_FIELDS.map((f) => `$.${list}.*.${f}`),
      ...resultSelectors(`$.${list}.*.Results.*`),
    ]),
  ];
}

interface Context {
  target: string | null;
  /** Kubernetes workload, "namespace / Kind / name", as Trivy prints it. */
  service: string | null;
}

/** The CVSS entry Trivy based its severity on, else NVD's, else any with a v3 score. */
function pickCvss(vuln: JsonRecord): { score: number | null; vector: string | null } {
  const cvss = asRecordOrEmpty(vuln['CVSS']);
  const source = asString(vuln['SeveritySource']);
  const candidates = [source === null ? undefined : cvss[source], cvss['nvd'], ...Object.values(cvss)];
  for (const entry of candidates.map(asRecordOrEmpty)) {
    const score = asNumber(entry['V3Score']);
    if (score !== null) return { score, vector: asString(entry['V3Vector']) };
  }
  for (const entry of candidates.map(asRecordOrEmpty)) {
    const score = asNumber(entry['V2Score']);
    if (score !== null) return { score, vector: asString(entry['V2Vector']) };
  }
  return { score: null, vector: null };
}

/** Workload findings are located by workload first: two deployments may run the same image. */
function locate(context: Context, path: string | null): string | null {
  const inner = path ?? context.target;
  const { service } = context;
  if (service === null) return inner;
  // Config results are targeted at "Kind/name", which the workload name already says.
  if (inner === null || service.replaceAll(' / ', '/').endsWith(inner)) return service;
  return `${service} / ${inner}`;
}

function vulnerabilityFinding(vuln: JsonRecord, context: Context): NormalizedFinding | null {
  const id = asString(vuln['VulnerabilityID']);
  if (id === null) return null;
  const packageName = asString(vuln['PkgName']);
  const packageVersion = asString(vuln['InstalledVersion']);
  const fixedVersion = asString(vuln['FixedVersion']);
  const { score, vector } = pickCvss(vuln);
  const summary = asString(vuln['Title']);
  const details = asString(vuln['Description']);
  return {
    ...emptyFinding({
      kind: 'dependency',
      title: dependencyTitle(id, packageName, packageVersion),
      severity: severityFromWord(vuln['Severity']),
      toolName: TOOL,
    }),
    severityScore: score,
    cvssScore: score,
    cvssVector: vector,
    description: [summary, details].filter((text) => text !== null).join('\n\n') || null,
    remediation: upgradeRemediation(packageName, fixedVersion),
    ruleId: id,
    filePath: locate(context, asString(vuln['PkgPath'])),
    packageName,
    packageVersion,
    fixedVersion,
    cveIds: cveIdsFrom([id]),
    cweIds: parseCweIds(vuln['CweIDs']),
    references: unique([asString(vuln['PrimaryURL']), ...asStringArray(vuln['References'])]).filter(
      (url): url is string => url !== null,
    ),
    // Trivy's VEX-style status: the vendor states the package is not affected on this platform.
    initialStatus: asString(vuln['Status']) === 'not_affected' ? DISMISSED_BY_TOOL : null,
  };
}

function misconfigurationFinding(misconfig: JsonRecord, context: Context): NormalizedFinding | null {
  // `--include-non-failures` lists passed checks too; they are not findings.
  if (asString(misconfig['Status']) === 'PASS') return null;
  const id = asString(misconfig['ID']) ?? asString(misconfig['AVDID']);
  const cause = asRecordOrEmpty(misconfig['CauseMetadata']);
  const description = [asString(misconfig['Description']), asString(misconfig['Message'])];
  return {
    ...emptyFinding({
      kind: 'infrastructure',
      title: `${id ?? 'Misconfiguration'} - ${asString(misconfig['Title']) ?? 'untitled check'}`,
      severity: severityFromWord(misconfig['Severity']),
      toolName: TOOL,
    }),
    description: description.filter((text) => text !== null).join('\n\n') || null,
    remediation: asString(misconfig['Resolution']),
    ruleId: id,
    filePath: locate(context, null),
    line: asNumber(cause['StartLine']),
    endLine: asNumber(cause['EndLine']),
    references: unique([asString(misconfig['PrimaryURL']), ...asStringArray(misconfig['References'])]).filter(
      (url): url is string => url !== null,
    ),
  };
}

function secretFinding(secret: JsonRecord, context: Context): NormalizedFinding {
  const title = asString(secret['Title']) ?? asString(secret['RuleID']) ?? 'Secret';
  const category = asString(secret['Category']);
  const match = asString(secret['Match']);
  // Only a hash of the match is kept: `Match` (and the code lines) may hold the secret itself.
  return {
    ...emptyFinding({
      kind: 'secret',
      title: context.target === null ? title : `${title} in ${context.target}`,
      severity: severityFromWord(secret['Severity']),
      toolName: TOOL,
    }),
    description: category === null ? title : `${title} (category: ${category})`,
    ruleId: asString(secret['RuleID']),
    filePath: locate(context, null),
    line: asNumber(secret['StartLine']),
    endLine: asNumber(secret['EndLine']),
    secretHash: match === null ? null : sha256Hex(match),
  };
}

function serviceName(resource: JsonRecord | undefined): string | null {
  if (resource === undefined) return null;
  const parts = RESOURCE_FIELDS.map((field) => asString(resource[field])).filter((part) => part !== null);
  return parts.length === 0 ? null : parts.join(' / ');
}

/** A package of `--list-all-pkgs`; the root (the scanned project itself) is not a component of it. */
function reportPackage(facts: ReportFacts | undefined, pkg: JsonRecord, resultType: string | null): void {
  const name = asString(pkg['Name']);
  const relationship = asString(pkg['Relationship']);
  if (facts?.component === undefined || name === null || relationship === 'root') return;
  const identifier = asRecordOrEmpty(pkg['Identifier']);
  facts.component(
    componentOf({
      purl: asString(identifier['PURL']),
      type: purlTypeOfEcosystem(resultType),
      name,
      version: asString(pkg['Version']),
      licenses: licenseList(pkg['Licenses']),
      direct: relationship === 'direct' ? true : relationship === 'indirect' ? false : null,
    }),
  );
}

/**
 * The package a vulnerability is in: without `--list-all-pkgs` the report lists only these, and they
 * are its components (the same package listed under `Packages` too is merged by its purl).
 */
function reportVulnerablePackage(
  facts: ReportFacts | undefined,
  vuln: JsonRecord,
  resultType: string | null,
): void {
  const name = asString(vuln['PkgName']);
  if (facts?.component === undefined || name === null) return;
  facts.component(
    componentOf({
      purl: asString(asRecordOrEmpty(vuln['PkgIdentifier'])['PURL']),
      type: purlTypeOfEcosystem(resultType),
      name,
      version: asString(vuln['InstalledVersion']),
    }),
  );
}

async function* parseTrivy(input: ParserInput, facts?: ReportFacts): AsyncGenerator<NormalizedFinding> {
  requireJsonShape(input, ['json-object', 'json-array'], TOOL);
  const { shape, topKeys } = input.sniff;
  if (shape === 'json-object' && !topKeys.includes('SchemaVersion') && !topKeys.includes('ClusterName')) {
    throw new ParseError('Trivy: neither a SchemaVersion 2 report nor a Kubernetes cluster report');
  }
  // Scalars seen so far, keyed by the path of the object that holds them (a result or a workload).
  const scalars = new Map<string, JsonRecord>();
  const holder = (path: (string | number)[]): JsonRecord => {
    const key = path.join('\u0000');
    let record = scalars.get(key);
    if (record === undefined) scalars.set(key, (record = {}));
    return record;
  };
  for await (const { value, path } of streamJsonValues(openJson(input), { paths: selectorsFor(shape) })) {
    const last = path.at(-1);
    if (typeof last === 'string') {
      holder(path.slice(0, -1))[last] = value;
      continue;
    }
    const list = path.at(-2);
    if (!isRecord(value) || typeof list !== 'string') continue;
    const resultPath = path.slice(0, -2);
    // A workload's path is two levels above its result: [list, i, 'Results', j].
    const workload = resultPath.length === 4 ? scalars.get(resultPath.slice(0, 2).join('\u0000')) : undefined;
    if (list === 'Packages') {
      reportPackage(facts, value, asString(holder(resultPath)['Type']));
      continue;
    }
    const context: Context = {
      target: asString(holder(resultPath)['Target']),
      service: serviceName(workload),
    };
    if (list === 'Vulnerabilities')
      reportVulnerablePackage(facts, value, asString(holder(resultPath)['Type']));
    const finding =
      list === 'Vulnerabilities'
        ? vulnerabilityFinding(value, context)
        : list === 'Misconfigurations'
          ? misconfigurationFinding(value, context)
          : secretFinding(value, context);
    if (finding !== null) yield finding;
  }
}

function detectTrivy(sniff: Sniff): boolean {
  if (sniff.shape === 'json-object') {
    const keys = new Set(sniff.topKeys);
    if (keys.has('SchemaVersion') && (keys.has('Results') || keys.has('ArtifactName'))) return true;
    return keys.has('ClusterName') && RESOURCE_LISTS.some((list) => keys.has(list));
  }
  // The pre-schema-2 report is a bare list of results, each naming its Target.
  return sniff.shape === 'json-array' && sniff.itemKeys.includes('Target');
}

export const trivy: ParserModule = {
  name: 'trivy',
  displayName: 'Trivy',
  detect: detectTrivy,
  parse: parseTrivy,
};
