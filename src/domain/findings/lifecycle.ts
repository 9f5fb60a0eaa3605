import { sql, type RawBuilder } from 'kysely';

/**
 * The statuses of a finding and the moves between them: the one place that lists them. The API's
 * enums, the policies, the merge's SQL and the web UI (through the API's generated types) take them
 * from here.
 */
export const FINDING_STATUSES = ['open', 'confirmed', 'false_positive', 'fixed'] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];

/** Statuses of a finding that still asks for work: it counts as open everywhere (dashboard, gates, trackers). */
export const OPEN_STATUSES = ['open', 'confirmed'] as const satisfies readonly FindingStatus[];
/** Statuses of a finding done with: fixed, or dismissed as a false positive. */
export const CLOSED_STATUSES = ['fixed', 'false_positive'] as const satisfies readonly FindingStatus[];
export type ClosedStatus = (typeof CLOSED_STATUSES)[number];

/** A new finding's status, unless its tool dismissed it. */
export const NEW_STATUS = 'open' satisfies FindingStatus;
/** The status a finding gets when its tool marks it suppressed, accepted or not affected. */
export const DISMISSED_BY_TOOL = 'false_positive' satisfies FindingStatus;
/** Triage a person made that a new finding inherits from the same finding in another version. */
export const INHERITED_STATUSES = ['false_positive', 'confirmed'] as const satisfies readonly FindingStatus[];

export const isOpenStatus = (status: string): boolean =>
  (OPEN_STATUSES as readonly string[]).includes(status);

/** `status` if it is a closed one, else `fixed` (a closed status read from a stored setting). */
export const closedStatusOr = (status: string): ClosedStatus =>
  (CLOSED_STATUSES as readonly string[]).includes(status) ? (status as ClosedStatus) : 'fixed';

/**
 * Manual transitions (docs/architecture.md, "Lifecycle": the interface's table plus false_positive → open).
 * Ingest and policies move findings outside this table: the system moves below, and any policy target.
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

/** System move: an open finding its upload no longer reports is fixed (as GitHub closes alerts). */
export const statusOnAbsence = (from: FindingStatus): FindingStatus => (isOpenStatus(from) ? 'fixed' : from);

/** System move: a fixed finding reported again is open again; triage stays. */
export const statusOnReturn = (from: FindingStatus): FindingStatus => (from === 'fixed' ? 'open' : from);

const listed = (statuses: readonly FindingStatus[]) => sql.join(statuses.map((status) => sql.lit(status)));

/** SQL: whether the status in `column` is open (literals, so the planner matches partial indexes). */
export const isOpen = (column: RawBuilder<unknown>): RawBuilder<boolean> =>
  sql<boolean>`${column} in (${listed(OPEN_STATUSES)})`;

/** SQL: whether the status in `column` is triage that other versions inherit (`INHERITED_STATUSES`). */
export const isInherited = (column: RawBuilder<unknown>): RawBuilder<boolean> =>
  sql<boolean>`${column} in (${listed(INHERITED_STATUSES)})`;

/** SQL of `statusOnAbsence` for the status in `column`, and when a finding it fixes was fixed. */
export const closeOnAbsence = (column: RawBuilder<unknown>, fixedAt: RawBuilder<unknown>) => ({
  status: sql<FindingStatus>`case when ${isOpen(column)} then ${sql.lit(statusOnAbsence('open'))} else ${column} end`,
  fixedAt: sql`case when ${isOpen(column)} then now() else ${fixedAt} end`,
});

/** SQL of `statusOnReturn` for the status in `column`. */
export const reopen = (column: RawBuilder<unknown>): RawBuilder<FindingStatus> =>
  sql<FindingStatus>`case when ${column} = ${sql.lit('fixed')} then ${sql.lit(statusOnReturn('fixed'))} else ${column} end`;

/** SQL: whether a finding in `column`'s status is fixed (a return clears its fixed time). */
export const isFixed = (column: RawBuilder<unknown>): RawBuilder<boolean> =>
  sql<boolean>`${column} = ${sql.lit('fixed')}`;
