import type { Kysely } from 'kysely';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { DEFAULT_ACCEPTANCE_SETTINGS, effectiveSettings, settingsRows } from './acceptance-settings.ts';
import type { AcceptanceSettingsInput, AcceptanceSettingsRecord } from './acceptances.schema.ts';

/** GET the settings of a group (or the global ones, `groupId` null), with the values in force. */
export async function getAcceptanceSettings(
  db: Kysely<DB>,
  groupId: number | null,
): Promise<AcceptanceSettingsRecord> {
  const rows = await settingsRows(db, groupId);
  const own = rows.find((row) => row.group_id === groupId);
  const effective =
    groupId === null
      ? {
          fourEyes: own?.four_eyes ?? DEFAULT_ACCEPTANCE_SETTINGS.fourEyes,
          maxDays: own?.max_days ?? {},
          expiringNoticeDays: own?.expiring_notice_days ?? DEFAULT_ACCEPTANCE_SETTINGS.expiringNoticeDays,
        }
      : await effectiveSettings(db, groupId);
  return {
    group_id: groupId,
    four_eyes: own?.four_eyes ?? null,
    max_days: own?.max_days ?? {},
    expiring_notice_days: own?.expiring_notice_days ?? null,
    effective: {
      four_eyes: effective.fourEyes,
      max_days: effective.maxDays,
      expiring_notice_days: effective.expiringNoticeDays,
    },
  };
}

/** PUT: the fields given replace the group's (or global) values; null hands one back to the global value. */
export async function putAcceptanceSettings(
  db: Kysely<DB>,
  user: UserPrincipal,
  groupId: number | null,
  input: AcceptanceSettingsInput,
  audit: AuditContext,
): Promise<AcceptanceSettingsRecord> {
  await db.transaction().execute(async (trx) => {
    const existing = (await settingsRows(trx, groupId)).find((row) => row.group_id === groupId);
    const values = {
      ...(input.four_eyes !== undefined ? { four_eyes: input.four_eyes } : {}),
      ...(input.max_days !== undefined
        ? { max_days: input.max_days ? JSON.stringify(input.max_days) : null }
        : {}),
      ...(input.expiring_notice_days !== undefined
        ? { expiring_notice_days: input.expiring_notice_days }
        : {}),
      updated_by: user.id,
      updated_at: new Date(),
    };
    if (existing) {
      await trx.updateTable('acceptance_settings').set(values).where('id', '=', existing.id).execute();
    } else {
      await trx
        .insertInto('acceptance_settings')
        .values({ group_id: groupId, ...values })
        .execute();
    }
    const stored = (row: typeof existing) => ({
      four_eyes: row?.four_eyes ?? null,
      max_days: row?.max_days ?? null,
      expiring_notice_days: row?.expiring_notice_days ?? null,
    });
    const after = (await settingsRows(trx, groupId)).find((row) => row.group_id === groupId);
    // Last: from here until commit the transaction holds the audit chain's head.
    if (JSON.stringify(stored(existing)) !== JSON.stringify(stored(after))) {
      await recordAudit(trx, audit, {
        action: 'acceptance_settings.updated',
        target: { type: groupId === null ? 'settings' : 'group', id: groupId, label: 'acceptance settings' },
        before: stored(existing),
        after: stored(after),
      });
    }
  });
  return getAcceptanceSettings(db, groupId);
}
