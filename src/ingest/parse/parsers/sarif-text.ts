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
    args.length === 0 ? text : text.replace(/\{(\d{1,6})\}/g, (all, n: string) => args[Number(n)] ?? all);
  return stripLinkTargets(filled).trim();
}

/** Index of the first `]` from `from` on that is not escaped by `\`, or -1. */
function unescapedClose(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === ']') return i;
  }
  return -1;
}

/** Length of `(digits)` at `at`, or 0 when there is none. */
function linkTargetLength(text: string, at: number): number {
  if (text[at] !== '(') return 0;
  let i = at + 1;
  while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
  return i > at + 1 && text[i] === ')' ? i + 1 - at : 0;
}

/**
 * `[label](3)` → `label`, then `\[` / `\]` → `[` / `]`. The regular expression this replaced
 * overflowed the stack on a 10 MiB message and took seconds on 64 Ki `[`. Here every `[` inside one
 * label ends at that label's `]`, so each `]` is searched for once: one left-to-right scan.
 */
function stripLinkTargets(text: string): string {
  if (!text.includes('[')) return text;
  const parts: string[] = [];
  let from = 0;
  let close = -2; // -2: not searched yet; -1: no `]` left
  let target = 0;
  for (let open = text.indexOf('['); open !== -1 && close !== -1; open = text.indexOf('[', open + 1)) {
    if (close <= open) {
      close = unescapedClose(text, open + 1);
      target = close === -1 ? 0 : linkTargetLength(text, close + 1);
    }
    if (close === -1 || target === 0) continue;
    parts.push(text.slice(from, open), text.slice(open + 1, close));
    from = close + target + 1;
    open = from - 1;
    close = -2;
  }
  parts.push(text.slice(from));
  // Two plain passes instead of one regular expression with a replacement per match (half a million
  // of them in 1 MB of `[\` took 100+ ms, as did replaceAll); split/join is 4× faster. Removing `\`
  // before `[` can never make a new `\]`, so the passes equal the single regular expression.
  return parts.join('').split('\\[').join('[').split('\\]').join(']');
}

const TITLE_MAX = 200;

/** What `\s` matches, without a regular expression per character. */
function isWhitespace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** `text` with whitespace runs as single spaces, trimmed, cut after `limit` characters. */
function collapseWhitespace(text: string, limit: number): string {
  let out = '';
  let pendingSpace = false;
  for (let i = 0; i < text.length && out.length < limit; i++) {
    const char = text[i]!;
    if (isWhitespace(char.charCodeAt(0))) {
      pendingSpace = out !== '';
      continue;
    }
    if (pendingSpace) out += ' ';
    pendingSpace = false;
    out += char;
  }
  return out;
}

/**
 * A one-line title from a possibly long message: whitespace collapsed; when too long, its first
 * sentence (Semgrep messages are paragraphs), else cut at a word boundary. Only the start of the
 * message is looked at, however long it is.
 */
export function titleFrom(message: string): string {
  const line = collapseWhitespace(message, TITLE_MAX + 2);
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
      : typeof value === 'string' && value.length <= 32 && /^\s*\d+(\.\d+)?\s*$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isFinite(score) && score >= 0 ? score : undefined;
}

/** Some tools (Semgrep) put a word in `security-severity` instead of a score. */
export function securitySeverityWord(value: unknown): Severity | undefined {
  return typeof value === 'string' ? severityIn(SEVERITY_WORDS, value.trim()) : undefined;
}

/**
 * The linter scale (eslint.ts, pylint.ts, shellcheck.ts): a lint error is a code-quality breach, not
 * a proven vulnerability. Tools whose native format scanhub reads on that scale read their SARIF
 * levels on it too, so one tool's severities agree across its formats (ESLint's SARIF formatter
 * writes severity 2 as `error`, 1 as `warning`; ShellCheck's info and style become `note`).
 */
const LINTER_LEVELS: Record<string, Severity> = {
  error: 'medium',
  warning: 'low',
  note: 'info',
  none: 'info',
};
const TOOL_LEVELS: Readonly<Record<string, Record<string, Severity>>> = {
  eslint: LINTER_LEVELS,
  pylint: LINTER_LEVELS,
  shellcheck: LINTER_LEVELS,
  // Gitleaks has no severity scale: its JSON reads every leak as high (gitleaks.ts); its SARIF
  // writes no level at all.
  gitleaks: { error: 'high', warning: 'high', note: 'high', none: 'high' },
};

/** A SARIF level on the scale of `toolName` (the default: error → high, warning → medium, note → low). */
export function severityFromLevel(level: string | undefined, toolName?: string): Severity {
  const levels = (toolName !== undefined && TOOL_LEVELS[toolName.trim().toLowerCase()]) || LEVELS;
  return levels[level ?? 'warning'] ?? levels['warning'] ?? 'medium';
}
