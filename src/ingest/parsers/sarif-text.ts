import { asArray, asRecord, asText } from './json-value.ts';
import type { JsonRecord } from './json-value.ts';
import { severityIn, STANDARD_SEVERITIES } from './severity.ts';
import type { Severity } from './types.ts';

/** Plain text of a `multiformatMessageString` (`{ text, markdown }`); text is preferred. */
export function messageString(value: unknown): string | undefined {
  const record = asRecord(value);
  return asText(record?.['text']) ?? asText(record?.['markdown']);
}

/**
 * Renders a result `message`: literal text, or the template its `id` names (rule `messageStrings`,
 * then the component's and the driver's `globalMessageStrings`), with `{n}` placeholders filled
 * from `arguments`. Embedded links to related locations (`[function create](1)`) keep their label:
 * the numbers mean nothing outside a SARIF viewer.
 */
export function renderMessage(
  message: unknown,
  rule: JsonRecord | undefined,
  components: JsonRecord[],
): string | undefined {
  const record = asRecord(message);
  if (!record) return undefined;
  let text = messageString(record);
  const id = asText(record['id']);
  if (text === undefined && id !== undefined) {
    for (const source of [rule?.['messageStrings'], ...components.map((c) => c['globalMessageStrings'])]) {
      text = messageString(asRecord(source)?.[id]);
      if (text !== undefined) break;
    }
  }
  if (text === undefined) return undefined;
  const args = asArray(record['arguments']).map((arg) =>
    typeof arg === 'string' ? arg : JSON.stringify(arg),
  );
  const filled =
    args.length === 0 ? text : text.replace(/\{(\d+)\}/g, (all, n: string) => args[Number(n)] ?? all);
  return filled
    .replace(/\[((?:[^\]\\]|\\.)*)\]\(\d+\)/g, '$1')
    .replace(/\\([[\]])/g, '$1')
    .trim();
}

const TITLE_MAX = 200;

/**
 * A one-line title from a possibly long message: whitespace collapsed; when too long, its first
 * sentence (Semgrep messages are paragraphs), else cut at a word boundary.
 */
export function titleFrom(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  if (line.length <= TITLE_MAX) return line;
  const sentence = /^(.{20,}?[.!?])\s/.exec(line)?.[1];
  if (sentence !== undefined && sentence.length <= TITLE_MAX) return sentence;
  const cut = line.slice(0, TITLE_MAX);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const SEVERITY_WORDS: Record<string, Severity> = {
  ...STANDARD_SEVERITIES,
  moderate: 'medium',
  informational: 'info',
  none: 'info',
};

const LEVELS: Record<string, Severity> = { error: 'high', warning: 'medium', note: 'low', none: 'info' };

/** `security-severity` as a 0–10 number (GitHub's convention), or undefined when it is not one. */
export function securityScore(value: unknown): number | undefined {
  const score =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isFinite(score) && score >= 0 ? score : undefined;
}

/** Some tools (Semgrep) put a word in `security-severity` instead of a score. */
export function securitySeverityWord(value: unknown): Severity | undefined {
  return typeof value === 'string' ? severityIn(SEVERITY_WORDS, value.trim()) : undefined;
}

export function severityFromLevel(level: string | undefined): Severity {
  return LEVELS[level ?? 'warning'] ?? 'medium';
}
