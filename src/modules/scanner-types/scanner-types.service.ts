import type { Kysely, Selectable } from 'kysely';
import { parseId } from '../../access/access.ts';
import type { DB, ScannerTypesTable } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { notFound } from '../../errors.ts';
import { iso } from '../../http/schemas.ts';

export function presentScannerType(row: Selectable<ScannerTypesTable>) {
  return {
    id: row.id,
    name: row.name,
    display_name: row.display_name,
    enabled: row.enabled,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Adds a row for every parser scanhub ships (new parsers appear enabled); existing rows keep their flag. */
export async function syncScannerTypes(
  db: Kysely<DB>,
  parsers: readonly { name: string; displayName: string }[],
) {
  if (parsers.length === 0) return;
  await db
    .insertInto('scanner_types')
    .values(parsers.map((parser) => ({ name: parser.name, display_name: parser.displayName })))
    .onConflict((oc) =>
      oc.column('name').doUpdateSet((eb) => ({ display_name: eb.ref('excluded.display_name') })),
    )
    .execute();
}

export async function listScannerTypes(db: Kysely<DB>) {
  const rows = await db.selectFrom('scanner_types').selectAll().orderBy('name').execute();
  return rows.map(presentScannerType);
}

/** `{id}` is the numeric id or the name (`sarif`). */
export async function setScannerTypeEnabled(
  db: Kysely<DB>,
  ref: string,
  enabled: boolean,
  audit: AuditContext,
) {
  const id = parseId(ref);
  const row = await db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('scanner_types')
      .select(['id', 'enabled'])
      .where((eb) => (id === null ? eb('name', '=', ref) : eb('id', '=', id)))
      .forUpdate()
      .executeTakeFirst();
    if (!before) throw notFound('Scanner type');
    const updated = await trx
      .updateTable('scanner_types')
      .set({ enabled, updated_at: new Date() })
      .where('id', '=', before.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (before.enabled !== enabled) {
      await recordAudit(trx, audit, {
        action: 'scanner_type.updated',
        target: { type: 'scanner_type', id: updated.id, label: updated.name },
        before: { enabled: before.enabled },
        after: { enabled },
      });
    }
    return updated;
  });
  return presentScannerType(row);
}
