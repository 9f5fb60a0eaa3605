import { asString } from './json-value.ts';
import { SEVERITIES, type Severity } from '../../../domain/findings/severity.ts';

/** The five normalized levels under their own names; parsers extend it with their tool's words. */
export const STANDARD_SEVERITIES: Readonly<Record<string, Severity>> = Object.fromEntries(
  SEVERITIES.map((level) => [level, level]),
);

/**
 * Looks a tool's severity word up in a parser's table, ignoring case (a table's keys are all upper
 * or all lower case). The word is taken as the parser read it, so each parser keeps its own trimming.
 */
export function severityIn(
  table: Readonly<Record<string, Severity>>,
  word: string | null | undefined,
): Severity | undefined {
  if (word === null || word === undefined) return undefined;
  for (const key of [word.toUpperCase(), word.toLowerCase()]) {
    if (Object.hasOwn(table, key)) return table[key];
  }
  return undefined;
}

/** Words the dependency scanners (Trivy, Grype, Snyk, npm, OSV, CycloneDX, Dependency-Check) use. */
const SEVERITY_WORDS: Record<string, Severity> = {
  ...STANDARD_SEVERITIES,
  important: 'high',
  moderate: 'medium',
  informational: 'info',
  negligible: 'info',
  none: 'info',
  unknown: 'info',
};

/** Maps a tool's severity word onto the normalized scale; anything unrecognised is `info`. */
export function severityFromWord(word: unknown): Severity {
  const text = asString(word)?.toLowerCase();
  return (text !== undefined && SEVERITY_WORDS[text]) || 'info';
}

/** True when the word is one of the recognised severities (so a caller can fall back otherwise). */
export function isSeverityWord(word: unknown): boolean {
  const text = asString(word)?.toLowerCase();
  return text !== undefined && text !== 'unknown' && text in SEVERITY_WORDS;
}

/** CVSS qualitative bands (FIRST CVSS v3 specification, table 14). */
export function severityFromScore(score: number): Severity {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'info';
}
