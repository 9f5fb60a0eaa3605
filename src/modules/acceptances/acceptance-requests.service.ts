import { sql, type Kysely, type Transaction } from 'kysely';
import { authorizeOne, whereAccessible } from '../../access/access.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { AcceptanceRow as ResolvedAcceptance } from '../../access/resources.ts';
import type { DB } from '../../db/schema.ts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import type { AuditContext } from '../../events/audit.ts';
import type { JobSender } from '../../jobs/job-map.ts';
import { parseDueDate } from '../findings/assign.service.ts';
import { effectiveSettings } from './acceptance-settings.ts';
import {
  approveAcceptance,
  extendAcceptance,
  rejectAcceptance,
  revokeAcceptance,
} from './acceptance-lifecycle.service.ts';
import { recordAcceptanceAudit } from './acceptances.audit.ts';
import { expiresWithin, presentAcceptance } from './acceptances.presenter.ts';
import { acceptanceById, lockAcceptance, worstRankOf, type AcceptanceRow } from './acceptances.repository.ts';
import type {
  AcceptanceListInput,
  AcceptanceRecord,
  CreateAcceptanceInput,
  DecisionInput,
  ExtendInput,
} from './acceptances.schema.ts';
import { checkExpiry, createAcceptance } from './acceptances.service.ts';

/** The API's side of acceptances: each function is one route's work, in its own transaction. */

type Jobs = Pick<JobSender, 'sendMany'>;

function expiryOf(text: string | null | undefined, path: string): Date | null {
  if (text === undefined || text === null) return null;
  const date = parseDueDate(text);
  if (date === null) {
    throw badRequest('validation_failed', `${path} is not an ISO 8601 date`, [
      { path, message: 'must be an ISO 8601 date or date-time' },
    ]);
  }
  return date;
}

async function withCoverage(db: Kysely<DB>, row: AcceptanceRow): Promise<AcceptanceRecord> {
  const { count } = await db
    .selectFrom('findings')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('acceptance_id', '=', row.id)
    .executeTakeFirstOrThrow();
  return presentAcceptance(row, Number(count));
}

/** POST /api/acceptances: write on the application (or group) it names, then `createAcceptance`. */
export async function createFromRequest(
  db: Kysely<DB>,
  user: UserPrincipal,
  input: CreateAcceptanceInput,
  audit: AuditContext,
  now = new Date(),
): Promise<AcceptanceRecord> {
  const expiresAt = expiryOf(input.expires_at, 'body.expires_at');
  const rule = input.cve !== undefined || input.rule_id !== undefined || input.package !== undefined;
  if ((input.finding_ids !== undefined) === rule) {
    throw badRequest('validation_failed', 'Name finding_ids, or a cve, rule_id or package to match', [
      { path: 'body', message: 'must have finding_ids, or a cve, rule_id or package (not both)' },
    ]);
  }
  if (input.finding_ids !== undefined && input.path_prefix !== undefined) {
    throw badRequest('validation_failed', 'path_prefix narrows a rule, not finding ids', [
      { path: 'body.path_prefix', message: 'is allowed only with cve, rule_id or package' },
    ]);
  }
  if (input.application_id !== undefined) {
    await authorizeOne(db, user, 'application', String(input.application_id), 'write');
  } else if (input.group_id !== undefined) {
    await authorizeOne(db, user, 'group', String(input.group_id), 'write');
  } else {
    throw badRequest('validation_failed', 'Name the application_id or the group_id', [
      { path: 'body.application_id', message: 'is required (or group_id)' },
    ]);
  }
  const row = await db.transaction().execute(async (trx) => {
    const { acceptance, created, covered } = await createAcceptance(
      trx,
      {
        ...(input.application_id !== undefined
          ? { applicationId: input.application_id }
          : { groupId: input.group_id as number }),
        match:
          input.finding_ids !== undefined
            ? { findingIds: input.finding_ids }
            : {
                cve: input.cve ?? null,
                ruleId: input.rule_id ?? null,
                packageName: input.package ?? null,
                pathPrefix: input.path_prefix ?? null,
              },
        ...(input.reason !== undefined ? { reason: input.reason } : {}),
        justification: input.justification ?? null,
        impactStatement: input.impact_statement ?? null,
        comment: input.comment ?? null,
        expiresAt,
        ownerId: input.owner_id ?? null,
      },
      { userId: user.id, now },
    );
    // Last: from here until commit the transaction holds the audit chain's head.
    if (created) {
      await recordAcceptanceAudit(trx, audit, 'acceptance.created', null, acceptance, {
        covered_findings: covered,
      });
    }
    return acceptance;
  });
  return withCoverage(db, row);
}

/**
 * GET /api/acceptances: those of applications and groups the caller can read, newest first;
 * `status=expiring` lists active ones ending within their group's notice days.
 */
