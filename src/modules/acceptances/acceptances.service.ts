import { sql, type Transaction } from 'kysely';
import type { AcceptanceSource, DB } from '../../db/schema.ts';
import { acceptanceActor, coverFindings, matchedBy } from '../../domain/findings/acceptance-coverage.ts';
import {
  DEFAULT_ACCEPTANCE_REASON,
  EXPIRING_REASONS,
  type DismissalReason,
  type VexJustification,
} from '../../domain/findings/dismissal.ts';
import { SEVERITIES } from '../../domain/findings/severity.ts';
import { AppError, badRequest } from '../../errors.ts';
import type { AcceptanceEventType } from '../../events/event-types.ts';
import { publishEvents } from '../../events/events.ts';
import { effectiveSettings, type EffectiveAcceptanceSettings } from './acceptance-settings.ts';
import {
  acceptanceBySourceKey,
  applicationsOf,
  findingsInScope,
  insertAcceptance,
  worstRankMatching,
  type AcceptanceRow,
} from './acceptances.repository.ts';
import { presentAcceptance } from './acceptances.presenter.ts';

/** The findings an acceptance decides for: named by id, or matched by a rule. */
export type AcceptanceMatch =
  | { findingIds: readonly number[] }
  | { cve?: string | null; ruleId?: string | null; packageName?: string | null; pathPrefix?: string | null };

/**
 * What `createAcceptance` is given. The scope is one application (`applicationId`) or every
 * application of a group (`groupId`); the caller has already authorized write access on it.
 */
export interface AcceptanceInput {
  applicationId?: number;
  groupId?: number;
  match: AcceptanceMatch;
  /** Default `accepted_risk`, which needs `expiresAt`. */
  reason?: DismissalReason;
  justification?: VexJustification | null;
  impactStatement?: string | null;
  comment?: string | null;
  expiresAt?: Date | null;
  /** Who answers for the decision; default the author. */
  ownerId?: number | null;
  /**
   * What made it besides a person's request, e.g. `{ type: 'vex', key, author, document_id }`.
   * With a `key`, making it again (the same VEX statement imported twice) returns the acceptance
   * that key made, still pending or active, unchanged (`created: false`).
   */
  source?: AcceptanceSource | null;
}

export interface AcceptanceAuthor {
  /** The user making it (null: the system); four-eyes approval must come from someone else. */
  userId: number | null;
  /** The clock (tests move it). */
  now?: Date;
}

