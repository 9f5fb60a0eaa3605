import { createHash } from 'node:crypto';
import { PackageURL } from 'packageurl-js';
import parseSpdx from 'spdx-expression-parse';
import { asArray, asRecordOrEmpty, asString, isRecord } from './json-value.ts';
import type { NormalizedComponent } from './types.ts';

/**
 * Components as reports list them, and the one shape they are stored in: a package URL normalized by
 * packageurl-js (type and, per the purl spec, some names lower-cased, qualifiers sorted), the package
 * it names without version, an SPDX licence expression and the licence ids in it.
 */

/** A component as staged and stored: normalized, with its identity in its scope (`purl`). */
export interface StoredComponent {
  purl: string;
  /** `pkg:type/namespace/name`: what a query across versions looks for. */
  package: string;
  ecosystem: string;
  namespace: string | null;
  name: string;
  version: string | null;
  licenses: string | null;
  /** Licence and exception ids of the expression (`LicenseRef-…` included), for the licence index. */
  license_ids: string[];
  scope: string | null;
  direct: boolean | null;
  hashes: Record<string, string>;
  /** sha256 of everything above but `purl`: an unchanged component is not written again. */
  digest: string;
}

/** CycloneDX's names of hash algorithms, from the spellings SPDX and tools use. */
const HASH_NAMES: Record<string, string> = {
  MD5: 'MD5',
  SHA1: 'SHA-1',
  SHA256: 'SHA-256',
  SHA384: 'SHA-384',
  SHA512: 'SHA-512',
  SHA3256: 'SHA3-256',
  SHA3384: 'SHA3-384',
  SHA3512: 'SHA3-512',
  BLAKE2B256: 'BLAKE2b-256',
  BLAKE2B384: 'BLAKE2b-384',
  BLAKE2B512: 'BLAKE2b-512',
  BLAKE3: 'BLAKE3',
};

export function hashName(algorithm: string): string | null {
  return HASH_NAMES[algorithm.toUpperCase().replace(/[^A-Z0-9]/g, '')] ?? null;
}

/** CycloneDX `hashes` (`[{alg, content}]`) or SPDX `checksums` (`[{algorithm, checksumValue}]`). */
export function hashesFrom(list: unknown): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const entry of asArray(list).map(asRecordOrEmpty)) {
    const alg = asString(entry['alg']) ?? asString(entry['algorithm']);
    const content = asString(entry['content']) ?? asString(entry['checksumValue']);
    const name = alg === null ? null : hashName(alg);
    if (name !== null && content !== null && content.length <= 256) hashes[name] = content;
  }
  return hashes;
}

/** An SPDX id when `name` is one, else a `LicenseRef-` made of it (SPDX idstring: letters, digits, `.`, `-`). */
function licenseId(name: string): string {
  try {
    const parsed = parseSpdx(name);
    if ('license' in parsed) return parsed.license;
  } catch {
    // not an SPDX id: a LicenseRef below
  }
  return `LicenseRef-${name.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '') || 'unknown'}`;
}

/** Licences joined with AND (a component offered under several listed licences meets them all). */
export function joinLicenses(parts: readonly string[]): string | null {
  const distinct = [...new Set(parts.filter((part) => part.trim() !== ''))];
  if (distinct.length === 0) return null;
  if (distinct.length === 1) return distinct[0] ?? null;
  return distinct.map((part) => (/\s/.test(part) ? `(${part})` : part)).join(' AND ');
}

/** CycloneDX `licenses`: `[{license: {id | name}}, {expression}]`. */
export function cyclonedxLicenses(list: unknown): string | null {
  const parts = asArray(list).flatMap((entry) => {
    const record = asRecordOrEmpty(entry);
    const expression = asString(record['expression']);
    if (expression !== null) return [expression];
    const license = asRecordOrEmpty(record['license']);
    const id = asString(license['id']) ?? asString(license['name']);
    return id === null ? [] : [licenseId(id)];
  });
  return joinLicenses(parts);
}

