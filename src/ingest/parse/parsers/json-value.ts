/**
 * Small narrowing helpers for values read from untrusted JSON (and XML read as JSON): `unknown` in,
 * typed value or undefined/null/empty out. Every parser reads scanner output through these instead
 * of casts; the `…OrNull` spellings suit parsers whose finding fields are `null` when absent.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value when it is a JSON object, else undefined. */
export function asRecord(value: unknown): JsonRecord | undefined {
  return isRecord(value) ? value : undefined;
}

/** The value when it is a JSON object, else an empty object (absent and malformed read the same). */
export function asRecordOrEmpty(value: unknown): JsonRecord {
  return isRecord(value) ? value : {};
}

/** `value[key]` when both are objects, else an empty object. */
export function childRecord(value: unknown, key: string): JsonRecord {
  return isRecord(value) && isRecord(value[key]) ? value[key] : {};
}

/** The value when it is an array, else an empty array (absent and malformed lists read the same). */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The objects of a list that may also be a single value (XML: one element is not an array). */
export function recordList(value: unknown): JsonRecord[] {
  return (Array.isArray(value) ? value : [value]).filter(isRecord);
}

/** A string with visible content, else undefined: empty strings carry no information in reports. */
export function asText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** A string with visible content, as written (not trimmed), else null. */
export function nonBlank(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** A string with visible content, trimmed, else null. */
export function trimmedText(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** A non-empty trimmed string (a finite number as its decimal text), or null. */
export function asString(value: unknown): string | null {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' ? null : trimmed;
  }
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
}

/** Element text: XML elements with attributes carry it in `#text`; trimmed, or null. */
export function elementText(value: unknown): string | null {
  return asString(isRecord(value) ? value['#text'] : value);
}

/** The non-empty trimmed strings (and finite numbers, as text) of an array. */
export function asStringArray(value: unknown): string[] {
  const out: string[] = [];
  for (const item of asArray(value)) {
    const text = asString(item);
    if (text !== null) out.push(text);
  }
  return out;
}

/** A finite number, also from a numeric string (XML and some tools quote their scores). */
export function asNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

/** A non-negative integer (index, line, column), else undefined. */
export function asIndex(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** A non-negative integer, else null. */
export function nonNegativeInt(value: unknown): number | null {
  return asIndex(value) ?? null;
}

/** A positive integer (a 1-based line number), else null. */
export function positiveInt(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}

/** A positive integer, also written as a digit string ("222"), else null. */
export function positiveIntOrDigits(value: unknown): number | null {
  return positiveInt(typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
}

/** Unique values in first-seen order. */
export function unique<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}
