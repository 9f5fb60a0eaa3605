import { LIST_ITEMS, PARSED_FIELD_CAPS } from '../domain/findings/columns.ts';
import type { NormalizedFinding } from './parse/parsers/types.ts';

const capOf = (field: string): number => {
  const cap = PARSED_FIELD_CAPS.find((entry) => entry.field === field)?.cap;
  if (cap === undefined) throw new Error(`no cap for ${field} in domain/findings/columns.ts`);
  return cap;
};

/**
 * Upper bounds, in UTF-16 code units, of every string a report supplies. A finding is for people to
 * read: a 50 MB tool name or a megabyte title is a broken or hostile report, and it must neither be
 * stored whole nor echoed back by every scan listing. Long text is cut, never refused. The bounds of
 * the finding's columns are the registry's (domain/findings/columns.ts, `cap` and `items`);
 * `capFindingFields` applies each, which `test/findings/finding-columns.test.ts` checks field by field.
 */
export const FIELD_CAPS = {
  toolName: capOf('toolName'),
  toolVersion: capOf('toolVersion'),
  title: capOf('title'),
  description: capOf('description'),
  remediation: capOf('remediation'),
  snippet: capOf('snippet'),
  filePath: capOf('filePath'),
  ruleId: capOf('ruleId'),
  category: capOf('category'),
  packageName: capOf('packageName'),
  packageVersion: capOf('packageVersion'),
  fixedVersion: capOf('fixedVersion'),
  cvssVector: capOf('cvssVector'),
  toolFingerprint: capOf('toolFingerprint'),
  /** Hashed into the identity, never stored. */
  secretHash: 200,
  cveId: capOf('cveIds'),
  reference: capOf('references'),
  /** Entries kept of each list (CVE ids, CWE ids, references). */
  listItems: LIST_ITEMS,
} as const;

export const TRUNCATED_MARKER = '… [truncated]';

/**
 * `value` without NUL characters (PostgreSQL text cannot hold them) and at most `cap` long; when cut,
 * it ends with a visible marker so a reader knows there was more.
 */
export function capText(value: string, cap: number): string {
  const text = value.includes('\u0000') ? value.replaceAll('\u0000', '') : value;
  if (text.length <= cap) return text;
  let end = cap - TRUNCATED_MARKER.length;
  // Never leave half a surrogate pair at the cut.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + TRUNCATED_MARKER;
}

const capNullable = (value: string | null, cap: number): string | null =>
  value === null ? null : capText(value, cap);

/**
 * The finding with every report-supplied string capped (see `FIELD_CAPS`). Applied once to every
 * parsed finding before it is fingerprinted and staged, so no parser has to remember it.
 */
export function capFindingFields(finding: NormalizedFinding): NormalizedFinding {
  const caps = FIELD_CAPS;
  return {
    ...finding,
    toolName: capText(finding.toolName, caps.toolName),
    toolVersion: capNullable(finding.toolVersion, caps.toolVersion),
    title: capText(finding.title, caps.title),
    description: capNullable(finding.description, caps.description),
    remediation: capNullable(finding.remediation, caps.remediation),
    snippet: capNullable(finding.snippet, caps.snippet),
    filePath: capNullable(finding.filePath, caps.filePath),
    ruleId: capNullable(finding.ruleId, caps.ruleId),
    category: capNullable(finding.category, caps.category),
    packageName: capNullable(finding.packageName, caps.packageName),
    packageVersion: capNullable(finding.packageVersion, caps.packageVersion),
    fixedVersion: capNullable(finding.fixedVersion, caps.fixedVersion),
    cvssVector: capNullable(finding.cvssVector, caps.cvssVector),
    toolFingerprint: capNullable(finding.toolFingerprint, caps.toolFingerprint),
    secretHash: capNullable(finding.secretHash, caps.secretHash),
    cveIds: finding.cveIds.slice(0, caps.listItems).map((id) => capText(id, caps.cveId)),
    cweIds: finding.cweIds.slice(0, caps.listItems),
    references: finding.references.slice(0, caps.listItems).map((ref) => capText(ref, caps.reference)),
  };
}
