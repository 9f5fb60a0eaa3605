import { cyclonedxLicenses, hashesFrom } from './components.ts';
import { asArray, asRecordOrEmpty, asString, isRecord, type JsonRecord } from './json-value.ts';
import type { NormalizedComponent } from './types.ts';

/**
 * A CycloneDX BOM's components (JSON, or XML rewritten into JSON's shape by cyclonedx-xml.ts), nested
 * ones included. Direct or transitive comes from `dependencies`: what the subject
 * (`metadata.component`) depends on is direct, the rest transitive; without an entry for the subject
 * the BOM does not say (null).
 */
export function componentsOfBom(
  metadata: JsonRecord,
  listed: readonly unknown[],
  dependencies: readonly unknown[],
): NormalizedComponent[] {
  const subject = asString(asRecordOrEmpty(metadata['component'])['bom-ref']);
  const subjectEntry = dependencies
    .map(asRecordOrEmpty)
    .find((entry) => subject !== null && asString(entry['ref']) === subject);
  const direct =
    subjectEntry === undefined
      ? null
      : new Set(asArray(subjectEntry['dependsOn']).map((ref) => asString(isRecord(ref) ? ref['ref'] : ref)));
  const out: NormalizedComponent[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (!isRecord(value) || depth > 32) return;
    const name = asString(value['name']);
    if (name !== null) out.push(componentOf(value, name, direct));
    for (const child of asArray(value['components'])) visit(child, depth + 1);
  };
  for (const value of listed) visit(value, 0);
  return out;
}

function componentOf(
  value: JsonRecord,
  name: string,
  direct: Set<string | null> | null,
): NormalizedComponent {
  const ref = asString(value['bom-ref']);
  const purl = asString(value['purl']);
  return {
    purl,
    ecosystem: null,
    namespace: asString(value['group']),
    name,
    version: asString(value['version']),
    licenses: cyclonedxLicenses(value['licenses']),
    scope: asString(value['scope']),
    direct: direct === null ? null : direct.has(ref) || (purl !== null && direct.has(purl)),
    hashes: hashesFrom(value['hashes']),
  };
}
