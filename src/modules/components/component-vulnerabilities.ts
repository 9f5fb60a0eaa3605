import type { Kysely } from 'kysely';
import type { DB, FindingStatus, SeverityName } from '../../db/schema.ts';

/** A dependency finding of the component's version that names the component's package and version. */
export interface ComponentVulnerability {
  finding_id: number;
  rule_id: string | null;
  cve_ids: string[];
  title: string;
  severity: SeverityName;
  status: FindingStatus;
  fixed_version: string | null;
  cvss_score: number | null;
  cvss_vector: string | null;
  description: string | null;
}

interface Named {
  version_id: number;
  namespace: string | null;
  name: string;
  version: string | null;
}

/**
 * How scanners name a package in their findings: `log4j-core`, `org.apache.logging.log4j:log4j-core`
 * (Trivy, Dependency-Check), `org.apache.logging.log4j/log4j-core`, `@scope/name`.
 */
export function findingNames(component: Pick<Named, 'namespace' | 'name'>): string[] {
  if (component.namespace === null) return [component.name];
  return [
    component.name,
    `${component.namespace}:${component.name}`,
    `${component.namespace}/${component.name}`,
  ];
}

const keyOf = (versionId: number, name: string, version: string | null) =>
  `${versionId}\u0000${name}\u0000${version ?? ''}`;

/** Findings per version, read in batches of versions (one query each). */
const VERSION_BATCH = 500;

/**
 * The dependency findings on `components` (every status: a fixed or dismissed one is what scanhub
 * knows too), as a lookup per component.
 */
export async function vulnerabilitiesOf(
  db: Kysely<DB>,
  components: readonly Named[],
): Promise<(component: Named) => ComponentVulnerability[]> {
  const byKey = new Map<string, ComponentVulnerability[]>();
  const versionIds = [...new Set(components.map((component) => component.version_id))];
  const names = [...new Set(components.flatMap(findingNames))];
  for (let start = 0; start < versionIds.length && names.length > 0; start += VERSION_BATCH) {
    const rows = await db
      .selectFrom('findings')
      .select([
        'id',
        'version_id',
        'package_name',
        'package_version',
        'rule_id',
        'cve_ids',
        'title',
        'severity',
        'status',
        'fixed_version',
        'cvss_score',
        'cvss_vector',
        'description',
      ])
      .where('version_id', 'in', versionIds.slice(start, start + VERSION_BATCH))
      .where('kind', '=', 'dependency')
      .where('package_name', 'in', names)
      .orderBy('id')
      .execute();
    for (const row of rows) {
      if (row.package_name === null) continue;
      const key = keyOf(row.version_id, row.package_name, row.package_version);
      const list = byKey.get(key) ?? [];
      list.push({
        finding_id: row.id,
        rule_id: row.rule_id,
        cve_ids: row.cve_ids,
        title: row.title,
        severity: row.severity,
        status: row.status,
        fixed_version: row.fixed_version,
        cvss_score: row.cvss_score,
        cvss_vector: row.cvss_vector,
        description: row.description,
      });
      byKey.set(key, list);
    }
  }
  return (component) => {
    const seen = new Set<number>();
    return findingNames(component)
      .flatMap((name) => byKey.get(keyOf(component.version_id, name, component.version)) ?? [])
      .filter(
        (vulnerability) =>
          !seen.has(vulnerability.finding_id) && seen.add(vulnerability.finding_id) !== undefined,
      );
  };
}
