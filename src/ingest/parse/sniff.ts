import { JsonShapeScanner } from './parsers/json-shape.ts';
import type { Sniff } from './parsers/types.ts';

export const SNIFF_BYTES = 256 * 1024;

interface ObjectKeys {
  keys: string[];
  complete: boolean;
}

/**
 * Keys of the JSON object that starts `text` (a possibly truncated prefix), and whether the object
 * closed within it. Hostile nesting stops the scan; the keys found before it are still reported.
 */
export function objectKeys(text: string): ObjectKeys {
  const scanner = new JsonShapeScanner();
  try {
    scanner.write(Buffer.from(text, 'utf8'));
  } catch {
    // too deeply nested: report what was seen, the parser refuses the document later
  }
  return { keys: [...scanner.topLevel.keys()], complete: scanner.rootComplete };
}

/** Keys of the first element of the JSON array that starts `text`, when that element is an object. */
function firstItemKeys(text: string): string[] {
  const start = /^\[\s*\{/.exec(text);
  return start === null ? [] : objectKeys(text.slice(start[0].length - 1)).keys;
}

function xmlRootElement(text: string): string | null {
  // Skip the prolog: declaration, comments, processing instructions and DOCTYPE.
  const match = /<([A-Za-z_][\w.:-]*)[\s>/]/.exec(
    text.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<![^>]*>/g, ''),
  );
  return match?.[1] ?? null;
}

/** Looks at the first bytes of an upload and describes its shape for format detection. */
export function buildSniff(start: Buffer): Sniff {
  let head = start.toString('utf8');
  if (head.charCodeAt(0) === 0xfeff) head = head.slice(1);
  const trimmed = head.trimStart();
  const first = trimmed[0];
  const none = { topKeys: [], topKeysComplete: false, itemKeys: [], rootElement: null };
  if (first === undefined) return { head, shape: 'empty', ...none };
  if (first === '<') return { head, shape: 'xml', ...none, rootElement: xmlRootElement(trimmed) };
  if (first === '[') return { head, shape: 'json-array', ...none, itemKeys: firstItemKeys(trimmed) };
  if (first === '{') {
    // JSON Lines: a complete object followed by another object on the next line.
    const firstLineEnd = trimmed.indexOf('\n');
    if (firstLineEnd > 0) {
      const firstLine = trimmed.slice(0, firstLineEnd).trim();
      const rest = trimmed.slice(firstLineEnd + 1).trimStart();
      if (rest.startsWith('{') && firstLine.endsWith('}')) {
        try {
          JSON.parse(firstLine);
          const { keys } = objectKeys(firstLine);
          return { head, shape: 'jsonl', ...none, topKeys: keys, topKeysComplete: true };
        } catch {
          // not a complete object on one line: a pretty-printed document
        }
      }
    }
    const { keys, complete } = objectKeys(trimmed);
    return { head, shape: 'json-object', ...none, topKeys: keys, topKeysComplete: complete };
  }
  return { head, shape: 'unknown', ...none };
}
