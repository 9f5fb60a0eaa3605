/**
 * Splits a JSON object's text into its members ("key": value) exactly as written, so a test can
 * reorder them without re-serialising anything else (number spellings, whitespace, escapes and the
 * file size stay as the tool wrote them). Returns null when the text is not one JSON object.
 */
export function objectMembers(text: string): string[] | null {
  const open = text.indexOf('{');
  if (open === -1 || text.slice(0, open).trim() !== '') return null;
  const members: string[] = [];
  let depth = 0;
  let inString = false;
  let start = open + 1;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) {
        if (text.slice(i + 1).trim() !== '') return null;
        const last = text.slice(start, i);
        if (last.trim() !== '') members.push(last);
        return members;
      }
    } else if (ch === ',' && depth === 1) {
      members.push(text.slice(start, i));
      start = i + 1;
    }
  }
  return null;
}

/** The object with its members in the given order (`order[i]` = index of the member to put i-th). */
export function reorderedObject(members: readonly string[], order: readonly number[]): string {
  return `{${order.map((index) => members[index]).join(',')}}`;
}
