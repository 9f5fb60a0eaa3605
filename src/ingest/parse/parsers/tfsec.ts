import { isRecord, type JsonRecord, nonBlank, nonNegativeInt } from './json-value.ts';
import { openJson } from './json-input.ts';
import { JsonShapeScanner } from './json-shape.ts';
import { streamJsonValues } from './json-stream.ts';
import { severityIn, STANDARD_SEVERITIES } from './severity.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Severity, Sniff } from './types.ts';
import { DISMISSED_BY_TOOL } from '../../../domain/findings/lifecycle.ts';

/**
 * tfsec (Terraform static analysis) `--format json`: `{ results: [...] | null }`. Legacy results
 * carry `passed` and one `link`; current ones carry `status`, `links` and a `legacy_rule_id`.
 */

// Legacy tfsec used ERROR/WARNING/INFO; current tfsec uses CRITICAL/HIGH/MEDIUM/LOW.
const SEVERITY: Record<string, Severity> = { ...STANDARD_SEVERITIES, error: 'high', warning: 'medium' };

function detect(sniff: Sniff): boolean {
  if (sniff.shape !== 'json-object' || !sniff.topKeys.includes('results')) return false;
  // osv-scanner, semgrep and checkov also have `results`; only tfsec results name a `rule_provider`.
  // An empty tfsec run is literally `{"results": null}`.
  return /"rule_provider"\s*:/.test(sniff.head) || /^\s*\{\s*"results"\s*:\s*null\s*\}\s*$/.test(sniff.head);
}

function references(result: JsonRecord): string[] {
  if (Array.isArray(result['links'])) return result['links'].filter((l): l is string => nonBlank(l) !== null);
  // Legacy: "See https://tfsec.dev/docs/general/GEN003/ for more information."
  const url = /https?:\/\/\S+?(?=\s|$)/.exec(nonBlank(result['link']) ?? '')?.[0];
  return url ? [url] : [];
}

interface Merged {
  finding: NormalizedFinding;
  resources: string[];
}

function toFinding(result: JsonRecord): NormalizedFinding {
  const location = isRecord(result['location']) ? result['location'] : {};
  const ruleId = nonBlank(result['rule_id']);
  const line = nonNegativeInt(location['start_line']);
  const description = nonBlank(result['description']);
  const impact = nonBlank(result['impact']);
  const legacyId = nonBlank(result['legacy_rule_id']);
  return {
    ...emptyFinding({
      kind: 'infrastructure',
      title: nonBlank(result['rule_description']) ?? ruleId ?? 'tfsec finding',
      severity: severityIn(SEVERITY, nonBlank(result['severity'])) ?? 'info',
      toolName: 'tfsec',
    }),
    description:
      [description, impact ? `Impact: ${impact}` : null, legacyId ? `Legacy rule id: ${legacyId}` : null]
        .filter(Boolean)
        .join('\n') || null,
    remediation: nonBlank(result['resolution']),
    ruleId,
    filePath: nonBlank(location['filename']),
    line,
    endLine: nonNegativeInt(location['end_line']) ?? line,
    references: references(result),
    initialStatus: result['status'] === 'ignored' ? DISMISSED_BY_TOOL : null,
  };
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const { sniff } = input;
  if (sniff.shape !== 'json-object') throw new ParseError('tfsec report must be a JSON object');
  const scanner = new JsonShapeScanner({ members: ['results'] });
  // A module instantiated N times reports the same rule at the same lines N times (one per resource);
  // like DefectDojo, those collapse into one finding that lists every resource.
  const merged = new Map<string, Merged>();
  for await (const { value } of streamJsonValues(openJson(input, scanner), { paths: ['$.results.*'] })) {
    if (!isRecord(value)) throw new ParseError('tfsec result must be a JSON object');
    if (value['passed'] === true || value['status'] === 'passed') continue;
    const finding = toFinding(value);
    const key = JSON.stringify([
      nonBlank(value['rule_provider']),
      finding.ruleId,
      finding.filePath,
      finding.line,
      finding.endLine,
    ]);
    const existing = merged.get(key);
    if (existing) existing.resources.push(nonBlank(value['description']) ?? '');
    else merged.set(key, { finding, resources: [] });
  }
  // Streamed selectors cannot tell a missing list from an empty one; the guard saw the members.
  // An empty tfsec run writes `"results": null`.
  const results = scanner.topLevel.get('results')?.start;
  if (results !== '[' && results !== 'n') throw new ParseError('tfsec report has no "results" list');
  for (const { finding, resources } of merged.values()) {
    const others = resources.filter(Boolean);
    yield others.length === 0
      ? finding
      : { ...finding, description: [finding.description, 'Also reported for:', ...others].join('\n') };
  }
}

export const tfsec: ParserModule = { name: 'tfsec', displayName: 'tfsec', detect, parse };
