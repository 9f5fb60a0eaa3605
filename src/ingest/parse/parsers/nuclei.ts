import { isRecord, type JsonRecord, trimmedText } from './json-value.ts';
import { openJson } from './json-input.ts';
import { streamJsonValues } from './json-stream.ts';
import { severityIn, STANDARD_SEVERITIES } from './severity.ts';
import { emptyFinding, ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput, ParserModule, Sniff } from './types.ts';

/**
 * Nuclei results: JSON Lines (`-jsonl`, older `-json`) or one JSON array (`-json-export`). v2 writes
 * `templateID`/`matched`/`matcher_name`, v3 `template-id`/`matched-at`/`matcher-name`.
 */

const texts = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(trimmedText).filter((v): v is string => v !== null) : [];
const score = (value: unknown): number | null => {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 && n <= 10 ? n : null;
};

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'jsonl' || sniff.shape === 'json-object') {
    return (
      (sniff.topKeys.includes('template-id') || sniff.topKeys.includes('templateID')) &&
      sniff.topKeys.includes('info')
    );
  }
  return (
    sniff.shape === 'json-array' &&
    /"(template-id|templateID)"\s*:/.test(sniff.head) &&
    /"info"\s*:/.test(sniff.head)
  );
}

/** `reference` is a list, or (old templates) one string of "- url" lines. */
function references(info: JsonRecord): string[] {
  const raw = info['reference'];
  if (Array.isArray(raw)) return texts(raw);
  return (trimmedText(raw) ?? '').split('\n').flatMap((line) => /https?:\/\/\S+/.exec(line)?.[0] ?? []);
}

/** Host name of a match ("https://a.example/x", "a.example:22", "a.example"), port dropped. */
function hostName(location: string | null): string {
  if (location === null) return '';
  try {
    return new URL(location.includes('://') ? location : `tcp://${location}`).hostname;
  } catch {
    return location;
  }
}

interface Merged {
  finding: NormalizedFinding;
  locations: string[];
}

function toFinding(item: JsonRecord, location: string | null, matcher: string | null): NormalizedFinding {
  const info = isRecord(item['info']) ? item['info'] : {};
  const classification = isRecord(info['classification']) ? info['classification'] : {};
  const templateId = trimmedText(item['template-id']) ?? trimmedText(item['templateID']);
  const extracted = [...texts(item['extracted-results']), ...texts(item['extracted_results'])];
  const impact = trimmedText(info['impact']);
  const cvssScore = score(classification['cvss-score']);
  const templateUrl = trimmedText(item['template-url']);
  return {
    ...emptyFinding({
      kind: 'dast',
      title: trimmedText(info['name']) ?? templateId ?? 'Nuclei finding',
      severity: severityIn(STANDARD_SEVERITIES, trimmedText(info['severity'])) ?? 'info',
      toolName: 'Nuclei',
    }),
    severityScore: cvssScore,
    description:
      [
        trimmedText(info['description']),
        impact ? `Impact: ${impact}` : null,
        matcher ? `Matcher: ${matcher}` : null,
        extracted.length > 0 ? `Extracted results:\n${extracted.join('\n')}` : null,
      ]
        .filter(Boolean)
        .join('\n\n') || null,
    remediation: trimmedText(info['remediation']),
    ruleId: templateId,
    filePath: location,
    snippet: matcher,
    cveIds: texts(classification['cve-id']).map((id) => id.toUpperCase()),
    cweIds: texts(classification['cwe-id'])
      .map((id) => Number(/(\d+)$/.exec(id)?.[1]))
      .filter((n) => Number.isInteger(n) && n > 0),
    cvssScore,
    cvssVector: trimmedText(classification['cvss-metrics']),
    references: [...new Set([...references(info), ...(templateUrl ? [templateUrl] : [])])],
  };
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const { shape } = input.sniff;
  // Nuclei writes nothing at all when a scan finds nothing, so an empty upload is a valid empty result.
  if (shape === 'empty') return;
  if (shape !== 'json-array' && shape !== 'jsonl' && shape !== 'json-object') {
    throw new ParseError('Nuclei output must be JSON Lines or a JSON array');
  }
  const values =
    shape === 'json-array'
      ? streamJsonValues(openJson(input), { paths: ['$.*'] })
      : streamJsonValues(openJson(input), { paths: ['$'], separator: '' });
  // Like DefectDojo: one finding per template + matcher + host; the same template matching several
  // URLs of one host (or several ports) is one finding that lists every matched location.
  const merged = new Map<string, Merged>();
  for await (const { value } of values) {
    if (!isRecord(value)) throw new ParseError('Nuclei result must be a JSON object');
    const location =
      trimmedText(value['matched-at']) ??
      trimmedText(value['matched']) ??
      trimmedText(value['host']) ??
      // javascript templates only give `url`, written as "/http://host/".
      (trimmedText(value['url'])?.replace(/^\/(?=[a-z]+:\/\/)/i, '') || null);
    const matcher = trimmedText(value['matcher-name']) ?? trimmedText(value['matcher_name']);
    const finding = toFinding(value, location, matcher);
    const key = [finding.ruleId, trimmedText(value['type']), matcher, hostName(location)]
      .map((p) => p ?? '')
      .join('|');
    const existing = merged.get(key);
    if (existing) {
      if (location && !existing.locations.includes(location)) existing.locations.push(location);
      continue;
    }
    merged.set(key, {
      finding: { ...finding, toolFingerprint: key },
      locations: location ? [location] : [],
    });
  }
  for (const { finding, locations } of merged.values()) {
    yield locations.length < 2
      ? finding
      : {
          ...finding,
          description: [finding.description, `Matched at:\n${locations.join('\n')}`].join('\n\n'),
        };
  }
}

export const nuclei: ParserModule = { name: 'nuclei', displayName: 'Nuclei', detect, parse };
