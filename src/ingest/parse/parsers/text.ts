/**
 * Plain text out of the HTML fragments scanners put in descriptions and remediation advice.
 *
 * Report text is hostile input of any size, so everything here is a single left-to-right scan:
 * the regular expressions this replaced (`\s*<li`, `<[^>]*>`, `[ \t]+\n`) were quadratic on 64 Ki
 * spaces or 110 Ki unclosed `<` and held the event loop for seconds.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Tags that end a line in every report; a parser may add its tool's own (`/table`, `/pre`, …). */
const LINE_ENDING_TAGS = ['br', '/p', '/h\\d', '/ul', '/div'];

/** Longer tag bodies cannot be one of the short line-ending tags; they are not matched at all. */
const MAX_CLASSIFIED_TAG = 64;
/** `&#x10ffff;` and the longest named entity we decode fit well within this. */
const MAX_ENTITY = 12;

const isSpace = (char: string | undefined): boolean =>
  char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\f' || char === '\v';

function decodeEntity(name: string): string | undefined {
  if (!name.startsWith('#')) return ENTITIES[name.toLowerCase()];
  const hex = name[1] === 'x' || name[1] === 'X';
  const digits = name.slice(hex ? 2 : 1);
  if (!(hex ? /^[0-9a-f]+$/i : /^\d+$/).test(digits)) return undefined;
  const code = parseInt(digits, hex ? 16 : 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

/** Decodes `&name;`, `&#n;` and `&#xh;`; anything else stays as written. Linear. */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  let out = '';
  let from = 0;
  let semi = -1;
  for (let amp = text.indexOf('&'); amp !== -1; amp = text.indexOf('&', amp + 1)) {
    // Reused while it lies ahead, so a run of `&` before one far `;` is still one scan.
    if (semi <= amp) semi = text.indexOf(';', amp + 1);
    if (semi === -1) break;
    if (semi - amp - 1 > MAX_ENTITY || semi === amp + 1) continue;
    const name = text.slice(amp + 1, semi);
    if (!/^(#x[0-9a-f]+|#\d+|[a-z]+)$/i.test(name)) continue;
    const decoded = decodeEntity(name);
    if (decoded === undefined) continue;
    out += text.slice(from, amp) + decoded;
    from = semi + 1;
    amp = semi;
  }
  return out + text.slice(from);
}

/** Trailing spaces and tabs go from every line, and runs of blank lines fold to one. */
function tidyLines(text: string): string {
  const lines: string[] = [];
  let blank = 0;
  for (const raw of text.split('\n')) {
    let end = raw.length;
    while (end > 0 && (raw[end - 1] === ' ' || raw[end - 1] === '\t')) end--;
    const line = end === raw.length ? raw : raw.slice(0, end);
    blank = line === '' ? blank + 1 : 0;
    if (blank <= 1) lines.push(line);
  }
  return lines.join('\n').trim();
}

/** What a tag turns into: a list bullet, a line break, or nothing. */
function classifyTag(body: string, lineEnd: RegExp): 'li' | 'line' | 'other' {
  if (body.length > MAX_CLASSIFIED_TAG) {
    return /^li(?=[\s/>]|$)/i.test(body.slice(0, 3)) ? 'li' : 'other';
  }
  if (/^li(?=[\s/]|$)/i.test(body)) return 'li';
  let end = body.length;
  if (body[end - 1] === '/') end--;
  while (end > 0 && isSpace(body[end - 1])) end--;
  return lineEnd.test(body.slice(0, end)) ? 'line' : 'other';
}

/**
 * HTML to plain text: list items become "- " lines, block ends become line breaks, other tags go,
 * entities are decoded, and runs of blank lines fold to one. `extraLineEnds` are more closing tags
 * (regular-expression source, e.g. `/tr`) that end a line. A `<` with no `>` after it is text.
 */
export function htmlToText(html: string, extraLineEnds: readonly string[] = []): string {
  const lineEnd = new RegExp(`^(?:${[...LINE_ENDING_TAGS, ...extraLineEnds].join('|')})$`, 'i');
  const parts: string[] = [];
  let from = 0;
  // Position of the next `>`; -1 once none is left, so a run of unclosed `<` costs one scan in all.
  let close = html.indexOf('>');
  let open = html.indexOf('<');
  while (open !== -1 && close !== -1) {
    if (close < open) close = html.indexOf('>', open);
    if (close === -1) break;
    // `a < b <br>`: the tag is the last `<` before the `>`; the earlier ones are text.
    open = html.lastIndexOf('<', close);
    const kind = classifyTag(html.slice(open + 1, close), lineEnd);
    let text = html.slice(from, open);
    let next = close + 1;
    if (kind === 'li') {
      text = text.trimEnd();
      while (isSpace(html[next])) next++;
    }
    parts.push(text, kind === 'li' ? '\n- ' : kind === 'line' ? '\n' : '');
    from = next;
    open = html.indexOf('<', next);
  }
  parts.push(html.slice(from));
  return tidyLines(decodeEntities(parts.join('')));
}

/** `htmlToText` for an optional fragment: null for none and for one without any text. */
export function htmlFragmentText(html: string | null, extraLineEnds: readonly string[] = []): string | null {
  if (html === null) return null;
  return htmlToText(html, extraLineEnds) || null;
}

/**
 * Percent-encoding undone (a URI's path, a package URL's name), or the text as written where a stray
 * `%` makes it no valid encoding: then it is more likely a literal than an encoding error.
 */
export function decodePercent(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
