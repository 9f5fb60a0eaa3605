import { openJson, readBytes } from './json-input.ts';
import { JsonShapeScanner } from './json-shape.ts';
import { streamJsonValues } from './json-stream.ts';
import { asIndex, isRecord } from './json-value.ts';
import { mapResult } from './sarif-mapping.ts';
import { addRunValue, emptyRunMeta, RUN_META_PATHS } from './sarif-run.ts';
import type { RunMeta } from './sarif-run.ts';
import { ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, ReportFacts, Sniff } from './types.ts';
import { repositoryPath } from './sarif-location.ts';

/**
 * SARIF 2.1.0 (OASIS), the interchange format of CodeQL, Semgrep, Grype, Trivy, SpotBugs and many
 * more. Mapping rules: docs/architecture.md, "SARIF mapping".
 */

/**
 * SARIF from tools whose own parser reads it better: Snyk Code's SARIF carries a `priorityScore`
 * that the Snyk parser maps to severity (as DefectDojo does), so it is left to that parser.
 */
const CLAIMED_BY_OTHER_PARSERS = /"name"\s*:\s*"SnykCode"/;

function detect(sniff: Sniff): boolean {
  if (sniff.shape !== 'json-object' || !sniff.topKeys.includes('runs')) return false;
  if (CLAIMED_BY_OTHER_PARSERS.test(sniff.head)) return false;
  const scanner = new JsonShapeScanner();
  try {
    scanner.write(Buffer.from(sniff.head, 'utf8'));
  } catch {
    return false;
  }
  const schema = scanner.topLevel.get('$schema')?.text ?? '';
  const version = scanner.topLevel.get('version')?.text;
  if (/sarif/i.test(schema) || version === '2.1.0') return true;
  // `runs` may come first and be larger than the sniffed head (bash-report.sarif puts `version`
  // last), so also accept a runs array that already shows a SARIF tool driver or SARIF results.
  if (scanner.topLevel.get('runs')?.start !== '[') return false;
  return (
    /"driver"\s*:\s*\{/.test(sniff.head) ||
    (/"results"\s*:\s*\[/.test(sniff.head) &&
      /"message"\s*:\s*\{\s*"(text|id|markdown)"\s*:/.test(sniff.head))
  );
}

/** First pass: the small per-run metadata (tools, rules, taxonomies, base URIs, artifact URIs). */
async function readRunMeta(input: ParserInput): Promise<RunMeta[]> {
  const scanner = new JsonShapeScanner({ members: ['runs'] });
  const runs: RunMeta[] = [];
  for await (const { path, value } of streamJsonValues(openJson(input, scanner), {
    paths: RUN_META_PATHS,
  })) {
    const index = asIndex(path[1]);
    if (index === undefined) continue;
    addRunValue((runs[index] ??= emptyRunMeta()), path, value);
  }
  if (scanner.topLevel.get('runs')?.start !== '[') {
    throw new ParseError('Not a SARIF log: the document has no "runs" array');
  }
  return runs;
}

/**
 * Tells the stage which tools the log speaks for and which files it covered: every run that names
 * a tool and did not fail speaks for it, with or without results (an empty run closes the tool's
 * findings), and its `artifacts` are the files a partial upload covers.
 */
function declareRuns(runs: RunMeta[], facts: ReportFacts): void {
  for (const run of runs) {
    if (run === undefined || run.toolName === '' || run.failed) continue;
    facts.scope(run.toolName, run.category);
    for (const artifact of run.artifacts) {
      if (artifact?.uri === undefined) continue;
      const path = repositoryPath(run, { uri: artifact.uri, uriBaseId: artifact.uriBaseId });
      if (path !== null) facts.coveredFile(path);
    }
  }
}

async function* parse(input: ParserInput, facts?: ReportFacts): AsyncIterable<NormalizedFinding> {
  if (input.sniff.shape !== 'json-object') throw new ParseError('A SARIF log must be a JSON object');
  const runs = await readRunMeta(input);
  if (facts) declareRuns(runs, facts);
  // The splitter bounds nesting itself, in both passes: a guard over every byte would be a tenth of
  // the parse for nothing.
  const results = streamJsonValues(readBytes(input), { paths: ['$.runs.*.results.*'] });
  for await (const { path, value } of results) {
    const run = runs[asIndex(path[1]) ?? -1];
    if (run === undefined || run.toolName === '') {
      throw new ParseError(`SARIF run ${String(path[1])} has results but no tool.driver`);
    }
    if (!isRecord(value)) throw new ParseError(`SARIF result ${path.join('.')} is not an object`);
    yield* mapResult(run, value);
  }
}

export const sarifParser: ParserModule = { name: 'sarif', displayName: 'SARIF', detect, parse };
