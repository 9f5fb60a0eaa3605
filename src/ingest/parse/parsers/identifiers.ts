import { asString, isRecord, unique } from './json-value.ts';

/**
 * CWE numbers from any of the shapes tools use: `79`, `"CWE-79"`, `["CWE-79"]`, or npm's
 * JSON-encoded list inside a string (`"[\"CWE-400\"]"`). `"CWE-"` without a number is ignored.
 */
export function parseCweIds(value: unknown): number[] {
  const out: number[] = [];
  const visit = (item: unknown): void => {
    if (Array.isArray(item)) {
      item.forEach(visit);
    } else if (typeof item === 'number' && Number.isInteger(item) && item > 0) {
      out.push(item);
    } else if (typeof item === 'string') {
      const text = item.trim();
      if (text.startsWith('[')) {
        try {
          visit(JSON.parse(text) as unknown);
        } catch {
          // not a JSON list after all; fall through to the pattern below
        }
        return;
      }
      const match = /^(?:CWE-)?(\d+)$/i.exec(text);
      if (match?.[1] !== undefined) out.push(Number(match[1]));
    } else if (isRecord(item)) {
      visit(item['cweId'] ?? item['id']);
    }
  };
  visit(value);
  return unique(out);
}

/** The first "CWE-n" in a text ("CWE-79: Improper Neutralization …" → 79), else undefined. */
export function firstCweId(text: string): number | undefined {
  const digits = /CWE-(\d+)/i.exec(text)?.[1];
  return digits === undefined ? undefined : Number(digits);
}

/** Every "CWE-n" in a text (HTML rule descriptions, classification blocks), deduplicated. */
export function cweIdsInText(text: string): number[] {
  return unique([...text.matchAll(/CWE-(\d+)/gi)].map((match) => Number(match[1])));
}

const CVE_PATTERN = /^CVE-\d{4}-\d{4,}$/i;

/** The CVE identifiers among a list of vulnerability ids, upper-cased and deduplicated. */
export function cveIdsFrom(ids: Iterable<unknown>): string[] {
  const out: string[] = [];
  for (const id of ids) {
    const text = asString(id);
    if (text !== null && CVE_PATTERN.test(text)) out.push(text.toUpperCase());
  }
  return unique(out);
}

/** Every CVE identifier written in a text, deduplicated. */
export function cveIdsInText(text: string): string[] {
  return unique([...text.matchAll(/\bCVE-\d{4}-\d{4,}\b/g)].map((match) => match[0]));
}
