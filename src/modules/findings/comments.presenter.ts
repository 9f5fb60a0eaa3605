import { iso } from '../../http/schemas.ts';
import type { CommentRow } from './comments.repository.ts';
import type { CommentRecord } from './comments.schema.ts';

export function presentComment(row: CommentRow, depth: number): CommentRecord {
  return {
    id: row.id,
    finding_id: row.finding_id,
    parent_id: row.parent_id,
    depth,
    author:
      row.author_id !== null && row.author_email !== null
        ? { id: row.author_id, email: row.author_email, name: row.author_name ?? '' }
        : null,
    content: row.content,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Thread order: top-level comments oldest first, each followed depth-first by its replies. */
export function presentThread(rows: readonly CommentRow[]): CommentRecord[] {
  const children = new Map<number | null, CommentRow[]>();
  const ids = new Set(rows.map((row) => row.id));
  for (const row of rows) {
    // A reply whose parent is missing (never expected: parents cascade) is shown at the top level.
    const parent = row.parent_id !== null && ids.has(row.parent_id) ? row.parent_id : null;
    const siblings = children.get(parent);
    if (siblings) siblings.push(row);
    else children.set(parent, [row]);
  }
  const ordered: CommentRecord[] = [];
  // Iterative depth-first walk: a deep reply chain cannot overflow the stack.
  const stack: { row: CommentRow; depth: number }[] = (children.get(null) ?? [])
    .map((row) => ({ row, depth: 0 }))
    .reverse();
  for (let next = stack.pop(); next; next = stack.pop()) {
    ordered.push(presentComment(next.row, next.depth));
    const replies = children.get(next.row.id) ?? [];
    for (const reply of [...replies].reverse()) stack.push({ row: reply, depth: next.depth + 1 });
  }
  return ordered;
}