export interface CreatedAcceptance {
  acceptance: AcceptanceRow;
  /** False when `source.key` named an acceptance made before, returned unchanged. */
  created: boolean;
  /** Findings it covered now (0 when pending, or when it matches nothing yet). */
  covered: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

const invalid = (path: string, message: string, code = 'validation_failed') =>
  badRequest(code, `${path} ${message}`, [{ path, message }]);

function ruleOf(match: AcceptanceMatch) {
  if ('findingIds' in match) return null;
  const rule = {
    cve: match.cve ?? null,
    ruleId: match.ruleId ?? null,
    packageName: match.packageName ?? null,
    pathPrefix: match.pathPrefix ?? null,
  };
  if (rule.cve === null && rule.ruleId === null && rule.packageName === null) {
    throw invalid('body', 'must name finding_ids, or a cve, rule_id or package to match');
  }
  return rule;
}

/** The application's group, or the group itself; 404 when either is gone. */
async function scopeOf(trx: Transaction<DB>, input: AcceptanceInput) {
  if ((input.applicationId === undefined) === (input.groupId === undefined)) {
    throw invalid('body', 'must name exactly one of application_id and group_id');
  }
  if (input.applicationId !== undefined) {
    const app = await trx
      .selectFrom('applications')
      .select(['id', 'group_id'])
      .where('id', '=', input.applicationId)
      .executeTakeFirst();
    if (!app) throw new AppError(404, 'not_found', 'Application not found');
    return { groupId: app.group_id, applicationId: app.id };
  }
  const group = await trx
    .selectFrom('groups')
    .select('id')
    .where('id', '=', input.groupId ?? 0)
    .executeTakeFirst();
  if (!group) throw new AppError(404, 'not_found', 'Group not found');
  return { groupId: group.id, applicationId: null };
}

/**
 * The expiry rules: required for a reason that must end (`accepted_risk`), in the future, and for
 * an accepted risk no further than the settings allow for the worst severity it decides for (the
 * worst of the findings it matches now; matching none yet, `critical`'s, since it may match any).
 */
export function checkExpiry(
  reason: DismissalReason,
  expiresAt: Date | null,
  worstRank: number | null,
  settings: EffectiveAcceptanceSettings,
  now: Date,
): void {
  if (expiresAt === null) {
    if (EXPIRING_REASONS.includes(reason)) {
      throw invalid('body.expires_at', `is required when the reason is ${reason}`, 'expiry_required');
    }
    return;
  }
  if (expiresAt.getTime() <= now.getTime()) throw invalid('body.expires_at', 'must be in the future');
  if (!EXPIRING_REASONS.includes(reason)) return;
  const severity = SEVERITIES[SEVERITIES.length - (worstRank ?? SEVERITIES.length)] ?? 'critical';
  const maxDays = settings.maxDays[severity];
  if (maxDays !== undefined && expiresAt.getTime() - now.getTime() > maxDays * DAY_MS) {
    throw new AppError(
      400,
      'expiry_too_far',
      `An accepted ${severity} risk may last at most ${maxDays} days`,
      {
        severity,
        max_days: maxDays,
        latest: new Date(now.getTime() + maxDays * DAY_MS).toISOString(),
        errors: [{ path: 'body.expires_at', message: `must be within ${maxDays} days for ${severity}` }],
      },
    );
  }
}

/**
 * Makes an acceptance in the caller's transaction. Checks the scope, the finding ids (each must be
 * a finding of the scope: 404 listing those that are not) and the expiry (`checkExpiry`). Under
 * four-eyes settings it is `pending` and changes nothing; else it is `active` and covers the
 * matching findings at once (`coverFindings`). Writes `acceptance.created` per application reached.
 * The caller authorizes (write access on the application or group) and, when `created`, records
 * `acceptance.created` last in its transaction (`recordAcceptanceAudit`, acceptances.audit.ts).
 */
export async function createAcceptance(
  trx: Transaction<DB>,
  input: AcceptanceInput,
  author: AcceptanceAuthor,
): Promise<CreatedAcceptance> {
  const now = author.now ?? new Date();
  const scope = await scopeOf(trx, input);
  const rule = ruleOf(input.match);
  const key = input.source?.['key'];
  if (typeof key === 'string') {
    const existing = await acceptanceBySourceKey(trx, scope.groupId, scope.applicationId, key);
    if (existing) return { acceptance: existing, created: false, covered: 0 };
  }
  const reason = input.reason ?? DEFAULT_ACCEPTANCE_REASON;
  const settings = await effectiveSettings(trx, scope.groupId);
  let fingerprints: string[] = [];
  let worstRank: number | null;
  if (rule === null) {
    const ids = [...new Set((input.match as { findingIds: readonly number[] }).findingIds)];
    if (ids.length === 0) throw invalid('body.finding_ids', 'must name at least one finding');
    const found = await findingsInScope(trx, ids, scope.groupId, scope.applicationId);
    const missing = ids.filter((id) => !found.some((row) => row.id === id));
    if (missing.length > 0) {
      throw new AppError(404, 'not_found', 'Findings not found in the acceptance’s scope', { ids: missing });
    }
    fingerprints = found.map((row) => row.fingerprint);
    worstRank = Math.max(...found.map((row) => row.severity_rank));
  } else {
    worstRank = await worstRankMatching(trx, scope.groupId, scope.applicationId, rule);
  }
  const expiresAt = input.expiresAt ?? null;
  checkExpiry(reason, expiresAt, worstRank, settings, now);

  const acceptance = await insertAcceptance(
    trx,
    {
      group_id: scope.groupId,
      application_id: scope.applicationId,
      status: settings.fourEyes ? 'pending' : 'active',
      reason,
      justification: input.justification ?? null,
      impact_statement: input.impactStatement ?? null,
      comment: input.comment ?? null,
      finding_ids: rule === null ? [...new Set((input.match as { findingIds: number[] }).findingIds)] : null,
      match_cve: rule?.cve ?? null,
      match_rule_id: rule?.ruleId ?? null,
      match_package: rule?.packageName ?? null,
      match_path_prefix: rule?.pathPrefix ?? null,
      expires_at: expiresAt,
      owner_id: input.ownerId ?? author.userId,
      created_by: author.userId,
      source: input.source ? JSON.stringify(input.source) : null,
      created_at: now,
      updated_at: now,
    },
    fingerprints,
  );
  const covered = acceptance.status === 'active' ? await coverAcceptance(trx, acceptance, now) : 0;
  await publishAcceptanceEvent(trx, 'acceptance.created', acceptance, { covered_findings: covered });
  return { acceptance, created: true, covered };
}

/** Covers every finding an active acceptance matches now, in its scope. */
export async function coverAcceptance(
  trx: Transaction<DB>,
  acceptance: AcceptanceRow,
  now: Date,
): Promise<number> {
  const inScope =
    acceptance.application_id !== null
      ? sql<boolean>`f.application_id = ${acceptance.application_id}::integer`
      : sql<boolean>`app.group_id = ${acceptance.group_id}::integer`;
  // A rule's own columns first, as plain conditions on the finding, so only the findings it can
  // match reach the per-finding lookups (implied by matchedBy; VEX imports make hundreds at once).
  const byRule =
    acceptance.finding_ids !== null
      ? sql<boolean>`true`
      : sql<boolean>`(${acceptance.match_cve}::text is null or ${acceptance.match_cve}::text = any (f.cve_ids))
        and (${acceptance.match_rule_id}::text is null or f.rule_id = ${acceptance.match_rule_id}::text)
        and (${acceptance.match_package}::text is null or f.package_name = ${acceptance.match_package}::text)`;
  // The findings this acceptance matches; the oldest active match among all covers each.
  return coverFindings(trx, sql<boolean>`${inScope} and ${byRule} and ${matchedBy(acceptance.id)}`, { now });
}

/** One outbox event per application the acceptance reaches, carrying the acceptance. */
export async function publishAcceptanceEvent(
  trx: Transaction<DB>,
  type: AcceptanceEventType,
  acceptance: AcceptanceRow,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const applicationIds = await applicationsOf(trx, acceptance);
  const data = { acceptance: presentAcceptance(acceptance), ...extra };
  await publishEvents(
    trx,
    applicationIds.map((applicationId) => ({ type, applicationId, data })),
  );
}

export { acceptanceActor };
