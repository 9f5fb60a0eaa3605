import { createHash } from 'node:crypto';
import type { NormalizedFinding } from './parsers/types.ts';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Whitespace is formatting, not identity: re-indenting or re-wrapping code keeps the finding. */
const collapse = (text: string | null): string => (text ?? '').replace(/\s+/g, ' ').trim();

/** One spelling per file: separators unified, `./` and leading slashes dropped. */
function normalizePath(path: string | null): string {
  return (path ?? '')
    .replaceAll('\\', '/')
    .replace(/\/{2,}/g, '/')
    .replace(/^(\.?\/)+/, '');
}

/** Secret-tool fingerprints embed the line (Gitleaks: `commit:file:rule:line`); drop numeric parts. */
function withoutLineParts(fingerprint: string): string {
  return fingerprint
    .split(':')
    .filter((part) => !/^\d+$/.test(part))
    .join(':');
}

/**
 * The identity material of a finding (DESIGN.md §5), and whether identical twins within one upload
 * are told apart by an ordinal. Line numbers never take part, so code moving keeps the identity.
 */
function identity(scannerType: string, f: NormalizedFinding): { parts: string[]; ordinal: boolean } {
  const category = f.category === null ? [] : ['category', f.category];
  switch (f.kind) {
    case 'dependency':
      return {
        parts: [
          'dependency',
          scannerType,
          f.ruleId ?? f.cveIds[0] ?? collapse(f.title),
          f.packageName ?? '',
          normalizePath(f.filePath),
          ...category,
        ],
        ordinal: true,
      };
    case 'secret': {
      const own = f.toolFingerprint === null ? null : withoutLineParts(f.toolFingerprint);
      const match = own ?? f.secretHash;
      // Without the tool's id or a hash, only the snippet/title remains, and twins must stay apart.
      const evidence = match ?? `text:${collapse(f.snippet) || collapse(f.title)}`;
      return {
        parts: ['secret', scannerType, f.ruleId ?? '', normalizePath(f.filePath), evidence, ...category],
        ordinal: match === null,
      };
    }
    default: {
      // code, infrastructure and dast share the code recipe: rule + where + what.
      const evidence =
        f.toolFingerprint !== null
          ? ['tool', f.toolFingerprint]
          : ['path', normalizePath(f.filePath), 'text', collapse(f.snippet) || collapse(f.title)];
      return {
        parts: ['code', scannerType, f.toolName, f.ruleId ?? '', ...evidence, ...category],
        ordinal: true,
      };
    }
  }
}

export interface FindingIdentity {
  /** Hex sha256 of the identity material: the fingerprint of the first (or only) such finding. */
  base: string;
  /** Whether identical findings in one upload are told apart by their order (see twinFingerprint). */
  twins: boolean;
}

/**
 * The identity of a finding among the findings of `scannerType` in one application version.
 * Stateless: identical twins (same rule, file and snippet on two lines, or a tool repeating a
 * result) share a base and are numbered in the order the report lists them, in SQL at merge time,
 * so the upload's size never grows memory here.
 */
export function findingIdentity(scannerType: string, finding: NormalizedFinding): FindingIdentity {
  const { parts, ordinal } = identity(scannerType, finding);
  // JSON keeps the parts unambiguous ("a|b" + "c" never equals "a" + "b|c").
  return { base: sha256(JSON.stringify(parts)), twins: ordinal };
}

/**
 * The fingerprint of the n-th twin (0-based). The first keeps the plain base, so a twin appearing
 * later changes nothing before it. Mirrors the SQL in `numberTwins` (stage.ts).
 */
export function twinFingerprint(base: string, ordinal: number): string {
  return ordinal === 0 ? base : sha256(`${base}#${ordinal}`);
}
