import { openJson } from './json-input.ts';
import { asNumber, asRecordOrEmpty, isRecord } from './json-value.ts';
import { streamJsonValues } from './json-stream.ts';
import { mapResult } from './sarif-mapping.ts';
import { addRunValue, emptyRunMeta, RUN_META_PATHS, type RunMeta } from './sarif-run.ts';
import { type NormalizedFinding, ParseError, type ParserInput, type Severity, type Sniff } from './types.ts';

/**
 * Snyk Code writes SARIF, which the SARIF mapping reads (docs/architecture.md, "SARIF mapping"); the Snyk
 * parser owns it because Snyk ranks its code issues by `properties.priorityScore` (0–1000), not by SARIF
 * level, and DefectDojo's Snyk parser maps those bands to severity. The SARIF detector leaves it here.
 */

export function isSnykCodeSarif(sniff: Sniff): boolean {
  return (
    sniff.shape === 'json-object' &&
    sniff.topKeys.includes('runs') &&
    /"name"\s*:\s*"SnykCode"/.test(sniff.head)
  );
}

/** Snyk's priority bands: below 400 low, up to 699 medium, up to 899 high, 900 and more critical. */
export function severityFromPriority(score: number): Severity {
  if (score >= 900) return 'critical';
  if (score >= 700) return 'high';
  if (score >= 400) return 'medium';
  return 'low';
}

export async function* parseSnykCode(input: ParserInput): AsyncGenerator<NormalizedFinding> {
  // First pass: tool and rules of each run, so results can be streamed in the second.
  const runs: RunMeta[] = [];
  for await (const { path, value } of streamJsonValues(openJson(input), { paths: RUN_META_PATHS })) {
    const index = path[1];
    if (typeof index === 'number') addRunValue((runs[index] ??= emptyRunMeta()), path, value);
  }
  for await (const { path, value } of streamJsonValues(openJson(input), {
    paths: ['$.runs.*.results.*'],
  })) {
    const run = typeof path[1] === 'number' ? runs[path[1]] : undefined;
    if (run === undefined || run.toolName === '')
      throw new ParseError('Snyk Code: a run has results but no tool');
    if (!isRecord(value)) throw new ParseError(`Snyk Code: result ${path.join('.')} is not an object`);
    const priority = asNumber(asRecordOrEmpty(value['properties'])['priorityScore']);
    for (const finding of mapResult(run, value)) {
      yield priority === null ? finding : { ...finding, severity: severityFromPriority(priority) };
    }
  }
}
