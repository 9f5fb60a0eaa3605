/** A finding's statuses; the table types (db/schema.ts) take the type from here. */
export const FINDING_STATUSES = ['open', 'confirmed', 'false_positive', 'fixed'] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];

/**
 * Manual transitions (spec table plus DESIGN.md §6's false_positive → open). Ingest and policies
 * move findings outside this table (fixed on disappearance, reopen on return, any policy target).
 */
const NEXT: Record<FindingStatus, readonly FindingStatus[]> = {
  open: ['confirmed', 'false_positive'],
  confirmed: ['fixed', 'false_positive'],
  fixed: ['open'],
  false_positive: ['open'],
};

export function allowedNextStatuses(from: FindingStatus): readonly FindingStatus[] {
  return NEXT[from];
}

/** `same` when nothing changes (200, no timeline entry), else whether the move is allowed. */
export function checkTransition(from: FindingStatus, to: FindingStatus): 'same' | 'allowed' | 'invalid' {
  if (from === to) return 'same';
  return NEXT[from].includes(to) ? 'allowed' : 'invalid';
}
