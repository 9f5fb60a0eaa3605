import { dependencyTitle } from './dependency-helpers.ts';
import { cveIdsFrom, parseCweIds } from './identifiers.ts';
import { openJson, requireJsonShape } from './json-input.ts';
import { streamJsonValues } from './json-stream.ts';
import {
  asArray,
  asString,
  asStringArray,
  childRecord,
  isRecord,
  type JsonRecord,
  unique,
} from './json-value.ts';
import { reportPath } from './report-path.ts';
import { severityFromWord } from './severity.ts';
import {
  emptyFinding,
  type NormalizedFinding,
  ParseError,
  type ParserInput,
  type ParserModule,
  type Sniff,
} from './types.ts';

/**
 * retire.js `--outputformat json`: `{ version, start, data: [{ file, results: [{ component, version,
 * npmname?, detection, vulnerabilities: [{ severity, below, atOrAbove?, identifiers: { summary, CVE[],
 * githubID, retid, issue, bug }, cwe[], info[] }] }] }], messages, errors, time }`; retire.js
 * before 3 wrote the `data` array alone. One finding per vulnerability of a detected library,
 * which is retire.js's own count.
 *
 * Dependency identity (docs/architecture.md, "Finding identity"): the vulnerability id (first CVE, else GHSA,
 * else retire's own `retid`, else the issue or bug number under the component's name), the package (npm name,
 * else retire's component name) and the file the library was found in; the version is a field.
 */

const TOOL = 'retire.js';
const REPORT_KEYS = ['start', 'time', 'messages', 'errors'];

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'json-array') {
    const keys = sniff.itemKeys;
    return keys.includes('file') && keys.includes('results') && /"component"\s*:/.test(sniff.head);
  }
  if (sniff.shape !== 'json-object') return false;
  const keys = sniff.topKeys;
  return (
    keys.includes('data') &&
    keys.includes('version') &&
    REPORT_KEYS.filter((key) => keys.includes(key)).length >= 2 &&
    (/"component"\s*:/.test(sniff.head) || /"data"\s*:\s*\[\s*\]/.test(sniff.head))
  );
}

function vulnerabilityId(identifiers: JsonRecord, component: string): string {
  const [cve] = cveIdsFrom(asStringArray(identifiers['CVE']));
  const github = asString(identifiers['githubID']);
  const retid = asString(identifiers['retid']);
  const issue = asString(identifiers['issue']);
  const bug = asString(identifiers['bug']);
  if (cve !== undefined) return cve;
  if (github !== null) return github;
  if (retid !== null) return `retire-${retid}`;
  if (issue !== null) return `${component} issue ${issue}`;
  if (bug !== null) return `${component} bug ${bug}`;
  return `${component}: ${asString(identifiers['summary']) ?? 'vulnerability'}`;
}

function toFinding(
  vulnerability: JsonRecord,
  library: JsonRecord,
  file: string | null,
  toolVersion: string | null,
): NormalizedFinding {
  const component = asString(library['component']) ?? 'unknown library';
  const packageName = asString(library['npmname']) ?? component;
  const version = asString(library['version']);
  const identifiers = childRecord(vulnerability, 'identifiers');
  const id = vulnerabilityId(identifiers, component);
  const fixedVersion = asString(vulnerability['below']);
  const affected = [asString(vulnerability['atOrAbove']), fixedVersion];
  return {
    ...emptyFinding({
      kind: 'dependency',
      title: dependencyTitle(id, packageName, version),
      severity: severityFromWord(vulnerability['severity']),
      toolName: TOOL,
    }),
    description:
      [
        asString(identifiers['summary']),
        `Affected versions: ${affected[0] === null ? '' : `>= ${affected[0]} `}< ${fixedVersion ?? '?'}`,
        `Detected by ${asString(library['detection']) ?? 'retire.js'}.`,
      ]
        .filter(Boolean)
        .join('\n') || null,
    remediation: fixedVersion === null ? null : `Upgrade ${packageName} to ${fixedVersion} or later`,
    ruleId: id,
    filePath: file,
    packageName,
    packageVersion: version,
    fixedVersion,
    cveIds: cveIdsFrom(asStringArray(identifiers['CVE'])),
    cweIds: parseCweIds(vulnerability['cwe']),
    references: unique(asStringArray(vulnerability['info'])),
    toolVersion,
  };
}

/** retire.js writes its version first; read it from the head rather than buffering the report. */
function toolVersionOf(sniff: Sniff): string | null {
  return sniff.shape === 'json-object'
    ? (/^\s*\{\s*"version"\s*:\s*"([^"]{1,40})"/.exec(sniff.head)?.[1] ?? null)
    : null;
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  requireJsonShape(input, ['json-object', 'json-array'], TOOL);
  const { sniff } = input;
  if (sniff.shape === 'json-object' && sniff.topKeysComplete && !sniff.topKeys.includes('data')) {
    throw new ParseError(`${TOOL}: the report has no "data" list`);
  }
  const toolVersion = toolVersionOf(sniff);
  const paths = sniff.shape === 'json-array' ? ['$.*'] : ['$.data.*'];
  for await (const { value } of streamJsonValues(openJson(input), { paths })) {
    if (!isRecord(value)) throw new ParseError(`${TOOL}: each data entry must be an object`);
    const file = reportPath(value['file']);
    for (const library of asArray(value['results'])) {
      if (!isRecord(library)) throw new ParseError(`${TOOL}: each result must be an object`);
      for (const vulnerability of asArray(library['vulnerabilities'])) {
        if (!isRecord(vulnerability)) throw new ParseError(`${TOOL}: each vulnerability must be an object`);
        yield toFinding(vulnerability, library, file, toolVersion);
      }
    }
  }
}

export const retirejs: ParserModule = { name: 'retirejs', displayName: 'retire.js', detect, parse };
