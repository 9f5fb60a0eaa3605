/** Small narrowing helpers for values read from untrusted JSON (`unknown` in, typed or undefined out). */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value when it is a JSON object, else undefined. */
export function asRecord(value: unknown): JsonRecord | undefined {
  return isRecord(value) ? value : undefined;
}

/** The value when it is an array, else an empty array (absent and malformed lists read the same). */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A string with visible content, else undefined: empty strings carry no information in reports. */
export function asText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** A non-negative integer (index, line, column), else undefined. */
export function asIndex(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** Unique values in first-seen order. */
export function unique<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}
