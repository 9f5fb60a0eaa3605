import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { StoredComponent } from '../parse/parsers/components.ts';

/** Rows per insert: well under PostgreSQL's 65535 bind parameters (16 columns per row). */
const INSERT_BATCH = 1000;

/** Where an upload's components go: its version, scope (tool + category) and scan. */
export interface ComponentScope {
  applicationId: number;
  versionId: number;
  scanId: number;
  toolName: string;
  category: string;
}

export interface ComponentCounts {
  added: number;
  removed: number;
  /** Components whose details (licence, hashes, scope, direct) changed, purl the same. */
  changed: number;
}

/**
 * Replaces the components of the upload's scope with `components` (one per purl), in the merge's
 * transaction: new purls are added, missing ones removed, changed ones rewritten keeping when they
 * were first seen; the adds and removes are the scan's diff (`scan_component_changes`). An identical
 * re-upload compares digests and writes nothing.
 */
export async function mergeComponents(
  trx: Transaction<DB>,
  scope: ComponentScope,
  components: readonly StoredComponent[],
): Promise<ComponentCounts> {
  const stored = await trx
    .selectFrom('components')
    .select(['id', 'purl', 'digest', 'name', 'version', 'first_scan_id'])
    .where('version_id', '=', scope.versionId)
    .where('tool_name', '=', scope.toolName)
    .where('category', '=', scope.category)
    .execute();
  const byPurl = new Map(stored.map((row) => [row.purl, row]));
  const incoming = new Set(components.map((component) => component.purl));
  const added = components.filter((component) => !byPurl.has(component.purl));
  const changed = components.flatMap((component) => {
    const row = byPurl.get(component.purl);
    return row !== undefined && row.digest !== component.digest ? [{ component, row }] : [];
  });
  const removed = stored.filter((row) => !incoming.has(row.purl));
  const gone = [...removed, ...changed.map(({ row }) => row)].map((row) => row.id);
  for (let start = 0; start < gone.length; start += INSERT_BATCH) {
    await trx
      .deleteFrom('components')
      .where('id', 'in', gone.slice(start, start + INSERT_BATCH))
      .execute();
  }
  const rows = [
    ...added.map((component) => rowOf(scope, component, scope.scanId)),
    ...changed.map(({ component, row }) => rowOf(scope, component, row.first_scan_id)),
  ];
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    await trx
      .insertInto('components')
      .values(rows.slice(start, start + INSERT_BATCH))
      .execute();
  }
  const changes = [
    ...added.map((component) => ({ change: 'added' as const, ...named(component) })),
    ...removed.map((row) => ({ change: 'removed' as const, ...named(row) })),
  ].map((change) => ({ scan_id: scope.scanId, ...change }));
  for (let start = 0; start < changes.length; start += INSERT_BATCH) {
    await trx
      .insertInto('scan_component_changes')
      .values(changes.slice(start, start + INSERT_BATCH))
      .execute();
  }
  return { added: added.length, removed: removed.length, changed: changed.length };
}

const named = (row: { purl: string; name: string; version: string | null }) => ({
  purl: row.purl,
  name: row.name,
  version: row.version,
});

function rowOf(scope: ComponentScope, component: StoredComponent, firstScanId: number | null) {
  return {
    application_id: scope.applicationId,
    version_id: scope.versionId,
    tool_name: scope.toolName,
    category: scope.category,
    purl: component.purl,
    package: component.package,
    ecosystem: component.ecosystem,
    namespace: component.namespace,
    name: component.name,
    version: component.version,
    licenses: component.licenses,
    license_ids: component.license_ids,
    scope: component.scope,
    direct: component.direct,
    hashes: JSON.stringify(component.hashes) as unknown as Record<string, string>,
    digest: component.digest,
    first_scan_id: firstScanId,
    last_scan_id: scope.scanId,
  };
}
