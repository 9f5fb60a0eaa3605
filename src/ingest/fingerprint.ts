import { hash } from 'node:crypto';
import type { NormalizedFinding } from './parse/parsers/types.ts';
import { repositoryPath } from './repository-path.ts';

// One-shot hashing: no Hash object per finding (Node ≥ 20.12).
const sha256 = (text: string): string => hash('sha256', text, 'hex');

/** Whitespace is formatting, not identity: re-indenting or re-wrapping code keeps the finding. */
const collapse = (text: string | null): string => (text ?? '').replace(/\s+/g, ' ').trim();

/** One spelling per file (idempotent on paths the stage already made repository-relative). */
const normalizePath = (path: string | null): string => repositoryPath(path) ?? '';

/** Secret-tool fingerprints embed the line (Gitleaks: `commit:file:rule:line`); drop numeric parts. */
function withoutLineParts(fingerprint: string): string {
  return fingerprint
    .split(':')
    .filter((part) => !/^\d+$/.test(part))
    .join(':');
}

/**
 * A secret's tool id or value hash as identity evidence, never spelled like the text evidence
 * (`text:…`) of a result with neither: those are twins and these are not, so one identity for both
 * made the merge insert one fingerprint twice (409 for the upload). Evidence starting `text:` or
 * `tool:` gains a `tool:` prefix, so no two spellings meet; all other evidence (hashes are hex, and
 * so every stored finding but the few migration 2026-11-25T0300 moved) keeps its spelling.
 */
const matchEvidence = (match: string): string => (/^t(?:ext|ool):/.test(match) ? `tool:${match}` : match);

/**
 * The identity material of a finding (docs/architecture.md, "Finding identity"), and whether identical twins
 * within one upload are told apart (by nearest line, at merge time). Every recipe starts with the scope
 * (scanner type, tool, category): a finding belongs to exactly one scope, the one whose uploads may close it.
 * Line numbers never take part, so code moving keeps the identity; paths are repository-relative.
 */
function identity(scannerType: string, f: NormalizedFinding): { parts: string[]; ordinal: boolean } {
  const scope = [scannerType, f.toolName, f.category ?? ''];
  const path = normalizePath(f.filePath);
  switch (f.kind) {
    case 'dependency':
      return {
        parts: [
          'dependency',
          ...scope,
          f.ruleId ?? f.cveIds[0] ?? collapse(f.title),
          f.packageEcosystem ?? '',
          f.packageName ?? '',
          path,
        ],
        ordinal: true,
      };
    case 'license':
      // Package (purl without version, in toolFingerprint) + licence (in ruleId): an upgrade under the
      // same licence is the same finding (docs/architecture.md, "Licence policies").
      return { parts: ['license', ...scope, f.toolFingerprint ?? '', f.ruleId ?? ''], ordinal: false };
    case 'secret': {
      const own = f.toolFingerprint === null ? null : withoutLineParts(f.toolFingerprint);
      const match = own ?? f.secretHash;
      // Without the tool's id or a hash, only the snippet/title remains, and twins must stay apart.
      const evidence =
        match !== null ? matchEvidence(match) : `text:${collapse(f.snippet) || collapse(f.title)}`;
      return { parts: ['secret', ...scope, f.ruleId ?? '', path, evidence], ordinal: match === null };
    }
    default: {
      // code, infrastructure and dast share the code recipe: rule + where + what. A tool's own
      // fingerprint is not unique across files (flawfinder's contextHash repeats for the same call
      // in two files), so it always goes with the path.
      const evidence =
        f.toolFingerprint !== null
          ? ['tool', f.toolFingerprint]
          : ['text', collapse(f.snippet) || collapse(f.title)];
      return { parts: ['code', ...scope, f.ruleId ?? '', 'path', path, ...evidence], ordinal: true };
    }
  }
}

export interface FindingIdentity {
  /** Hex sha256 of the identity material: the fingerprint of the first (or only) such finding. */
  base: string;
  /** Whether identical findings are told apart by their lines (see twinFingerprint and merge/identical-findings.ts). */
  twins: boolean;
}

/**
 * The identity of a finding among the findings of `scannerType` in one application version. Its
 * path must already be repository-relative (`repositoryPath`). Stateless: identical twins (same
 * rule, file and snippet on two lines, or a tool repeating a result) share a base; the merge tells
 * them apart by nearest line against the version's findings (merge/identical-findings.ts).
 */
export function findingIdentity(scannerType: string, finding: NormalizedFinding): FindingIdentity {
  const { parts, ordinal } = identity(scannerType, finding);
  // JSON keeps the parts unambiguous ("a|b" + "c" never equals "a" + "b|c").
  return { base: sha256(JSON.stringify(parts)), twins: ordinal };
}

/**
 * The fingerprint of the n-th twin of a base (0-based). The first keeps the plain base, so a twin
 * appearing later changes nothing before it; ordinals are handed out by the merge (merge/identical-findings.ts).
 */
export function twinFingerprint(base: string, ordinal: number): string {
  return ordinal === 0 ? base : sha256(`${base}#${ordinal}`);
}