/** SPDX document licence fields: `NOASSERTION` and `NONE` say nothing about the licence. */
export function spdxLicense(value: unknown): string | null {
  const text = asString(value);
  return text === null || text === 'NOASSERTION' || text === 'NONE' ? null : text;
}

/** Licences as a list of names or ids (Trivy, Grype). */
export function licenseList(list: unknown): string | null {
  return joinLicenses(
    asArray(list).flatMap((entry) => {
      const text = isRecord(entry) ? (asString(entry['value']) ?? asString(entry['name'])) : asString(entry);
      return text === null ? [] : [licenseId(text)];
    }),
  );
}

/** Ids of an SPDX expression (`MIT OR (Apache-2.0 WITH LLVM-exception)` → MIT, Apache-2.0, LLVM-exception). */
export function licenseIds(expression: string | null): string[] {
  if (expression === null) return [];
  const ids = new Set<string>();
  const walk = (node: parseSpdx.Info): void => {
    if ('license' in node) {
      ids.add(node.license);
      if (node.exception) ids.add(node.exception);
    } else {
      walk(node.left);
      walk(node.right);
    }
  };
  try {
    walk(parseSpdx(expression));
  } catch {
    // Not a valid expression: its words that look like ids.
    for (const word of expression.split(/[\s()]+/)) {
      if (word !== '' && !/^(AND|OR|WITH)$/i.test(word)) ids.add(word);
    }
  }
  return [...ids].slice(0, 50);
}

/** OSV ecosystem names → package URL types (https://ossf.github.io/osv-schema/#affectedpackage-field). */
const OSV_TYPES: Record<string, string> = {
  npm: 'npm',
  pypi: 'pypi',
  maven: 'maven',
  go: 'golang',
  'crates.io': 'cargo',
  rubygems: 'gem',
  nuget: 'nuget',
  packagist: 'composer',
  hex: 'hex',
  pub: 'pub',
  debian: 'deb',
  ubuntu: 'deb',
  alpine: 'apk',
  'rocky linux': 'rpm',
  almalinux: 'rpm',
  'red hat': 'rpm',
  swifturl: 'swift',
  cran: 'cran',
  // Trivy's result types
  pip: 'pypi',
  pipenv: 'pypi',
  poetry: 'pypi',
  'python-pkg': 'pypi',
  jar: 'maven',
  pom: 'maven',
  gradle: 'maven',
  gomod: 'golang',
  gobinary: 'golang',
  bundler: 'gem',
  gemspec: 'gem',
  cargo: 'cargo',
  yarn: 'npm',
  pnpm: 'npm',
  'node-pkg': 'npm',
  composer: 'composer',
  redhat: 'rpm',
  centos: 'rpm',
  rocky: 'rpm',
  alma: 'rpm',
  amazon: 'rpm',
  oracle: 'rpm',
  suse: 'rpm',
  // Grype's artifact types
  'java-archive': 'maven',
  python: 'pypi',
  'go-module': 'golang',
  'rust-crate': 'cargo',
};

export function purlTypeOfEcosystem(ecosystem: string | null): string | null {
  if (ecosystem === null) return null;
  const base = ecosystem.split(':')[0]?.trim().toLowerCase() ?? '';
  return OSV_TYPES[base] ?? (base === '' ? null : base.replace(/[^a-z0-9.+-]/g, ''));
}

/**
 * Namespace and name of a package as a scanner names it (`org.apache:log4j` for Maven,
 * `@scope/name` for npm, `github.com/a/b` for Go).
 */
export function splitPackageName(type: string, fullName: string): { namespace: string | null; name: string } {
  if (type === 'maven' && fullName.includes(':')) {
    const [group, artifact] = fullName.split(':', 2);
    return { namespace: group ?? null, name: artifact ?? fullName };
  }
  const slash = fullName.lastIndexOf('/');
  if ((type === 'npm' || type === 'golang' || type === 'composer') && slash > 0) {
    return { namespace: fullName.slice(0, slash), name: fullName.slice(slash + 1) };
  }
  return { namespace: null, name: fullName };
}

