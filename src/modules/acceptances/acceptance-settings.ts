import type { Kysely, Transaction } from 'kysely';
import type { DB, SeverityName } from '../../db/schema.ts';

/**
 * The rules an acceptance is made under, for one group: the group's settings where it has them,
 * else the global ones (the row with no group), else these defaults.
 */
export interface EffectiveAcceptanceSettings {
  /** A second person with write access, not the author, must approve. */
  fourEyes: boolean;
  /** Longest accepted risk in days per severity; an absent severity has no limit. */
  maxDays: Partial<Record<SeverityName, number>>;
  /** `acceptance.expiring` is sent this many days before an acceptance expires. */
  expiringNoticeDays: number;
}

export const DEFAULT_ACCEPTANCE_SETTINGS: EffectiveAcceptanceSettings = {
  fourEyes: false,
  maxDays: {},
  expiringNoticeDays: 7,
};

type Executor = Kysely<DB> | Transaction<DB>;

/** The settings rows of `groupId` and the global one. */
export async function settingsRows(db: Executor, groupId: number | null) {
  return db
    .selectFrom('acceptance_settings')
    .selectAll()
    .where((eb) =>
      groupId === null
        ? eb('group_id', 'is', null)
        : eb.or([eb('group_id', 'is', null), eb('group_id', '=', groupId)]),
    )
    .execute();
}

/** The settings in force for acceptances in `groupId`. */
export async function effectiveSettings(db: Executor, groupId: number): Promise<EffectiveAcceptanceSettings> {
  const rows = await settingsRows(db, groupId);
  const global = rows.find((row) => row.group_id === null);
  const group = rows.find((row) => row.group_id === groupId);
  return {
    fourEyes: group?.four_eyes ?? global?.four_eyes ?? DEFAULT_ACCEPTANCE_SETTINGS.fourEyes,
    maxDays: { ...(global?.max_days ?? {}), ...(group?.max_days ?? {}) },
    expiringNoticeDays:
      group?.expiring_notice_days ??
      global?.expiring_notice_days ??
      DEFAULT_ACCEPTANCE_SETTINGS.expiringNoticeDays,
  };
}
