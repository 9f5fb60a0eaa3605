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

/**
 * Computes finding fingerprints for ONE upload. It is stateful because identical twins (same rule,
 * file and snippet on two lines, or a tool repeating a result) must get distinct fingerprints: the
 * first keeps the plain hash, so a finding's fingerprint does not change when a twin appears
 * later; the n-th twin gets the hash of (identity, n). The order of twins within a report is the
 * tool's and stable, so re-uploading the same report reproduces the same fingerprints.
 */
export class Fingerprinter {
  private readonly seen = new Map<string, number>();

  /** Hex sha256 identifying `finding` among the findings of `scannerType` in one application version. */
  fingerprint(scannerType: string, finding: NormalizedFinding): string {
    const { parts, ordinal } = identity(scannerType, finding);
    // JSON keeps the parts unambiguous ("a|b" + "c" never equals "a" + "b|c").
    const base = sha256(JSON.stringify(parts));
    if (!ordinal) return base;
    const twin = this.seen.get(base) ?? 0;
    this.seen.set(base, twin + 1);
    return twin === 0 ? base : sha256(`${base}#${twin}`);
  }
}