/** A component from a scanner's package name, version and ecosystem, its purl built when it has none. */
export function componentOf(fields: {
  purl?: string | null;
  type: string | null;
  name: string;
  version: string | null;
  licenses?: string | null;
  direct?: boolean | null;
}): NormalizedComponent {
  const type = fields.type ?? 'generic';
  const { namespace, name } = splitPackageName(type, fields.name);
  return {
    purl: fields.purl ?? null,
    ecosystem: type,
    namespace,
    name,
    version: fields.version,
    licenses: fields.licenses ?? null,
    scope: null,
    direct: fields.direct ?? null,
    hashes: {},
  };
}

function parsedPurl(purl: string | null): PackageURL | null {
  if (purl === null || !purl.startsWith('pkg:')) return null;
  try {
    return PackageURL.fromString(purl);
  } catch {
    return null;
  }
}

function built(component: NormalizedComponent): PackageURL {
  const type = (component.ecosystem ?? 'generic').toLowerCase().replace(/[^a-z0-9.+-]/g, '') || 'generic';
  // A purl needs a name: a report's blank one ("\t", found by the property test) is `unknown`.
  const name = component.name.trim() === '' ? 'unknown' : component.name;
  try {
    return new PackageURL(type, component.namespace, name, component.version, null, null);
  } catch {
    return new PackageURL('generic', null, name, component.version, null, null);
  }
}

const CAP = { text: 1000, purl: 2000 };
/** `text` as PostgreSQL can store it: without NUL characters (a report may hold them), at most `max` long. */
function capped(text: string | null, max = CAP.text): string | null {
  if (text === null) return null;
  const clean = text.includes('\u0000') ? text.replaceAll('\u0000', '') : text;
  if (clean.length <= max) return clean;
  // Never leave half a surrogate pair at the cut.
  const last = clean.charCodeAt(max - 1);
  return clean.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** The stored shape: purl normalized (or built), the other fields from it where the report left them out. */
export function storedComponent(component: NormalizedComponent): StoredComponent {
  const purl = parsedPurl(component.purl) ?? built(component);
  const namespace = capped(purl.namespace ?? null);
  const name = capped(purl.name) ?? 'unknown';
  const version = capped(purl.version ?? component.version ?? null);
  const base = new PackageURL(purl.type, purl.namespace, purl.name, null, null, null).toString();
  const licenses = capped(component.licenses, 4000);
  const fields = {
    package: capped(base, CAP.purl) ?? base,
    ecosystem: capped(purl.type, 100) ?? 'generic',
    namespace,
    name,
    version,
    licenses,
    license_ids: licenseIds(licenses).map((id) => id.slice(0, 200)),
    scope: capped(component.scope, 20),
    direct: component.direct,
    hashes: Object.fromEntries(
      Object.entries(component.hashes)
        .map(([algorithm, value]) => [capped(algorithm, 100) ?? '', capped(value, 1000) ?? ''])
        .sort(([a = ''], [b = '']) => (a < b ? -1 : 1)),
    ),
  };
  return {
    purl: capped(purl.toString(), CAP.purl) ?? base,
    ...fields,
    digest: createHash('sha256').update(JSON.stringify(fields)).digest('hex'),
  };
}

/**
 * Two listings of one purl in a report (the same package installed twice) become one: the entries
 * merged field by field in a fixed order, so the stored set does not depend on report order.
 */
export function mergeListings(a: StoredComponent, b: StoredComponent): StoredComponent {
  const [first, second] = a.digest <= b.digest ? [a, b] : [b, a];
  const direct = first.direct === true || second.direct === true ? true : (first.direct ?? second.direct);
  const merged: NormalizedComponent = {
    purl: first.purl,
    ecosystem: first.ecosystem,
    namespace: first.namespace,
    name: first.name,
    version: first.version,
    licenses: first.licenses ?? second.licenses,
    scope: first.scope ?? second.scope,
    direct,
    hashes: { ...second.hashes, ...first.hashes },
  };
  return storedComponent(merged);
}
