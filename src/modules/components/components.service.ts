import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { PackageURL } from 'packageurl-js';
import { whereAccessible } from '../../access/access.ts';
import type { Principal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { badRequest } from '../../errors.ts';
import { parseRange, RangeError, type VersionRange } from '../../lib/version-range/version-range.ts';
import { vulnerabilitiesOf, type ComponentVulnerability } from './component-vulnerabilities.ts';

/**
 * The question of issue 50: which applications, versions and branches ship a package, in which of its
 * versions, with what scanhub knows of its vulnerabilities, among what the caller may read. The
 * database finds the package's rows by index (`package`, `lower(name)` or `license_ids`); the range
 * is applied here, in the ecosystem's own version order (src/lib/version-range/), to the few
 * versions they hold. Results come in application id, version id and component id order, a page at a
 * time (`cursor`: the previous page's `next_cursor`).
 */

export interface ComponentSearch {
  purl?: string | undefined;
  name?: string | undefined;
  ecosystem?: string | undefined;
  license?: string | undefined;
  range?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

export interface ComponentHit {
  application: { id: number; name: string; slug: string };
  version: { id: number; name: string; branch: string | null; is_default: boolean };
  component: ComponentFields;
  vulnerabilities: ComponentVulnerability[];
}

export interface ComponentFields {
  purl: string;
  ecosystem: string;
  namespace: string | null;
  name: string;
  version: string | null;
  licenses: string | null;
  scope: string | null;
  direct: boolean | null;
  tool_name: string;
  category: string;
}

/** Rows read before the range filter: a package in 5k applications × a few versions each fits. */
const MAX_CANDIDATES = 50_000;

interface Target {
  package?: string;
  exactVersion?: string;
  ecosystem?: string;
}

function targetOf(search: ComponentSearch): Target {
  if (search.purl === undefined) return search.ecosystem === undefined ? {} : { ecosystem: search.ecosystem };
  let purl: PackageURL;
  try {
    purl = PackageURL.fromString(search.purl);
  } catch (error) {
    throw badRequest('invalid_purl', `purl: ${(error as Error).message}`);
  }
  const base = new PackageURL(purl.type, purl.namespace, purl.name, null, null, null).toString();
  return {
    package: base,
    ecosystem: purl.type,
    ...(purl.version === undefined || purl.version === null ? {} : { exactVersion: purl.version }),
  };
}

function rangeFor(ecosystem: string, text: string): VersionRange {
  try {
    return parseRange(ecosystem, text);
  } catch (error) {
    if (error instanceof RangeError) throw badRequest('invalid_range', `range: ${error.message}`);
    throw error;
  }
}

/**
 * The order of a search's results and of its pages: application id, version id, component id (the
 * order in which the version's components were stored). Ids, not names: the index on
 * `components.application_id` hands the rows over in that order, so a search matching a fifth of a
 * million components (a licence) reads only its page's rows instead of sorting every match.
 */
interface Key {
  application_id: number;
  version_id: number;
  id: number;
}

const CURSOR = /^([0-9]{1,10})\.([0-9]{1,10})\.([0-9]{1,19})$/;

/** `next_cursor` of a page: the key of the last row it covered. */
function cursorOf(key: Key): string {
  return `${key.application_id}.${key.version_id}.${key.id}`;
}

function keyOf(cursor: string): Key {
  const match = CURSOR.exec(cursor);
  if (!match) throw badRequest('invalid_cursor', 'cursor: give the next_cursor of the previous page');
  const [, application, version, id] = match.map(Number) as [number, number, number, number];
  // Ids as the columns hold them: integer application and version ids, a component id in JS range.
  if (application > 2_147_483_647 || version > 2_147_483_647 || !Number.isSafeInteger(id)) {
    throw badRequest('invalid_cursor', 'cursor: give the next_cursor of the previous page');
  }
  return { application_id: application, version_id: version, id };
}

export async function searchComponents(
  db: Kysely<DB>,
  principal: Principal,
  search: ComponentSearch,
  /** Candidates read per request with a range (tests lower it to reach the page that is cut short). */
  maxCandidates = MAX_CANDIDATES,
): Promise<{ results: ComponentHit[]; truncated: boolean; next_cursor: string | null }> {
  if (search.purl === undefined && search.name === undefined && search.license === undefined) {
    throw badRequest('missing_filter', 'Name a package: purl, name (with ecosystem), or license');
  }
  const target = targetOf(search);
  if (search.range !== undefined && target.ecosystem === undefined && search.name === undefined) {
    throw badRequest('invalid_range', 'A range needs the ecosystem: give a purl or ecosystem');
  }
  if (search.range !== undefined && target.ecosystem !== undefined) rangeFor(target.ecosystem, search.range);
  const after = search.cursor === undefined ? undefined : keyOf(search.cursor);
  const read = (from: Key | undefined, count: number) =>
    db
      .selectFrom('components as c')
      .innerJoin('application_versions as v', 'v.id', 'c.version_id')
      .innerJoin('applications as a', 'a.id', 'c.application_id')
      .select([
        'c.id',
        'c.application_id',
        'c.version_id',
        'c.purl',
        'c.ecosystem',
        'c.namespace',
        'c.name',
        'c.version',
        'c.licenses',
        'c.scope',
        'c.direct',
        'c.tool_name',
        'c.category',
        'v.name as version_name',
        'v.branch',
        'v.is_default',
        'a.name as application_name',
        'a.slug as application_slug',
      ])
      .where(whereAccessible(principal, 'application', 'read', 'c.application_id'))
      .$if(from !== undefined, (q) =>
        q
          .where('c.application_id', '>=', from?.application_id ?? 0)
          .where(
            sql<boolean>`(c.application_id, c.version_id, c.id) > (${from?.application_id ?? 0}, ${from?.version_id ?? 0}, ${from?.id ?? 0})`,
          ),
      )
      .$if(target.package !== undefined, (q) => q.where('c.package', '=', target.package ?? ''))
      .$if(target.exactVersion !== undefined && search.range === undefined, (q) =>
        q.where('c.version', '=', target.exactVersion ?? ''),
      )
      .$if(search.name !== undefined, (q) =>
        q.where(sql`lower(c.name)`, '=', (search.name ?? '').toLowerCase()),
      )
      .$if(target.ecosystem !== undefined && target.package === undefined, (q) =>
        q.where('c.ecosystem', '=', target.ecosystem ?? ''),
      )
      .$if(search.license !== undefined, (q) =>
        q.where(sql<boolean>`c.license_ids @> array[${search.license ?? ''}]::text[]`),
      )
      .orderBy('c.application_id')
      .orderBy('c.version_id')
      .orderBy('c.id')
      .limit(count)
      .execute();
  type Row = Awaited<ReturnType<typeof read>>[number];
  const ranges = new Map<string, VersionRange>();
  const inRange = (ecosystem: string, version: string | null): boolean => {
    if (search.range === undefined) return true;
    if (version === null) return false;
    let range = ranges.get(ecosystem);
    if (range === undefined) ranges.set(ecosystem, (range = rangeFor(ecosystem, search.range)));
    return range.matches(version);
  };
  // Without a range every row the database finds is a hit: one page (and one more row, to know
  // whether there are more). With one, candidates in chunks (twice the page, then four times more
  // each time) until the page is full or `maxCandidates` were read.
  const matching: Row[] = [];
  let budget = search.range === undefined ? search.limit + 1 : maxCandidates;
  let chunk = search.range === undefined ? budget : 2 * (search.limit + 1);
  let from = after;
  let lastRead: Row | undefined;
  let exhausted = false;
  for (;;) {
    const count = Math.min(chunk, budget);
    const rows = await read(from, count);
    budget -= rows.length;
    for (const row of rows) if (inRange(row.ecosystem, row.version)) matching.push(row);
    if (rows.length < count) {
      exhausted = true;
      break;
    }
    from = lastRead = rows.at(-1);
    if (matching.length > search.limit || budget === 0) break;
    chunk *= 4;
  }
  const page = matching.slice(0, search.limit);
  // More after this page: a match beyond it, or candidates left unread (the next page goes on from
  // the last one read, which may be past the page's last match).
  const last = matching.length > search.limit ? page.at(-1) : exhausted ? undefined : lastRead;
  const vulnerabilities = await vulnerabilitiesOf(db, page);
  return {
    truncated: last !== undefined,
    next_cursor: last === undefined ? null : cursorOf(last),
    results: page.map((row) => ({
      application: { id: row.application_id, name: row.application_name, slug: row.application_slug },
      version: { id: row.version_id, name: row.version_name, branch: row.branch, is_default: row.is_default },
      component: componentFields(row),
      vulnerabilities: vulnerabilities(row),
    })),
  };
}

export function componentFields(row: ComponentFields): ComponentFields {
  return {
    purl: row.purl,
    ecosystem: row.ecosystem,
    namespace: row.namespace,
    name: row.name,
    version: row.version,
    licenses: row.licenses,
    scope: row.scope,
    direct: row.direct,
    tool_name: row.tool_name,
    category: row.category,
  };
}

/** A version's components, in purl order, each with the vulnerabilities its findings name. */
export async function componentsOfVersion(
  db: Kysely<DB>,
  versionId: number,
): Promise<
  (ComponentFields & { vulnerabilities: ComponentVulnerability[]; hashes: Record<string, string> })[]
> {
  const rows = await db
    .selectFrom('components')
    .select([
      'purl',
      'ecosystem',
      'namespace',
      'name',
      'version',
      'licenses',
      'scope',
      'direct',
      'tool_name',
      'category',
      'version_id',
      'hashes',
    ])
    .where('version_id', '=', versionId)
    .orderBy('purl')
    .orderBy('tool_name')
    .execute();
  const vulnerabilities = await vulnerabilitiesOf(db, rows);
  return rows.map((row) => ({
    ...componentFields(row),
    hashes: row.hashes,
    vulnerabilities: vulnerabilities(row),
  }));
}

/** The licences of an application's components: per licence id, how many components in which versions. */
export async function licensesOfApplication(db: Kysely<DB>, applicationId: number) {
  const rows = await db
    .selectFrom('components as c')
    .innerJoin('application_versions as v', 'v.id', 'c.version_id')
    .select([
      sql<string>`coalesce(c.licenses, '')`.as('licenses'),
      'v.id as version_id',
      'v.name as version_name',
      sql<number>`count(*)::integer`.as('components'),
    ])
    .where('c.application_id', '=', applicationId)
    .groupBy([sql`coalesce(c.licenses, '')`, 'v.id', 'v.name'])
    .orderBy(sql`coalesce(c.licenses, '')`)
    .orderBy('v.name')
    .execute();
  const byLicense = new Map<
    string,
    {
      license: string | null;
      components: number;
      versions: { id: number; name: string; components: number }[];
    }
  >();
  for (const row of rows) {
    const key = row.licenses;
    let entry = byLicense.get(key);
    if (!entry)
      byLicense.set(key, (entry = { license: key === '' ? null : key, components: 0, versions: [] }));
    entry.components += row.components;
    entry.versions.push({ id: row.version_id, name: row.version_name, components: row.components });
  }
  return [...byLicense.values()];
}
