import type { Sniff } from './parsers/types.ts';

export const SNIFF_BYTES = 256 * 1024;

/** Top-level keys of a JSON object found in a possibly truncated prefix of it. */
function topLevelKeys(text: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let inString = false;
  let stringStart = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') {
        inString = false;
        if (depth === 1) {
          // A string at depth 1 followed by ':' is a key.
          let j = i + 1;
          while (j < text.length && /\s/.test(text[j] ?? '')) j++;
          if (text[j] === ':') {
            try {
              keys.push(JSON.parse(text.slice(stringStart, i + 1)) as string);
            } catch {
              // a malformed key is simply not reported
            }
          }
        }
      }
      continue;
    }
    if (ch === '"') {
      inString = true;
      stringStart = i;
    } else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') depth--;
  }
  return keys;
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
  if (first === undefined) return { head, shape: 'empty', topKeys: [], rootElement: null };
  if (first === '<') return { head, shape: 'xml', topKeys: [], rootElement: xmlRootElement(trimmed) };
  if (first === '[') return { head, shape: 'json-array', topKeys: [], rootElement: null };
  if (first === '{') {
    // JSON Lines: a complete object followed by another object on the next line.
    const firstLineEnd = trimmed.indexOf('\n');
    if (firstLineEnd > 0) {
      const firstLine = trimmed.slice(0, firstLineEnd).trim();
      const rest = trimmed.slice(firstLineEnd + 1).trimStart();
      if (rest.startsWith('{') && firstLine.endsWith('}')) {
        try {
          JSON.parse(firstLine);
          return { head, shape: 'jsonl', topKeys: topLevelKeys(firstLine), rootElement: null };
        } catch {
          // not a complete object on one line: a pretty-printed document
        }
      }
    }
    return { head, shape: 'json-object', topKeys: topLevelKeys(trimmed), rootElement: null };
  }
  return { head, shape: 'unknown', topKeys: [], rootElement: null };
}
