/**
 * The normalized severity scale every tool's own scale is mapped onto, most severe first. The one
 * list: parsers, filters, schemas, risk and the dashboard all take it from here.
 */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Stored in `findings.severity_rank` so "most severe first" is an index order: critical 5 … info 1. */
export function severityRank(severity: Severity): number {
  return SEVERITIES.length - SEVERITIES.indexOf(severity);
}

/** Negative when `a` is less severe than `b` (sorts least severe first; negate for most severe first). */
export function compareSeverity(a: Severity, b: Severity): number {
  return severityRank(a) - severityRank(b);
}

/** The level named exactly (any case, surrounding blanks ignored), or undefined for any other word. */
export function parseSeverity(word: string | null | undefined): Severity | undefined {
  const text = word?.trim().toLowerCase();
  return (SEVERITIES as readonly string[]).find((level) => level === text) as Severity | undefined;
}
