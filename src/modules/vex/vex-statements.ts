import type { FindingStatus } from '../../db/schema.ts';
import type { DismissalReason, VexJustification } from '../../domain/findings/dismissal.ts';
import type { VexStatus } from './vex.schema.ts';

/**
 * What scanhub states about a version's vulnerabilities, independent of the format written: one
 * statement per vulnerability and package (purl), from the status of the findings behind it. Pure,
 * so the mapping is tested without a database (docs/architecture.md, "VEX").
 */

/** A vulnerability finding of the version, with what decided its status. */
export interface VexFinding {
  id: number;
  kind: string;
  status: FindingStatus;
  reviewed: boolean;
  rule_id: string | null;
  cve_ids: string[];
  package_name: string | null;
  package_version: string | null;
  fixed_version: string | null;
  remediation: string | null;
  dismissal_reason: DismissalReason | null;
  dismissal_comment: string | null;
  /** The package URL of its package in this version (from the version's components), else built. */
  purl: string | null;
  acceptance: {
    reason: DismissalReason;
    justification: VexJustification | null;
    impact_statement: string | null;
    comment: string | null;
    expires_at: Date | null;
  } | null;
}

export interface VexStatement {
  vulnerability: string;
  aliases: string[];
  /** The package the statement is about; null: the product itself (a finding without a package). */
  purl: string | null;
  status: VexStatus;
  justification: VexJustification | null;
  impact_statement: string | null;
  action_statement: string | null;
  status_notes: string | null;
  /** For CycloneDX's `analysis.response`. */
  response: 'update' | 'will_not_fix' | null;
  finding_ids: number[];
}

/** The longest free text carried into a statement. */
const TEXT_CAP = 4_000;
const cap = (text: string | null): string | null =>
  text === null || text.trim() === ''
    ? null
    : text.length > TEXT_CAP
      ? `${text.slice(0, TEXT_CAP - 1)}…`
      : text;

/** A finding VEX can speak of: one with a CVE, or a dependency finding (its rule id is an advisory id). */
export function isVexFinding(finding: Pick<VexFinding, 'kind' | 'cve_ids' | 'rule_id'>): boolean {
  return finding.cve_ids.length > 0 || (finding.kind === 'dependency' && finding.rule_id !== null);
}

/** The vulnerability's name (its first CVE, else its advisory id) and its other ids, sorted. */
export function vulnerabilityIds(finding: Pick<VexFinding, 'kind' | 'cve_ids' | 'rule_id'>): {
  name: string;
  aliases: string[];
} {
  const cves = [...new Set(finding.cve_ids)].sort();
  const others = finding.kind === 'dependency' && finding.rule_id !== null ? [finding.rule_id] : [];
  const ids = [...new Set([...cves, ...others])];
  const name = ids[0] ?? '';
  return { name, aliases: ids.slice(1).sort() };
}

const dateOf = (date: Date) => date.toISOString().slice(0, 10);

function acceptedAction(reason: DismissalReason, expires: Date | null, comment: string | null): string {
  const words = reason === 'wont_fix' ? 'Will not fix' : 'Risk accepted';
  return `${words}${expires === null ? '' : ` until ${dateOf(expires)}`}${comment ? `: ${comment}` : ''}`;
}

function upgradeAction(finding: VexFinding): string {
  if (finding.fixed_version !== null && finding.package_name !== null) {
    return `Upgrade ${finding.package_name} to ${finding.fixed_version} or later.`;
  }
  return (
    cap(finding.remediation) ?? 'No fixed version is known yet; the vulnerability is tracked for remediation.'
  );
}

type Judgement = Omit<VexStatement, 'vulnerability' | 'aliases' | 'purl' | 'finding_ids'>;

const base = (status: VexStatus): Judgement => ({
  status,
  justification: null,
  impact_statement: null,
  action_statement: null,
  status_notes: null,
  response: null,
});

/**
 * One finding's statement: accepted with a justification (or an impact statement) → not_affected;
 * a false positive → not_affected, vulnerable_code_not_present (used in tests:
 * vulnerable_code_not_in_execute_path); an accepted risk or won't-fix without either → affected,
 * with the acceptance as its action; fixed → fixed; open and never reviewed → under_investigation;
 * confirmed (or open after a review) → affected, with how to fix it.
 */
export function judge(finding: VexFinding): Judgement {
  if (finding.status === 'fixed') return base('fixed');
  if (finding.status === 'false_positive') {
    const acceptance = finding.acceptance;
    if (acceptance !== null) {
      if (acceptance.justification !== null || acceptance.impact_statement !== null) {
        return {
          ...base('not_affected'),
          justification: acceptance.justification,
          impact_statement: cap(acceptance.impact_statement),
          status_notes: cap(acceptance.comment),
        };
      }
      if (acceptance.reason === 'accepted_risk' || acceptance.reason === 'wont_fix') {
        return {
          ...base('affected'),
          action_statement: acceptedAction(acceptance.reason, acceptance.expires_at, cap(acceptance.comment)),
          response: 'will_not_fix',
        };
      }
    }
    const reason = acceptance?.reason ?? finding.dismissal_reason;
    if (reason === 'accepted_risk' || reason === 'wont_fix') {
      return {
        ...base('affected'),
        action_statement: acceptedAction(reason, null, cap(finding.dismissal_comment)),
        response: 'will_not_fix',
      };
    }
    return {
      ...base('not_affected'),
      justification:
        reason === 'used_in_tests' ? 'vulnerable_code_not_in_execute_path' : 'vulnerable_code_not_present',
      status_notes: cap(acceptance?.comment ?? finding.dismissal_comment),
    };
  }
  if (finding.status === 'open' && !finding.reviewed) return base('under_investigation');
  return {
    ...base('affected'),
    action_statement: upgradeAction(finding),
    response: finding.fixed_version !== null ? 'update' : null,
  };
}

/** Code-unit order: the same in every locale. */
export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Which status wins when several findings speak of one vulnerability in one package: the worst. */
const PRECEDENCE: Record<VexStatus, number> = {
  affected: 4,
  under_investigation: 3,
  not_affected: 2,
  fixed: 1,
};

/**
 * The statements of a version, one per vulnerability and purl, in a stable order (vulnerability,
 * then purl), whatever order the findings come in. The findings behind one statement agree on it by
 * the worst status; its texts are those of the lowest finding id with that status.
 */
export function statementsOf(findings: readonly VexFinding[]): VexStatement[] {
  const byKey = new Map<string, { statement: VexStatement; leader: number }>();
  for (const finding of [...findings].filter(isVexFinding).sort((a, b) => a.id - b.id)) {
    const { name, aliases } = vulnerabilityIds(finding);
    const key = `${name}\u0000${finding.purl ?? ''}`;
    const judgement = judge(finding);
    const entry = byKey.get(key);
    if (entry === undefined) {
      byKey.set(key, {
        statement: {
          vulnerability: name,
          aliases,
          purl: finding.purl,
          ...judgement,
          finding_ids: [finding.id],
        },
        leader: finding.id,
      });
      continue;
    }
    const { statement } = entry;
    statement.finding_ids.push(finding.id);
    statement.aliases = [...new Set([...statement.aliases, ...aliases])].filter((id) => id !== name).sort();
    if (PRECEDENCE[judgement.status] > PRECEDENCE[statement.status]) {
      Object.assign(statement, judgement);
      entry.leader = finding.id;
    }
  }
  return [...byKey.values()]
    .map(({ statement }) => statement)
    .sort((a, b) => byCodeUnits(a.vulnerability, b.vulnerability) || byCodeUnits(a.purl ?? '', b.purl ?? ''));
}