export async function listAcceptances(
  db: Kysely<DB>,
  user: UserPrincipal,
  query: AcceptanceListInput,
  now = new Date(),
): Promise<AcceptanceRecord[]> {
  const rows = await db
    .selectFrom('acceptances as acc')
    .selectAll('acc')
    .select(
      sql<number>`(select count(*) from findings f where f.acceptance_id = acc.id)::integer`.as('covered'),
    )
    .where(whereAccessible(user, 'acceptance', 'read', 'acc.id'))
    .where((eb) =>
      eb.and([
        ...(query.status === 'expiring'
          ? [eb('acc.status', '=', 'active'), eb('acc.expires_at', 'is not', null)]
          : query.status !== undefined
            ? [eb('acc.status', '=', query.status)]
            : []),
        ...(query.application_id !== undefined ? [eb('acc.application_id', '=', query.application_id)] : []),
        ...(query.group_id !== undefined ? [eb('acc.group_id', '=', query.group_id)] : []),
      ]),
    )
    .orderBy('acc.id', 'desc')
    .limit(1000)
    .execute();
  let listed = rows;
  if (query.status === 'expiring') {
    const notice = new Map<number, number>();
    for (const groupId of new Set(rows.map((row) => row.group_id))) {
      notice.set(groupId, (await effectiveSettings(db, groupId)).expiringNoticeDays);
    }
    listed = rows.filter((row) => expiresWithin(row, now, notice.get(row.group_id) ?? 0));
  }
  return listed.map(({ covered, ...row }) => presentAcceptance(row, Number(covered)));
}

export async function getAcceptance(db: Kysely<DB>, resolved: ResolvedAcceptance): Promise<AcceptanceRecord> {
  const row = await acceptanceById(db, resolved.id);
  if (!row) throw notFound('Acceptance');
  return withCoverage(db, row);
}

/** Runs `change` on the acceptance locked for it (gone since the route resolved it: 404). */
async function onLocked<T>(
  db: Kysely<DB>,
  resolved: ResolvedAcceptance,
  change: (trx: Transaction<DB>, row: AcceptanceRow) => Promise<T>,
): Promise<AcceptanceRecord> {
  const id = await db.transaction().execute(async (trx) => {
    const row = await lockAcceptance(trx, resolved.id);
    if (!row) throw notFound('Acceptance');
    await change(trx, row);
    return row.id;
  });
  const row = await acceptanceById(db, id);
  if (!row) throw notFound('Acceptance');
  return withCoverage(db, row);
}

export const approveFromRequest = (
  db: Kysely<DB>,
  user: UserPrincipal,
  resolved: ResolvedAcceptance,
  input: DecisionInput,
  audit: AuditContext,
  now = new Date(),
) =>
  onLocked(db, resolved, async (trx, row) => {
    const { acceptance, covered } = await approveAcceptance(trx, row, user.id, input.comment ?? null, now);
    await recordAcceptanceAudit(trx, audit, 'acceptance.approved', row, acceptance, {
      covered_findings: covered,
    });
  });

export const rejectFromRequest = (
  db: Kysely<DB>,
  user: UserPrincipal,
  resolved: ResolvedAcceptance,
  input: DecisionInput,
  audit: AuditContext,
  now = new Date(),
) =>
  onLocked(db, resolved, async (trx, row) => {
    const rejected = await rejectAcceptance(trx, row, user.id, input.comment ?? null, now);
    await recordAcceptanceAudit(trx, audit, 'acceptance.rejected', row, rejected);
  });

/** A later expiry, within the settings' maximum from now. */
export const extendFromRequest = (
  db: Kysely<DB>,
  resolved: ResolvedAcceptance,
  input: ExtendInput,
  audit: AuditContext,
  now = new Date(),
) =>
  onLocked(db, resolved, async (trx, row) => {
    const expiresAt = expiryOf(input.expires_at, 'body.expires_at') as Date;
    if (row.expires_at !== null && expiresAt.getTime() <= row.expires_at.getTime()) {
      throw new AppError(400, 'validation_failed', 'An extension ends later than the current expiry', {
        errors: [{ path: 'body.expires_at', message: `must be after ${row.expires_at.toISOString()}` }],
      });
    }
    checkExpiry(
      row.reason,
      expiresAt,
      await worstRankOf(trx, row),
      await effectiveSettings(trx, row.group_id),
      now,
    );
    const extended = await extendAcceptance(trx, row, expiresAt, now);
    await recordAcceptanceAudit(trx, audit, 'acceptance.extended', row, extended);
  });

export const revokeFromRequest = (
  db: Kysely<DB>,
  jobs: Jobs,
  user: UserPrincipal,
  resolved: ResolvedAcceptance,
  audit: AuditContext,
  now = new Date(),
) =>
  onLocked(db, resolved, async (trx, row) => {
    const { acceptance, released } = await revokeAcceptance(trx, jobs, row, user.id, now);
    await recordAcceptanceAudit(trx, audit, 'acceptance.revoked', row, acceptance, {
      reopened_findings: released.reopened.length,
      fixed_findings: released.fixed.length,
      handed_over_findings: released.handedOver.length,
    });
  });
