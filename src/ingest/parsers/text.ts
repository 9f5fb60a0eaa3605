/** Plain text out of the HTML fragments scanners put in descriptions and remediation advice. */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Tags that end a line in every report; a parser may add its tool's own (`/table`, `/pre`, …). */
const LINE_ENDING_TAGS = ['br', '/p', '/h\\d', '/ul', '/div'];

function decodeEntity(entity: string, name: string): string {
  if (!name.startsWith('#')) return ENTITIES[name.toLowerCase()] ?? entity;
  const code = name[1]?.toLowerCase() === 'x' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
}

/**
 * HTML to plain text: list items become "- " lines, block ends become line breaks, other tags go,
 * entities are decoded, and runs of blank lines fold to one. `extraLineEnds` are more closing tags
 * (regular-expression source, e.g. `/tr`) that end a line.
 */
export function htmlToText(html: string, extraLineEnds: readonly string[] = []): string {
  const lineEnds = new RegExp(`<(${[...LINE_ENDING_TAGS, ...extraLineEnds].join('|')})\\s*\\/?>`, 'gi');
  return html
    .replace(/\s*<li[^>]*>\s*/gi, '\n- ')
    .replace(lineEnds, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, decodeEntity)
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** `htmlToText` for an optional fragment: null for none and for one without any text. */
export function htmlFragmentText(html: string | null, extraLineEnds: readonly string[] = []): string | null {
  if (html === null) return null;
  return htmlToText(html, extraLineEnds) || null;
}
